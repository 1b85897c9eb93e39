package dev.interlace.runtime.auth;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The key file cannot be read or written, or is not a key file. Never treated as "no keys": a server that cannot read
 * its keys must not start in open mode.
 */
public final class KeyFileException extends UncheckedIOException {

    private static final long serialVersionUID = 1L;

    public KeyFileException(String message, IOException cause) {
        super(message, cause);
    }
}
