package dev.interlace.runtime.log;

import dev.interlace.runtime.dedup.DedupIndex;

import dev.interlace.runtime.stream.StreamDescriptor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The durable, ordered log every accepted event is written to before it is acknowledged: appending, reading and
 * trimming.
 *
 * <p>Contract: {@link #append} completes only after the request's entries, their deduplication records and the
 * request's publish record are durable (on the SQLite implementation: committed with {@code synchronous=FULL}), and
 * a request is atomic: all of its entries are written or none. Offsets start at 1 per stream, are dense for
 * accepted events and never rewind; quarantined events have their own sequence.
 *
 * <p>Consumer groups ({@link ConsumerGroups}) and publish records ({@link PublishRecords}) are separate concerns;
 * {@link StreamLog} is a log that provides all three.
 */
public interface EventLog extends AutoCloseable {

    /**
     * Makes sure the log knows the stream and records its schema version; called at start-up for every declared
     * stream. Idempotent.
     */
    void register(StreamDescriptor stream);

    /**
     * {@link #register}s {@code streams}, in their order (a start-up's: each stream's highest partition first); a log
     * whose registration waits on a cluster does the streams together, so that a node with many streams does not wait
     * its round trips once per stream.
     */
    default void registerAll(java.util.List<StreamDescriptor> streams) {
        for (StreamDescriptor stream : streams) {
            register(stream);
        }
    }

    /**
     * Appends one request's entries durably.
     *
     * @return a future completed with the outcome once the entries are durable (or refused); completed
     *     exceptionally with {@link LogUnavailableException} when the log cannot write (disk full, I/O error). It is
     *     completed on a thread of the log (a lone request's possibly on its writer), so the caller's dependent stages
     *     run there: they must be brief and must not block (building an answer is fine)
     */
    CompletableFuture<AppendResult> append(AppendRequest request);

    /**
     * Whether {@link #appendAtOnce} may be called from a thread that must not block (the HTTP transport's I/O thread)
     * and usually appends: the log only queues most requests.
     */
    default boolean appendReturnsAtOnce() {
        return false;
    }

    /**
     * {@link #append} when it only queues the request and returns at once; null when it would wait (for a sequencer
     * taking the stream over, a read): the caller then calls {@link #append} on a thread that may block. Never waits.
     */
    default CompletableFuture<AppendResult> appendAtOnce(AppendRequest request) {
        return appendReturnsAtOnce() ? append(request) : null;
    }

    /**
     * Reads accepted events after {@code afterOffset}, oldest first, waiting up to {@code wait} for the first one
     * when there is none yet: at most {@code limit} of them, and no more once their payloads reach
     * {@code maxBytes} together. The entry that reaches it is the last one returned, so a read that finds any event
     * returns at least one, however large, and holds less than {@code maxBytes} plus one event in memory.
     */
    List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes, Duration wait)
            throws InterruptedException;

    /**
     * {@link #read(String, long, int, long, Duration)} without waiting, asking {@code allowance} before each entry's
     * payload is held; the entries before the first one it refuses are returned (none when it refuses the first).
     * This default reads the page and then asks, so the refused payloads are held briefly; the SQLite log asks before
     * it fetches each payload.
     */
    default List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes,
            PayloadAllowance allowance) throws InterruptedException {
        return admitted(read(stream, afterOffset, limit, maxBytes, Duration.ZERO), LogEntry::payload, allowance);
    }

    /** {@link #read(String, long, int, long, Duration)} without a bound on the bytes read. */
    default List<LogEntry> read(String stream, long afterOffset, int limit, Duration wait)
            throws InterruptedException {
        return read(stream, afterOffset, limit, Long.MAX_VALUE, wait);
    }

    /**
     * Quarantined events after sequence number {@code afterSeq}, oldest first, each with where it was replayed to
     * ({@link QuarantineEntry#replay()}, null while it was not; see {@link QuarantineStore}): at most {@code limit},
     * ending with the one whose payload brings their payloads to {@code maxBytes}, as {@link #read} does.
     */
    List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes);

    /** {@link #readQuarantine(String, long, int, long)} asking {@code allowance} first, as {@link #read} does. */
    default List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes,
            PayloadAllowance allowance) {
        return admitted(readQuarantine(stream, afterSeq, limit, maxBytes), QuarantineEntry::payload, allowance);
    }

    /** {@link #readQuarantine(String, long, int, long)} without a bound on the bytes read. */
    default List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit) {
        return readQuarantine(stream, afterSeq, limit, Long.MAX_VALUE);
    }

    /** Registers a listener told whenever a stream advances. */
    void addAppendListener(AppendListener listener);

    /**
     * The newest {@code limit} accepted events of a stream, newest first, ending with the one whose payload brings
     * their payloads to {@code maxBytes} (at least one, if the stream has any).
     */
    List<LogEntry> latest(String stream, int limit, long maxBytes);

    /** {@link #latest(String, int, long)} asking {@code allowance} first, as {@link #read} does. */
    default List<LogEntry> latest(String stream, int limit, long maxBytes, PayloadAllowance allowance) {
        return admitted(latest(stream, limit, maxBytes), LogEntry::payload, allowance);
    }

    /** The entries before the first whose payload {@code allowance} refuses. */
    private static <T> List<T> admitted(List<T> entries, java.util.function.Function<T, byte[]> payload,
            PayloadAllowance allowance) {
        for (int i = 0; i < entries.size(); i++) {
            if (!allowance.admit(payload.apply(entries.get(i)).length)) {
                return entries.subList(0, i);
            }
        }
        return entries;
    }

    /** {@link #latest(String, int, long)} without a bound on the bytes read. */
    default List<LogEntry> latest(String stream, int limit) {
        return latest(stream, limit, Long.MAX_VALUE);
    }

    /**
     * The names of the (log) streams the log holds, registered in this process or not: at start-up, before
     * {@link #register}, what earlier runs created. This default answers the streams {@link #heads()} knows.
     */
    default java.util.Set<String> knownStreams() {
        return heads().keySet();
    }

    /** The current head, quarantine head and earliest available offset of every registered stream. */
    Map<String, StreamHead> heads();

    /**
     * Removes the accepted events of {@code stream} with offsets up to and including {@code throughOffset} (never
     * beyond the head); their keys stop deduplicating. Used by the retention sweep, which only trims what is
     * materialised and older than the deduplication window.
     *
     * @return the number of events removed
     */
    long trim(String stream, long throughOffset);

    /**
     * The lowest offset of {@code stream} whose request arrived at or after {@code epochMicros}, or {@code head + 1}
     * when every stored event is older; the retention sweep trims only below it.
     */
    long firstOffsetSince(String stream, long epochMicros);

    /**
     * The offset of the newest stored event of {@code stream} whose idempotency key is {@code key} (its canonical
     * text), or 0 when none is stored. Not limited to the deduplication window.
     */
    long offsetOfKey(String stream, String key);

    /**
     * What the deduplication index of {@code stream} holds now (for gauges; any thread), or empty when the log keeps
     * no such index for it (a stream without idempotency key, or a backend without one).
     */
    default Optional<DedupIndex.Stats> dedupStats(String stream) {
        return Optional.empty();
    }

    /** Whether the log can currently accept writes; the reason when it cannot. */
    Health health();

    @Override
    void close();

    /** Whether the log is writable. */
    record Health(boolean writable, String problem) {
        public static Health ok() {
            return new Health(true, null);
        }
    }
}
