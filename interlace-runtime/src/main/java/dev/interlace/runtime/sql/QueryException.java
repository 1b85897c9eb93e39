package dev.interlace.runtime.sql;

/** The warehouse refused or failed the query; {@link #reason()} says why, the message says it for people. */
public final class QueryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why a query did not answer; the HTTP layer maps each to one status. */
    public enum Reason {
        /** Not exactly one statement, or not one DuckDB's parser accepts. */
        INVALID_SQL,
        /** One statement, but not a query: it could change something. */
        NOT_READ_ONLY,
        /** The database refused or failed the query; the message is its own. */
        FAILED,
        /** The query ran past its time limit and was cancelled. */
        TIMED_OUT,
        /** As many queries as allowed are running already; retrying later may succeed. */
        BUSY,
        /** The server is shutting down: the query was cancelled, or not started; retry against the restarted one. */
        SHUTTING_DOWN,
        /** Its rows did not fit in what the caller may hold now ({@link RowAllowance}); retrying later may succeed. */
        OVERLOADED
    }

    private final Reason reason;

    public QueryException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** A failed query ({@link Reason#FAILED}), or one cancelled at its time limit ({@link Reason#TIMED_OUT}). */
    public QueryException(String message, boolean timedOut, Throwable cause) {
        this(timedOut ? Reason.TIMED_OUT : Reason.FAILED, message, cause);
    }

    public Reason reason() {
        return reason;
    }

    /** Whether the query was cancelled because it ran past its time limit. */
    public boolean timedOut() {
        return reason == Reason.TIMED_OUT;
    }
}
