package dev.interlace.runtime.cli;

/** The command line could not be understood; reported with the command's usage and exit code 2. */
final class UsageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
