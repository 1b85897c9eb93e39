package dev.interlace.runtime.log;

/**
 * The log cannot make writes durable right now (disk full, I/O error, closed, a cluster that does not answer). Either
 * nothing of the request was kept, or, when {@link #mayBeStored()}, the write was under way when it failed and may
 * still be committed (a transaction the cluster left unanswered): the caller cannot tell, and a retry of a keyed
 * request is deduplicated to it.
 */
public final class LogUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final boolean mayBeStored;

    public LogUnavailableException(String message, Throwable cause) {
        this(message, cause, false);
    }

    public LogUnavailableException(String message) {
        this(message, null, false);
    }

    private LogUnavailableException(String message, Throwable cause, boolean mayBeStored) {
        super(message, cause);
        this.mayBeStored = mayBeStored;
    }

    /** A write that failed while under way: its outcome is unknown (it may be committed later, or not at all). */
    public static LogUnavailableException outcomeUnknown(String message, Throwable cause) {
        return new LogUnavailableException(message, cause, true);
    }

    /** Whether the request may have been stored in spite of the failure (false: nothing of it was kept). */
    public boolean mayBeStored() {
        return mayBeStored;
    }
}
