package dev.interlace.runtime.log;

import dev.interlace.runtime.stream.StreamDescriptor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The durable, ordered log every accepted event is written to before it is acknowledged.
 *
 * <p>Contract: {@link #append} completes only after the request's entries, their deduplication records and the
 * request's publish record are durable (on the SQLite implementation: committed with {@code synchronous=FULL}), and
 * a request is atomic: all of its entries are written or none. Offsets start at 1 per stream, are dense for
 * accepted events and never rewind; quarantined events have their own sequence.
 */
public interface StreamLog extends AutoCloseable {

    /**
     * Makes sure the log knows the stream and records its schema version; called at start-up for every declared
     * stream. Idempotent.
     */
    void register(StreamDescriptor stream);

    /**
     * Appends one request's entries durably.
     *
     * @return a future completed with the outcome once the entries are durable (or refused); completed
     *     exceptionally with {@link LogUnavailableException} when the log cannot write (disk full, I/O error)
     */
    CompletableFuture<AppendResult> append(AppendRequest request);

    /**
     * Reads accepted events after {@code afterOffset}, oldest first, waiting up to {@code wait} for the first one
     * when there is none yet.
     */
    List<LogEntry> read(String stream, long afterOffset, int limit, Duration wait) throws InterruptedException;

    /** Quarantined events after sequence number {@code afterSeq}, oldest first. */
    List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit);

    /** Registers a listener told whenever a stream advances. */
    void addAppendListener(AppendListener listener);

    /** The newest {@code limit} accepted events of a stream, newest first. */
    List<LogEntry> latest(String stream, int limit);

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
     * Leases {@code group}'s position in {@code stream} to {@code owner} for {@code ttl}. A lease nobody holds (never
     * leased, released or expired) is granted with a fencing token higher than any before; the unexpired holder may
     * lease again to renew (same token); anyone else is refused. Durable like an append.
     */
    Leases.LeaseResult lease(String stream, String group, String owner, Duration ttl);

    /**
     * Commits {@code offset} as processed by {@code group}, refused unless {@code token} is current, the lease has not
     * expired, the offset does not go backwards and is not past the head. Durable like an append.
     */
    Leases.CommitResult commit(String stream, String group, long token, long offset);

    /** Gives the lease up so another consumer can take it at once; false when {@code token} is not current. */
    boolean release(String stream, String group, long token);

    /** The consumer groups of {@code stream}, ordered by name. */
    List<Leases.Group> groups(String stream);

    /** Publish records matching {@code filter}, newest first, with the total number of matches. */
    PublishRecord.Page publishes(PublishRecord.Filter filter);

    /**
     * The offset of the newest stored event of {@code stream} whose idempotency key is {@code key} (its canonical
     * text), or 0 when none is stored. Not limited to the deduplication window.
     */
    long offsetOfKey(String stream, String key);

    /** Removes publish records received before {@code beforeMicros} (record retention); returns how many. */
    long trimPublishes(long beforeMicros);

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
