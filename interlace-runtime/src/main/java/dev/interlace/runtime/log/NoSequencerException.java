package dev.interlace.runtime.log;

/**
 * No node holds the stream's sequencer right now (its holder died or left and the takeover is not done), or this
 * node does not hold it; nothing of the request was written, and a retry after {@link #retryAfterSeconds} may be
 * served.
 */
public final class NoSequencerException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String stream;
    private final int retryAfterSeconds;

    public NoSequencerException(String stream, String message, int retryAfterSeconds) {
        super(message);
        this.stream = stream;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public String stream() {
        return stream;
    }

    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
