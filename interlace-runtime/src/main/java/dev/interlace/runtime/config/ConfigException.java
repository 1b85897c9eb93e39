package dev.interlace.runtime.config;

/** A configuration value is missing, unknown or out of range; the message names the value and where it came from. */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }
}
