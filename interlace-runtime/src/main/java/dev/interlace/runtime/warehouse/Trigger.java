package dev.interlace.runtime.warehouse;

import java.util.Optional;

/**
 * What started a model run: a flush that moved a stream's watermark to {@code offset}, a manual request, or start-up
 * (models whose inputs moved while the server was down).
 *
 * <p>The wire form, in JSON answers, the {@code trigger} filter and the run history, is {@code stream:<name>:<offset>},
 * {@code manual} or {@code startup}; {@link #toString()} writes it and {@link #parse} reads it back.
 *
 * @param stream the flushed stream; null for manual and start-up runs
 * @param offset the watermark the flush moved the stream to; 0 for manual and start-up runs
 */
public record Trigger(Kind kind, String stream, long offset) {

    /** The three sources of a run. */
    public enum Kind { STREAM, MANUAL, STARTUP }

    public static final Trigger MANUAL = new Trigger(Kind.MANUAL, null, 0);
    public static final Trigger STARTUP = new Trigger(Kind.STARTUP, null, 0);

    private static final String STREAM_PREFIX = "stream:";

    /** The trigger of the flush that moved {@code stream}'s watermark to {@code offset}. */
    public static Trigger flushed(String stream, long offset) {
        return new Trigger(Kind.STREAM, stream, offset);
    }

    /** Reads a wire form; empty when {@code text} is not one. */
    public static Optional<Trigger> parse(String text) {
        switch (text) {
            case "manual":
                return Optional.of(MANUAL);
            case "startup":
                return Optional.of(STARTUP);
            default:
                break;
        }
        int colon = text.lastIndexOf(':');
        if (!text.startsWith(STREAM_PREFIX) || colon <= STREAM_PREFIX.length()) {
            return Optional.empty();
        }
        String stream = text.substring(STREAM_PREFIX.length(), colon);
        try {
            long offset = Long.parseLong(text.substring(colon + 1));
            return offset < 0 ? Optional.empty() : Optional.of(flushed(stream, offset));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return switch (kind) {
            case STREAM -> STREAM_PREFIX + stream + ":" + offset;
            case MANUAL -> "manual";
            case STARTUP -> "startup";
        };
    }
}
