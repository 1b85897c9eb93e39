package dev.interlace.runtime.log;

import java.util.List;

/**
 * What a log has stored of one stream, as the {@link AppendDecision} asks it: the committed heads, the retention that
 * bounds the deduplication window, the key lookup and the replay state of quarantined entries. Each log backend
 * implements it over its own storage (the SQLite writer over its tables, the Kafka sequencer over its view of the
 * topics); the decision itself is the same for every backend.
 *
 * @param <E> what the backend's lookups may throw (SQLite's {@code SQLException}; a log that only throws unchecked
 *     exceptions says {@code RuntimeException})
 */
public interface StoredStream<E extends Exception> {

    /** The stream's name (the {@link Watermarks} are by name). */
    String name();

    /** The offset of the newest committed event, 0 for none. */
    long head();

    /** The sequence number of the newest committed quarantined entry, 0 for none. */
    long quarantineHead();

    /** How long the stream keeps its events (and so its deduplication window), 0 for ever. */
    long retentionMicros();

    /**
     * Before the keys of {@code requests} are looked up one by one: a backend that confirms keys remotely reads them
     * all here, in as few reads as it can. Nothing to do for one that looks each key up locally.
     *
     * @param notBefore the window's start: only events that arrived strictly after it deduplicate
     */
    default void lookingUp(List<AppendRequest> requests, long notBefore) throws E {
    }

    /**
     * The offset of the committed event that carries {@code key} and arrived strictly after {@code notBefore}, or null
     * when there is none (the backend's index gives candidates by {@code hash}; the key and arrival stored with the
     * event confirm them).
     */
    Long offsetOfKey(String key, long hash, long notBefore) throws E;

    /** What the stream's quarantine holds at {@code seq}: null when it has no such entry. */
    Quarantined quarantined(long seq) throws E;

    /**
     * A quarantined entry's replay state.
     *
     * @param replayed whether it was replayed before
     * @param offset the offset it was replayed to (an original's, for a duplicate); 0 when not replayed
     */
    record Quarantined(boolean replayed, long offset) {
        /** An entry not replayed yet. */
        public static final Quarantined WAITING = new Quarantined(false, 0);
    }
}
