package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.KeyHash;
import dev.interlace.runtime.log.AppendDecision;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.log.ReplayRequest;
import dev.interlace.runtime.stream.StreamPartitions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The transactions of a {@link Sequencer}, on its thread: each group of queued appends is decided by the
 * {@link AppendDecision} (the one every log asks) and is one Kafka transaction (events, quarantined events and
 * publish records), committed with {@code acks=all}; futures complete only after the commit. A request settled by
 * what is already committed (every entry a duplicate of an event stored before the group) needs no transaction: its
 * publish record goes through the node's plain producer and it is answered once that record is acknowledged. A
 * quarantine replay is a transaction of its own: its events appended as one request (the same decision and records
 * as a publish) and a replay mark per entry on {@code _state}, so the marks commit exactly when the events do; the
 * marks it applies before deciding the next task make a second replay of an entry {@code already_replayed}. Lease,
 * commit, release and trim decisions are transactions of their own on {@code _state}, through the same producer, so
 * they are fenced the same way.
 */
final class SequencerWrites {

    private static final Logger LOG = Logger.getLogger(Sequencer.class.getName());

    private final Sequencer sequencer;
    private final StreamView view;
    private final SequencerContext context;
    private final SequencerKeys keys;
    private final AppendDecision decision;
    private KafkaProducer<byte[], byte[]> producer;

    SequencerWrites(Sequencer sequencer, StreamView view, SequencerContext context, SequencerKeys keys) {
        this.sequencer = sequencer;
        this.view = view;
        this.context = context;
        this.keys = keys;
        this.decision = new AppendDecision(context.settings(), context.watermarks());
    }

