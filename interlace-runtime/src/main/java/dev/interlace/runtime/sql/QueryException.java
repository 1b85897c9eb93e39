package dev.interlace.runtime.sql;

/** The warehouse refused or failed the query; the message is the database's own. */
public final class QueryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final boolean timedOut;

    public QueryException(String message, boolean timedOut, Throwable cause) {
        super(message, cause);
        this.timedOut = timedOut;
    }

    /** Whether the query was cancelled because it ran past its time limit. */
    public boolean timedOut() {
        return timedOut;
    }
}
