package dev.interlace.runtime.log;

/** The log cannot make writes durable right now (disk full, I/O error, closed); nothing of the request was kept. */
public final class LogUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public LogUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    public LogUnavailableException(String message) {
        super(message);
    }
}
