package dev.interlace.runtime.cli;

/** A command understood its arguments but could not do its work; reported with exit code 1. */
final class CommandFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    CommandFailedException(String message) {
        super(message);
    }
}