    /**
     * A new transactional producer of the stream's {@code transactional.id}, for a takeover (which fences the
     * previous holder with it).
     */
    KafkaProducer<byte[], byte[]> openProducer() {
        String transactionalId = context.topics().transactionalId(view.name);
        Properties properties = Topics.durableProducer(context.bootstrap(), transactionalId);
        context.fencing().configure(properties, transactionalId);
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        properties.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "30000");
        properties.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(16 * 1024 * 1024));
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        producer = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
        return producer;
    }

    void closeProducer() {
        if (producer != null) {
            try {
                producer.close(Duration.ZERO);
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "closing the producer of " + view.name + " failed", e);
            }
            producer = null;
        }
    }

    /** Runs a batch of tasks in order, the appends between two other tasks as one group. */
    void run(List<SequencerQueue.Task> batch) {
        List<SequencerQueue.AppendTask> appends = new ArrayList<>();
        for (SequencerQueue.Task task : batch) {
            if (task instanceof SequencerQueue.AppendTask append) {
                appends.add(append);
            } else {
                if (!appends.isEmpty()) {
                    appendGroup(appends);
                    appends = new ArrayList<>();
                }
                if (task instanceof SequencerQueue.ReplayTask replay) {
                    replay(replay);
                } else {
                    control((SequencerQueue.ControlTask<?>) task);
                }
            }
        }
        if (!appends.isEmpty()) {
            appendGroup(appends);
        }
    }

    /** A record sent in the group's transaction and what to apply to the view once it is committed. */
    private record Sent(Future<RecordMetadata> metadata, Kind kind, long position, long lastOfRequest,
            long atMicros, String key, Published publish, Codec.ReplayMark mark) {}

    /** A publish record sent under {@code key}, as its JSON on the topic. */
    private record Published(String key, PublishRecord record, byte[] json) {}

    private enum Kind { EVENT, QUARANTINED, PUBLISH, REPLAY_MARK, KEY_BLOCK }

    /** Sends the block of the keys {@code sent} accepts, in its transaction (nothing when it accepts none). */
    private void sendKeyBlock(List<Sent> sent, long coversAfter) {
        if (!keys.indexed()) {
            return;
        }
        long[] pairs = new long[16];
        int count = 0;
        long newestAt = 0;
        for (Sent record : sent) {
            if (record.kind() == Kind.EVENT && record.key() != null) {
                if (2 * count + 2 > pairs.length) {
                    pairs = java.util.Arrays.copyOf(pairs, pairs.length * 2);
                }
                pairs[2 * count] = record.position();
                pairs[2 * count + 1] = KeyHash.of(record.key());
                count++;
                newestAt = Math.max(newestAt, record.atMicros());
            }
        }
        ProducerRecord<byte[], byte[]> block = keys.blocks().record(pairs, count, newestAt, coversAfter);
        if (block != null) {
            sent.add(new Sent(producer.send(block), Kind.KEY_BLOCK, 0, 0, 0, null, null, null));
        }
    }

    /**
     * Decides a group of queued appends ({@link AppendDecision}) and commits those that write anything in one
     * transaction; their futures complete after the commit, off the sequencer's thread. A request settled by what
     * is already committed is answered without the transaction ({@link #answerSettled}).
     */
    private void appendGroup(List<SequencerQueue.AppendTask> tasks) {
        long now = sequencer.micros();
        List<AppendResult> decided;
        try {
            decided = decision.decide(tasks.stream().map(SequencerQueue.AppendTask::request).toList(),
                    new AppendDecision.Tentative(keys), keys, now);
        } catch (RuntimeException e) {
            SequencerQueue.fail(tasks, e instanceof LogUnavailableException unavailable ? unavailable
                    : new LogUnavailableException("cannot read the stream's keys: " + e.getMessage(), e));
            return;
        }
        List<SequencerQueue.AppendTask> transacted = new ArrayList<>();
        List<AppendResult> results = new ArrayList<>();
        for (int i = 0; i < tasks.size(); i++) {
            SequencerQueue.AppendTask task = tasks.get(i);
            AppendResult result = decided.get(i);
            if (result instanceof AppendResult.Committed committed && settled(committed)) {
                answerSettled(task, committed);
                continue;
            }
            transacted.add(task);
            results.add(result);
        }
        if (transacted.isEmpty()) {
            return;
        }
        List<Sent> sent = new ArrayList<>();
        try {
            begin();
            for (int i = 0; i < transacted.size(); i++) {
                if (results.get(i) instanceof AppendResult.Committed committed) {
                    send(transacted.get(i).request(), committed, sent);
                }
            }
            sendKeyBlock(sent, view.headOffset());
            commit(sent.stream().map(Sent::metadata).toList());
        } catch (KafkaException e) {
            sequencer.failed(transacted, e);
            return;
        }
        boolean advanced = applyCommitted(sent);
        Runnable acknowledge = () -> {
            for (int i = 0; i < transacted.size(); i++) {
                transacted.get(i).future().complete(results.get(i));
            }
        };
        acknowledge(acknowledge);
        if (advanced) {
            context.appended().accept(view.name);
        }
    }

    private void acknowledge(Runnable acknowledge) {
        try {
            context.acknowledger().execute(acknowledge);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            acknowledge.run(); // the log is closing
        }
    }

    /**
     * Whether a request is settled by what is already committed: every entry a duplicate of an event stored before
     * this group. Its answer depends on nothing this group writes, so it needs no transaction.
     */
    private boolean settled(AppendResult.Committed committed) {
        if (committed.entries().isEmpty()) {
            return false;
        }
        long committedHead = view.headOffset();
        for (AppendResult.EntryResult fate : committed.entries()) {
            if (fate.status() != AppendResult.Status.DUPLICATE || fate.offset() > committedHead) {
                return false;
            }
        }
        return true;
    }

    /** Answers a settled request without a transaction ({@link SettledRetries#answer}). */
    private void answerSettled(SequencerQueue.AppendTask task, AppendResult.Committed committed) {
        SettledRetries.answer(context, view, task.request(), committed, task.future(), this::acknowledge);
    }

    /** Applies a committed transaction's records to the view; whether the stream's head moved. */
    private boolean applyCommitted(List<Sent> sent) {
        boolean advanced = false;
        List<Sent> keyed = new ArrayList<>();
        try {
            for (Sent record : sent) {
                long kafkaOffset = record.metadata().get().offset();
                switch (record.kind()) {
                    case EVENT -> {
                        view.applyEvent(record.position(), kafkaOffset, record.atMicros(), record.lastOfRequest());
                        if (record.key() != null) {
                            keyed.add(record);
                        }
                        advanced = true;
                    }
                    case QUARANTINED -> {
                        view.applyQuarantine(record.position(), kafkaOffset);
                        advanced = true;
                    }
                    case PUBLISH -> context.publishes().apply(record.publish().key(), record.publish().record(),
                            record.publish().json(), kafkaOffset, true);
                    case REPLAY_MARK -> context.views().apply(record.mark().stream()).applyReplay(record.mark());
                    case KEY_BLOCK -> keys.blocks().committed(kafkaOffset);
                }
            }
            if (advanced) {
                long head = view.headOffset();
                keys.changeIndex(index -> {
                    for (Sent record : keyed) {
                        index.add(KeyHash.of(record.key()), record.position());
                    }
                    index.committed(head);
                });
            }
        } catch (InterruptedException | ExecutionException e) {
            // Cannot happen after a successful commit: every send completed before it.
            throw new IllegalStateException("a committed send has no metadata", e);
        }
        return advanced;
    }

    /**
     * Runs one replay: entries marked replayed (before, or earlier in this request) and entries the quarantine does
     * not hold are only reported; the others are decided as one publish request and, unless it is refused or a dry
     * run, appended and marked replayed (with their offsets, the original's for a duplicate) in one transaction.
     * Into a partition of a partitioned stream, the entries are partition 0's (which keeps the quarantine): decided
     * on this node's view of it, and marked there. Only this partition's sequencer marks the entries whose events
     * hash here, and a takeover reads {@code _state} to its end first, so its view has every mark of theirs.
     */
    private void replay(SequencerQueue.ReplayTask task) {
        ReplayRequest request = task.request();
        long now = sequencer.micros();
        AppendDecision.Replay decided;
        try {
            decided = request.elsewhere() ? decision.replay(request, new AppendDecision.Tentative(keys),
                    keys.quarantineOf(context.views().apply(request.stream())), keys, now)
                    : decision.replay(request, new AppendDecision.Tentative(keys), keys, now);
        } catch (LogUnavailableException e) {
            task.future().completeExceptionally(e);
            return;
        }
        if (decided.append() == null || request.dryRun()) {
            task.future().complete(decided.result());
            return;
        }
        AppendRequest append = decided.append();
        AppendResult.Committed committed = decided.appended();
        List<Codec.ReplayMark> marks = new ArrayList<>();
        for (int j = 0; j < decided.seqs().size(); j++) {
            marks.add(new Codec.ReplayMark(request.stream(), decided.seqs().get(j),
                    committed.entries().get(j).offset(), request.requestId(), now,
                    StreamPartitions.partitionOf(view.name)));
        }
        List<Sent> sent = new ArrayList<>();
        try {
            begin();
            send(append, committed, sent);
            for (Codec.ReplayMark mark : marks) {
                sent.add(new Sent(producer.send(new ProducerRecord<>(context.topics().state().topic(), 0,
                        Codec.text(Codec.replayKey(mark.stream(), mark.seq())), Codec.json(mark))), Kind.REPLAY_MARK,
                        0, 0, 0, null, null, mark));
            }
            sendKeyBlock(sent, view.headOffset());
            commit(sent.stream().map(Sent::metadata).toList());
        } catch (KafkaException e) {
            sequencer.failed(List.of(task), e);
            return;
        }
        boolean advanced = applyCommitted(sent);
        task.future().complete(decided.result());
        if (advanced) {
            context.appended().accept(view.name);
        }
    }

    private void send(AppendRequest request, AppendResult.Committed committed, List<Sent> sent) {
        long lastOfRequest = 0;
        for (AppendResult.EntryResult fate : committed.entries()) {
            if (fate.status() == AppendResult.Status.ACCEPTED) {
                lastOfRequest = fate.offset();
            }
        }
        for (int i = 0; i < committed.entries().size(); i++) {
            AppendResult.EntryResult fate = committed.entries().get(i);
            AppendRequest.Entry entry = request.entries().get(i);
            if (fate.status() == AppendResult.Status.ACCEPTED) {
                AppendRequest.Event event = (AppendRequest.Event) entry;
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(
                        context.topics().events(view.name).topic(), 0, null, Codec.text(event.idempotencyKey()),
                        event.payload(), Codec.eventHeaders(fate.offset(), lastOfRequest, request.requestId(),
                                request.receivedAtMicros(), request.schemaVersion()));
                sent.add(new Sent(producer.send(record), Kind.EVENT, fate.offset(), lastOfRequest,
                        request.receivedAtMicros(), event.idempotencyKey(), null, null));
            } else if (fate.status() == AppendResult.Status.QUARANTINED) {
                AppendRequest.Quarantined quarantined = (AppendRequest.Quarantined) entry;
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(
                        context.topics().quarantine(view.name).topic(), 0, null, null, quarantined.payload(),
                        Codec.quarantineHeaders(fate.offset(), request.requestId(), request.receivedAtMicros(),
                                request.schemaVersion(), quarantined.errors()));
                sent.add(new Sent(producer.send(record), Kind.QUARANTINED, fate.offset(), 0, 0, null, null, null));
            }
        }
        if (context.settings().publishRecords()) {
            PublishRecord record = PublishRecord.of(view.name, request, committed);
            Published publish = new Published(Codec.publishKey(view.name), record, Codec.json(record));
            sent.add(new Sent(producer.send(new ProducerRecord<>(context.topics().publishes().topic(), 0,
                    Codec.text(publish.key()), publish.json())), Kind.PUBLISH, 0, 0, 0, null, publish, null));
        }
    }

    /**
     * Decides and commits a control task. A transaction that failed with its outcome unknown (a broker's transient
     * refusal, a timeout) is resolved by a resync; the task then has its answer if its records landed, or is decided
     * once more on what was committed, so that a lease, a commit or a release is not refused for the cluster's
     * hiccup. A second failure is the caller's {@code log_unavailable}.
     */
    private <T> void control(SequencerQueue.ControlTask<T> task) {
        control(task, true);
    }

    private <T> void control(SequencerQueue.ControlTask<T> task, boolean mayRetry) {
        ControlDecision<T> decision;
        try {
            decision = task.decide().apply(sequencer.micros());
        } catch (RuntimeException e) {
            task.future().completeExceptionally(e);
            return;
        }
        long position = -1;
        if (!decision.writes().isEmpty()) {
            try {
                begin();
                List<Future<RecordMetadata>> sends = new ArrayList<>();
                for (ProducerRecord<byte[], byte[]> write : decision.writes()) {
                    sends.add(producer.send(write));
                }
                commit(sends);
                position = sends.get(0).get().offset();
            } catch (ProducerFencedException | InvalidProducerEpochException | AuthorizationException
                    | UnsupportedVersionException fenced) {
                sequencer.failed(List.of(task), fenced);
                return;
            } catch (KafkaException e) {
                sequencer.failAndResync(List.of(), e);
                if (sequencer.state() == Sequencer.State.ACTIVE && decision.landed().getAsBoolean()) {
                    task.future().complete(decision.answer());
                } else if (sequencer.state() == Sequencer.State.ACTIVE && mayRetry) {
                    control(task, false);
                } else {
                    task.future().completeExceptionally(LogUnavailableException.outcomeUnknown(
                            "the Kafka cluster did not commit: " + e.getMessage(), e));
                }
                return;
            } catch (InterruptedException | ExecutionException e) {
                throw new IllegalStateException("a committed send has no metadata", e);
            }
        }
        decision.afterCommit().accept(position);
        task.future().complete(decision.answer());
    }

    private void begin() {
        context.fencing().begin(producer);
    }

    /** Commits the group's writes as the fencing strategy does (a transaction's commit). */
    private void commit(List<Future<RecordMetadata>> sends) {
        context.fencing().commit(producer, sends);
    }
}
