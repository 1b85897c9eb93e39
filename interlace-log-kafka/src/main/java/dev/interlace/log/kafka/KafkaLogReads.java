package dev.interlace.log.kafka;

import dev.interlace.runtime.log.AppendListener;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.PayloadAllowance;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;

/**
 * The reads of the Kafka log, one path for a node's log ({@link KafkaStreamLog}) and for a query process's follower
 * ({@link KafkaLogFollower}): events and quarantined entries from their topics ({@link EventReads},
 * {@link QuarantineReads}), heads and offsets from the {@link StreamViews} that the tailer keeps, and the append
 * listeners the views wake. Each log names its views and reads once instead of forwarding every call itself.
 */
abstract sealed class KafkaLogReads implements StreamLog permits KafkaStreamLog, KafkaLogFollower {

    /** How long opening the log or registering a stream waits for the tailer to read the topics to their ends. */
    static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(60);

    /** Told when a stream advances; the log's views call them (see each log's {@code appended}). */
    final List<AppendListener> listeners = new CopyOnWriteArrayList<>();
    /** Set by the first {@link #close}: a closed log registers no stream and says so in its health. */
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * What a log reads with: its streams' views as the tailer keeps them, and the reads of their events and quarantined
     * entries from the topics.
     */
    record Reads(StreamViews views, EventReads events, QuarantineReads quarantine) {

        /** The reads of {@code views}' streams from {@code topics}, fetched with {@code readers}. */
        static Reads of(StreamViews views, Topics topics, Readers readers) {
            views.search().readWith(readers);
            TopicPages pages = new TopicPages(readers);
            return new Reads(views, new EventReads(views, topics, pages), new QuarantineReads(views, topics, pages));
        }
    }

    /** What this log reads with. */
    abstract Reads reads();

    /** Stops the log's threads and closes its clients and files; called once, by the first {@link #close}. */
    abstract void release();

    /** Releases what the log holds the first time; closing it again does nothing. */
    @Override
    public final void close() {
        if (closed.compareAndSet(false, true)) {
            release();
        }
    }

    /** Whether the log was closed. */
    final boolean closed() {
        return closed.get();
    }

    @Override
    public final List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes, Duration wait)
            throws InterruptedException {
        return reads().events().read(stream, afterOffset, limit, maxBytes, wait);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here each record's value is offered to {@code allowance} as the read comes to it, before the entry is built:
     * what a page holds unasked is the one fetch the reader's consumer has in hand (Kafka returns at most
     * {@code max.partition.fetch.bytes} of a partition at a time, or one record batch larger than that), whatever the
     * page's size.
     */
    @Override
    public final List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes,
            PayloadAllowance allowance) {
        return reads().events().read(stream, afterOffset, limit, maxBytes, allowance);
    }

    @Override
    public final List<LogEntry> latest(String stream, int limit, long maxBytes) {
        return reads().events().latest(stream, limit, maxBytes, PayloadAllowance.UNLIMITED);
    }

    @Override
    public final List<QuarantineEntry> replayedBy(String stream, String requestId, int limit) {
        return reads().quarantine().replayedBy(stream, requestId, limit);
    }

    @Override
    public final List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes) {
        return reads().quarantine().read(stream, afterSeq, limit, maxBytes, PayloadAllowance.UNLIMITED);
    }

    /** {@inheritDoc} Each value is offered to {@code allowance} as the read comes to it, as {@link #read} does. */
    @Override
    public final List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes,
            PayloadAllowance allowance) {
        return reads().quarantine().read(stream, afterSeq, limit, maxBytes, allowance);
    }

    @Override
    public final void addAppendListener(AppendListener listener) {
        listeners.add(listener);
    }

    @Override
    public final Map<String, StreamHead> heads() {
        return reads().views().heads();
    }

    @Override
    public final long firstOffsetSince(String stream, long epochMicros) {
        StreamView view = reads().views().find(stream);
        return view == null ? 1 : view.firstOffsetSince(epochMicros);
    }

    /**
     * Whether {@code stream} is still to be registered: not when it is already, and never once the log is closed.
     *
     * @throws LogUnavailableException when the log is closed
     */
    final boolean toRegister(StreamDescriptor stream) {
        if (closed.get()) {
            throw new LogUnavailableException("the log is closed");
        }
        return !reads().views().isRegistered(stream.name());
    }

    /** Gives {@code stream}'s view the stream's retention and keyedness, the first step of registering it. */
    final StreamView registering(StreamDescriptor stream) {
        long retentionMicros = stream.retentionMillis().isPresent() ? stream.retentionMillis().getAsLong() * 1_000
                : 0;
        StreamView view = reads().views().view(stream.name());
        view.registered(retentionMicros, stream.idempotencyKey() != null);
        return view;
    }

    /**
     * Has {@code tailer} follow the events and quarantine of {@code streams} from their newest records and waits until
     * it read them and {@code _state} to their ends, the last step of registering the streams: then their views
     * answer. The streams are followed together: one change of the tailer's assignment, one read of their ends.
     *
     * @return each stream's events partition, in the order of {@code streams}
     */
    final List<TopicPartition> follow(List<StreamDescriptor> streams, Topics topics, Tailer tailer) {
        List<TopicPartition> events = new java.util.ArrayList<>();
        Set<TopicPartition> followed = new java.util.LinkedHashSet<>();
        for (StreamDescriptor stream : streams) {
            events.add(topics.events(stream.name()));
            followed.add(topics.events(stream.name()));
            followed.add(topics.quarantine(stream.name()));
            reads().views().route(stream.name());
        }
        tailer.follow(followed, followed); // newest only
        List<TopicPartition> ends = new java.util.ArrayList<>(followed);
        ends.add(topics.state());
        try {
            tailer.awaitCaughtUp(topics.stableEnds(ends), CATCH_UP_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LogUnavailableException("interrupted while reading streams "
                    + streams.stream().map(StreamDescriptor::name).toList(), e);
        }
        for (StreamDescriptor stream : streams) {
            reads().views().registered(stream.name());
        }
        return events;
    }

    /**
     * The streams of {@code streams} still to be registered ({@link #toRegister}), each once, in their order, their
     * views given their retention and keyedness ({@link #registering}).
     */
    final List<StreamDescriptor> registering(List<StreamDescriptor> streams) {
        Map<String, StreamDescriptor> todo = new java.util.LinkedHashMap<>();
        for (StreamDescriptor stream : streams) {
            if (!todo.containsKey(stream.name()) && toRegister(stream)) {
                todo.put(stream.name(), stream);
                registering(stream);
            }
        }
        return List.copyOf(todo.values());
    }
}
