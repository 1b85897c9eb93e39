package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.KeyHash;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.NoSequencerException;
import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.log.ReplayRequest;
import dev.interlace.runtime.log.ReplayResult;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.ops.FatalErrors;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The one writer of one stream while this node holds it: a thread ({@code interlace-kafka-sequencer-<stream>}) with
 * a queue in front, and a transactional producer whose {@code transactional.id} is the stream's on every node.
 *
 * <p>Taking a stream over calls {@code initTransactions}, which bumps the producer epoch: any earlier holder's
 * producer is fenced (its open transaction aborted, its next commit refused), so a holder that was paused past its
 * ownership can never acknowledge again. Then it reads the stream's topics up to their stable end, so its view (the
 * head, the deduplication window, the consumer groups) is exactly what was committed; only then does it serve.
 *
 * <p>It decides everything a publish answer depends on as the SQLite writer does: dense offsets, duplicates (within
 * the request, the group and the window), backpressure from the watermarks. The window's keys are in a
 * {@link DedupIndex} that only the holder keeps, opened at the takeover from the segment files it has and the
 * stream's key blocks after them ({@link KeyBlockTopic}); each transaction that accepts keyed events writes their
 * block. Every candidate the index gives is confirmed by the key and arrival stored with the event: from this node's
 * copy of them ({@link LocalKeys}, one local read) or, for an offset the copy does not cover yet, read back from the
 * topic (all such candidates of a group in as few reads as they allow), so the index never decides alone. Each
 * group of queued appends is one Kafka transaction (events, quarantined events and publish records), committed with
 * {@code acks=all}; futures
 * complete only after the commit. A request settled by what is already committed (every entry a duplicate of an
 * event stored before the group) needs no transaction: its publish record goes through the node's plain producer and
 * it is answered once that record is acknowledged. A quarantine replay is a transaction of its own: its events appended as one
 * request (the same decisions and records as a publish) and a replay mark per entry on {@code _state}, so the marks
 * commit exactly when the events do; the marks it applies before deciding the next task make a second replay of an
 * entry {@code already_replayed}. Lease, commit, release and trim decisions are transactions of their own on
 * {@code _state}, through the same producer, so they are fenced the same way.
 */
final class Sequencer {

    private static final Logger LOG = Logger.getLogger(Sequencer.class.getName());
    private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(60);
    private static final int RETRY_AFTER_SECONDS = 1;
    /** Candidates at most this many offsets apart are confirmed in one read of the events between them. */
    private static final long CONFIRM_RUN_GAP = 256;

    enum State { TAKING_OVER, ACTIVE, STOPPED }

    /**
     * What the log gives each of its sequencers.
     *
     * @param acknowledger completes the appends' futures after their commit, off the sequencer's thread: the callers'
     *     dependent stages (building the answers) run there, not before the next transaction
     * @param fencing {@link Fencing#TRANSACTIONAL} always, except in the negative control of the fencing tests
     * @param plainProducer the node's producer outside any transaction, for the publish records of settled retries
     * @param guard says whether this node may take a stream over now
     */
    record Context(String bootstrap, String nodeUrl, Topics topics, Tailer tailer, PublishStore publishes,
            LogSettings settings, Watermarks watermarks, Clock clock, Runnable stateChanged,
            java.util.function.Consumer<String> appended, java.util.concurrent.Executor acknowledger,
            Fencing fencing, Readers readers, SequencerIndexes indexes,
            java.util.function.Supplier<KafkaProducer<byte[], byte[]>> plainProducer, TakeoverGuard guard) {}

    /**
     * Whether this node may take a stream over now. A takeover fences whoever holds the stream, so only the node the
     * sequencer group assigns the stream to may take it; a node that was cut off from the cluster still believes it
     * holds its streams until it hears from the group again, and its takeover would fence the rightful holder.
     */
    @FunctionalInterface
    interface TakeoverGuard {
        /** Takes over whenever asked: for tests of the sequencer alone, outside any group. */
        TakeoverGuard NONE = (stream, confirm) -> null;

        /**
         * Why this node must not take {@code stream} over now (it then waits and asks again), or null when it may;
         * with {@code confirm}, the group's coordinator is asked whether the group assigns it here, rather than
         * trusting the assignment this node last heard of.
         */
        String refusal(String stream, boolean confirm);
    }

    /**
     * A decision on {@code _state}: the answer, the records that make it durable, what to apply once committed (given
     * the Kafka offset of the first record written), and how to tell, after a transaction whose outcome is unknown
     * and a resync, whether the records landed after all.
     */
    record Decision<T>(T answer, List<ProducerRecord<byte[], byte[]>> writes,
            java.util.function.LongConsumer afterCommit, java.util.function.BooleanSupplier landed) {
        Decision(T answer, List<ProducerRecord<byte[], byte[]>> writes, java.util.function.LongConsumer afterCommit) {
            this(answer, writes, afterCommit, () -> false);
        }

        static <T> Decision<T> answerOnly(T answer) {
            return new Decision<>(answer, List.of(), position -> { });
        }
    }

    private sealed interface Task permits AppendTask, ReplayTask, ControlTask {}

    private record AppendTask(AppendRequest request, CompletableFuture<AppendResult> future) implements Task {}

    private record ReplayTask(ReplayRequest request, CompletableFuture<ReplayResult> future) implements Task {}

    private record ControlTask<T>(LongFunction<Decision<T>> decide, CompletableFuture<T> future) implements Task {}

    private final StreamView view;
    private final Context context;
    private final BlockingQueue<Task> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile State state = State.TAKING_OVER;
    /** How long a sequencer that failed unexpectedly waits before it takes its stream over again, at first. */
    private static final long FIRST_RESTART_MILLIS = 1_000;
    private static final long MAX_RESTART_MILLIS = 30_000;
    /** A sequencer that served this long since its last failure starts again from the first wait. */
    private static final long CALM_NANOS = TimeUnit.MINUTES.toNanos(10);
    private volatile String problem;
    private volatile Throwable died;
    /**
     * How long the cluster may leave a group's transaction or a takeover's {@code initTransactions} unanswered before
     * the sequencer says it cannot write: a commit takes milliseconds, a broker's failover a few seconds.
     */
    static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** When the cluster was last asked something the sequencer waits on (a commit, an epoch); 0 while not waiting. */
    private volatile long waitingSince;
    /** When another producer of the stream's transactional id fenced this sequencer; 0 while it was not. */
    private volatile long fencedAt;
    /** The tasks of the group in hand, answered by {@link #checkStall} when the cluster does not answer. */
    private volatile List<Task> inHand = List.of();
    private KafkaProducer<byte[], byte[]> producer;
    private final KeyBlockTopic keyBlocks;
    /** The stream's deduplication index while this sequencer serves a keyed stream; its thread's alone. */
    private volatile DedupIndex dedup;
    /**
     * Whether the next takeover must be confirmed by the group's coordinator (see {@link TakeoverGuard}): every one
     * but the first of a sequencer started for an assignment the group just made. Its thread's alone.
     */
    private boolean confirmTakeover;

    /** The sequencer of a stream the sequencer group just assigned to this node. */
    Sequencer(StreamView view, Context context) {
        this(view, context, false);
    }

    /**
     * A sequencer of {@code view}'s stream; with {@code confirmTakeover}, it takes the stream over only once the
     * group's coordinator says that the group assigns the stream to this node.
     */
    Sequencer(StreamView view, Context context, boolean confirmTakeover) {
        this.view = view;
        this.context = context;
        this.confirmTakeover = confirmTakeover;
        this.keyBlocks = new KeyBlockTopic(view, context.topics(), context.readers());
        this.thread = new Thread(this::run, "interlace-kafka-sequencer-" + view.name);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    State state() {
        return state;
    }

    /** Why the sequencer cannot write, or null. */
    String problem() {
        return problem;
    }

    /** The error that ended the sequencer's thread, or null. */
    Throwable died() {
        return died;
    }

    CompletableFuture<AppendResult> append(AppendRequest request) {
        CompletableFuture<AppendResult> future = new CompletableFuture<>();
        submit(new AppendTask(request, future));
        return future;
    }

    CompletableFuture<ReplayResult> replay(ReplayRequest request) {
        CompletableFuture<ReplayResult> future = new CompletableFuture<>();
        submit(new ReplayTask(request, future));
        return future;
    }

    <T> CompletableFuture<T> control(LongFunction<Decision<T>> decide) {
        CompletableFuture<T> future = new CompletableFuture<>();
        submit(new ControlTask<>(decide, future));
        return future;
    }

    private void submit(Task task) {
        String stall = stall();
        if (stall != null) {
            future(task).completeExceptionally(new LogUnavailableException(stall));
            return;
        }
        queue.add(task);
        if (state == State.STOPPED) {
            failQueued();
        }
    }

    /** How long ago another holder fenced this sequencer (which then stopped), or -1 when none did. */
    long fencedNanosAgo() {
        long at = fencedAt;
        return at == 0 ? -1 : System.nanoTime() - at;
    }

    /**
     * Why this sequencer cannot write now because the cluster has not answered it for {@link #STALL_NANOS} (a
     * network partition between this node and the brokers, brokers that stopped), or null.
     */
    String stall() {
        long since = waitingSince;
        long waited = since == 0 ? 0 : System.nanoTime() - since;
        if (waited < STALL_NANOS) {
            return null;
        }
        return "the Kafka cluster has not answered this node's sequencer of stream " + view.name + " for "
                + TimeUnit.NANOSECONDS.toSeconds(waited) + " s (cut off from the brokers, or the brokers stopped);"
                + " nothing waits on it: retry shortly, a retried publish is deduplicated";
    }

    /**
     * Called twice a second off the sequencer's thread: while the cluster does not answer, the requests of the group
     * in hand and those queued behind it are answered {@code 503 log_unavailable} at once rather than when the
     * client's or the cluster's timeout ends (their events may still commit: a retry is deduplicated).
     */
    void checkStall() {
        String stall = stall();
        if (stall == null) {
            return;
        }
        LogUnavailableException unavailable = new LogUnavailableException(stall);
        for (Task task : inHand) {
            future(task).completeExceptionally(unavailable);
        }
        Task task;
        while ((task = queue.poll()) != null) {
            future(task).completeExceptionally(unavailable);
        }
    }

    /** Stops serving: fails what is queued, finishes the transaction under way, closes the producer. */
    void stop() {
        state = State.STOPPED;
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        failQueued();
        context.stateChanged().run();
    }

    private void run() {
        long restartMillis = FIRST_RESTART_MILLIS;
        long lastFailure = System.nanoTime() - CALM_NANOS;
        try {
            while (state != State.STOPPED) {
                try {
                    serve();
                } catch (ProducerFencedException | InvalidProducerEpochException e) {
                    problem = "fenced: " + e.getMessage();
                    fencedAt = System.nanoTime();
                    LOG.log(Level.WARNING, "the sequencer of stream " + view.name + " was fenced", e);
                    return;
                } catch (RuntimeException e) {
                    // Not the cluster (those failures are retried where they happen): a fault of this process. The
                    // sequencer does not stay dead while this node holds the stream: it takes the stream over again,
                    // which fences its own open transaction and rereads what was committed.
                    if (System.nanoTime() - lastFailure >= CALM_NANOS) {
                        restartMillis = FIRST_RESTART_MILLIS;
                    }
                    lastFailure = System.nanoTime();
                    restartMillis = restartAfterFailure(e, restartMillis);
                }
            }
        } catch (InterruptedException e) {
            // stopped while taking over or waiting to restart
        } catch (Error e) {
            // Out of memory ends the process; any other error ends this thread: said on problem and died (the log's
            // watchdog reports it, and the process exits so that the stream is sequenced again; see ComponentHealth).
            FatalErrors.exitIfFatal(e);
            problem = "the sequencer of stream " + view.name + " died: " + e;
            died = e;
            LOG.log(Level.SEVERE, problem, e);
        } finally {
            state = State.STOPPED;
            failQueued();
            closeProducer();
            closeIndex();
            context.stateChanged().run();
        }
    }

    /** Takes the stream over, then serves queued tasks until the sequencer stops. */
    private void serve() throws InterruptedException {
        takeOverUntilServing();
        while (state == State.ACTIVE) {
            Task first = queue.poll(200, TimeUnit.MILLISECONDS);
            if (first == null) {
                continue;
            }
            List<Task> batch = new ArrayList<>();
            batch.add(first);
            queue.drainTo(batch, context.settings().maxGroupRequests() - 1);
            inHand = batch;
            waitingSince = System.nanoTime();
            try {
                process(batch);
            } catch (RuntimeException e) {
                // Whatever the batch did not answer is answered now (a retry is deduplicated).
                fail(batch, new LogUnavailableException("the sequencer of stream " + view.name + " failed: " + e,
                        e));
                throw e;
            } finally {
                waitingSince = 0;
                inHand = List.of();
            }
        }
    }

    /**
     * After an unexpected failure: says why on {@link #problem} (the log's health reports it), waits, and sets the
     * sequencer to take the stream over again; returns the next wait, doubled up to {@link #MAX_RESTART_MILLIS}.
     */
    private long restartAfterFailure(RuntimeException failure, long waitMillis) throws InterruptedException {
        if (state == State.STOPPED) {
            return waitMillis;
        }
        // The state first, then the problem (and the reverse when it serves again): whoever sees the problem sees
        // that the sequencer does not serve.
        state = State.TAKING_OVER;
        problem = "the sequencer of stream " + view.name + " failed (" + failure + "); it takes the stream over"
                + " again in " + waitMillis + " ms";
        LOG.log(Level.SEVERE, problem, failure);
        failQueuedAsUnavailable();
        closeProducer();
        context.stateChanged().run();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        while (state != State.STOPPED && System.nanoTime() < until) {
            Thread.sleep(50);
        }
        if (state != State.STOPPED) {
            state = State.TAKING_OVER;
        }
        return Math.min(MAX_RESTART_MILLIS, waitMillis * 2);
    }

    private void closeIndex() {
        if (dedup != null) {
            context.indexes().closed(view, dedup);
            dedup = null;
        }
    }

    /** Fences the previous holder and reads the stream up to its stable end. */
    private void takeOver() throws InterruptedException {
        long started = System.nanoTime();
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, context.bootstrap());
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, context.topics().transactionalId(view.name));
        context.fencing().configure(properties, context.topics().transactionalId(view.name));
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        properties.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "30000");
        properties.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(16 * 1024 * 1024));
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        producer = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
        waitingSince = System.nanoTime();
        try {
            context.fencing().fence(producer);
        } finally {
            waitingSince = 0;
        }
        context.tailer().awaitCaughtUp(context.topics().stableEnds(List.of(context.topics().events(view.name),
                context.topics().quarantine(view.name), context.topics().state())), CATCH_UP_TIMEOUT);
        if (state == State.STOPPED) {
            return;
        }
        closeIndex();
        if (view.keyed()) {
            dedup = context.indexes().open(view, keyBlocks);
        }
        problem = null;
        state = State.ACTIVE;
        LOG.info("this node (" + context.nodeUrl() + ") sequences stream " + view.name + " from offset "
                + (view.headOffset() + 1) + "; taking over took "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms");
        context.stateChanged().run();
    }

    private void process(List<Task> batch) {
        List<AppendTask> appends = new ArrayList<>();
        for (Task task : batch) {
            if (task instanceof AppendTask append) {
                appends.add(append);
            } else {
                if (!appends.isEmpty()) {
                    appendGroup(appends);
                    appends = new ArrayList<>();
                }
                if (task instanceof ReplayTask replay) {
                    replay(replay);
                } else {
                    control((ControlTask<?>) task);
                }
            }
        }
        if (!appends.isEmpty()) {
            appendGroup(appends);
        }
    }

    // ================================================================== appends

    /** A record sent in the group's transaction and what to apply to the view once it is committed. */
    private record Sent(Future<RecordMetadata> metadata, Kind kind, long position, long lastOfRequest,
            long atMicros, String key, String publishKey, PublishRecord publish, Codec.ReplayMark mark) {}

    private enum Kind { EVENT, QUARANTINED, PUBLISH, REPLAY_MARK, KEY_BLOCK }

    /**
     * For each key of {@code requests} already stored within the window: the offset of its newest acceptance. The
     * index gives candidates; each is confirmed by the key and the arrival its event carries, read from the topic in
     * runs of nearby offsets (a retried batch's originals are usually one run).
     */
    private Map<String, Long> storedKeys(List<AppendRequest> requests, long now) {
        if (dedup == null) {
            return Map.of();
        }
        long notBefore = view.retentionMicros() > 0 ? now - view.retentionMicros() : Long.MIN_VALUE;
        Map<String, List<Long>> candidatesByKey = new HashMap<>();
        TreeSet<Long> wanted = new TreeSet<>();
        for (AppendRequest request : requests) {
            for (AppendRequest.Entry entry : request.entries()) {
                if (entry instanceof AppendRequest.Event event && event.idempotencyKey() != null
                        && !candidatesByKey.containsKey(event.idempotencyKey())) {
                    List<Long> candidates = new ArrayList<>(1);
                    dedup.candidates(KeyHash.of(event.idempotencyKey()), notBefore, candidates::add);
                    candidatesByKey.put(event.idempotencyKey(), candidates);
                    wanted.addAll(candidates);
                }
            }
        }
        if (wanted.isEmpty()) {
            return Map.of();
        }
        Map<Long, String> keyAt = confirmable(wanted, notBefore);
        Map<String, Long> stored = new HashMap<>();
        candidatesByKey.forEach((key, candidates) -> {
            for (long offset : candidates) {
                if (key.equals(keyAt.get(offset))) {
                    stored.merge(key, offset, Math::max);
                }
            }
        });
        return stored;
    }

    /**
     * The key of each event of {@code offsets} that arrived after {@code notBefore}: from this node's copy of the keys
     * where it covers the offset, else read from the topic.
     */
    private Map<Long, String> confirmable(TreeSet<Long> candidates, long notBefore) {
        Map<Long, String> keys = new HashMap<>();
        // A segment that straddles a trim still names trimmed offsets; their events are gone.
        java.util.NavigableSet<Long> offsets = candidates.subSet(view.trimmedThrough(), false, view.headOffset(),
                true);
        offsets = confirmLocally(offsets, notBefore, keys);
        if (offsets.isEmpty()) {
            return keys;
        }
        java.util.NavigableSet<Long> remote = offsets;
        TopicPartition events = context.topics().events(view.name);
        java.util.Iterator<Long> it = offsets.iterator();
        long next = it.next();
        while (next != 0) {
            long first = next;
            long last = next;
            next = 0;
            while (it.hasNext()) {
                long candidate = it.next();
                if (candidate - last > CONFIRM_RUN_GAP) {
                    next = candidate;
                    break;
                }
                last = candidate;
            }
            long through = last;
            try {
                context.readers().scan(events, view.readFrom(first), view.readEnd(through), record -> {
                    long offset = Codec.longHeader(record.headers(), Codec.OFFSET);
                    if (remote.contains(offset)) {
                        view.learn(offset, record.offset());
                        if (Codec.longHeader(record.headers(), Codec.AT) > notBefore) {
                            keys.put(offset, Codec.text(record.key()));
                        }
                    }
                    return offset < through;
                });
            } catch (java.io.IOException e) {
                throw new LogUnavailableException("cannot read the events of stream " + view.name + ": "
                        + e.getMessage(), e);
            }
        }
        return keys;
    }

    /**
     * Confirms from this node's copy of the stream's keys ({@link LocalKeys}) the candidates it covers, one local
     * read each, putting the keys of those that arrived after {@code notBefore} in {@code keys}; returns the others,
     * which are confirmed from the topic.
     */
    private java.util.NavigableSet<Long> confirmLocally(java.util.NavigableSet<Long> offsets, long notBefore,
            Map<Long, String> keys) {
        LocalKeys local = context.indexes().localKeys();
        if (local == null || offsets.isEmpty()) {
            return offsets;
        }
        TreeSet<Long> remote = new TreeSet<>();
        for (long offset : offsets) {
            if (!local.covers(view.name, offset)) {
                remote.add(offset);
                continue;
            }
            try {
                LocalKeys.Found found = local.find(view.name, offset);
                if (found != null && found.atMicros() > notBefore) {
                    keys.put(offset, found.key());
                }
            } catch (java.io.IOException e) {
                LOG.log(Level.FINE, "confirming offset " + offset + " of stream " + view.name + " from the topic", e);
                remote.add(offset);
            }
        }
        return remote;
    }

    /** Sends the block of the keys {@code sent} accepts, in its transaction (nothing when it accepts none). */
    private void sendKeyBlock(List<Sent> sent, long coversAfter) {
        if (dedup == null) {
            return;
        }
        long[] pairs = new long[16];
        int keys = 0;
        long newestAt = 0;
        for (Sent record : sent) {
            if (record.kind() == Kind.EVENT && record.key() != null) {
                if (2 * keys + 2 > pairs.length) {
                    pairs = java.util.Arrays.copyOf(pairs, pairs.length * 2);
                }
                pairs[2 * keys] = record.position();
                pairs[2 * keys + 1] = KeyHash.of(record.key());
                keys++;
                newestAt = Math.max(newestAt, record.atMicros());
            }
        }
        ProducerRecord<byte[], byte[]> block = keyBlocks.record(pairs, keys, newestAt, coversAfter);
        if (block != null) {
            sent.add(new Sent(producer.send(block), Kind.KEY_BLOCK, 0, 0, 0, null, null, null, null));
        }
    }

    /**
     * After a trim through {@code throughOffset} is committed (on this thread): the index forgets the trimmed keys and
     * their key blocks are deleted.
     */
    void trimmed(long throughOffset) {
        if (dedup == null) {
            return;
        }
        dedup.removeThrough(throughOffset);
        try {
            keyBlocks.deleteThrough(throughOffset);
        } catch (LogUnavailableException e) {
            // The trim point is durable; the blocks go at the next trim.
            LOG.log(Level.WARNING, "deleting the trimmed key blocks of " + view.name + " failed", e);
        }
    }

    /**
     * The newest stored offset carrying {@code key} (0 when none), looked up on this thread: candidates of every
     * age, confirmed by the events.
     */
    CompletableFuture<Long> offsetOfKey(String key) {
        return control(now -> {
            if (dedup == null) {
                return Decision.answerOnly(0L);
            }
            TreeSet<Long> candidates = new TreeSet<>();
            dedup.candidates(KeyHash.of(key), Long.MIN_VALUE, candidates::add);
            if (candidates.isEmpty()) {
                return Decision.answerOnly(0L);
            }
            long found = 0;
            for (Map.Entry<Long, String> entry : confirmable(candidates, Long.MIN_VALUE).entrySet()) {
                if (key.equals(entry.getValue())) {
                    found = Math.max(found, entry.getKey());
                }
            }
            return Decision.answerOnly(found);
        });
    }

    /** What the index holds now, if this sequencer has one; any thread. */
    java.util.Optional<DedupIndex.Stats> dedupStats() {
        DedupIndex index = dedup;
        return index == null ? java.util.Optional.empty() : java.util.Optional.of(index.stats());
    }

    private void appendGroup(List<AppendTask> tasks) {
        long now = micros();
        long head = view.headOffset();
        long quarantineHead = view.quarantineHeadSeq();
        Map<String, Long> groupKeys = new HashMap<>();
        Map<String, Long> stored;
        try {
            stored = storedKeys(tasks.stream().map(AppendTask::request).toList(), now);
        } catch (RuntimeException e) {
            fail(tasks, e instanceof LogUnavailableException unavailable ? unavailable
                    : new LogUnavailableException("cannot read the stream's keys: " + e.getMessage(), e));
            return;
        }
        List<AppendTask> transacted = new ArrayList<>();
        List<AppendResult> results = new ArrayList<>();
        for (AppendTask task : tasks) {
            Map<String, Long> requestKeys = new HashMap<>();
            AppendResult result = decide(task.request(), head, quarantineHead, groupKeys, requestKeys, stored, now);
            if (result instanceof AppendResult.Committed committed && settled(committed)) {
                answerSettled(task, committed);
                continue;
            }
            transacted.add(task);
            results.add(result);
            if (result instanceof AppendResult.Committed committed) {
                head += committed.count(AppendResult.Status.ACCEPTED);
                quarantineHead += committed.count(AppendResult.Status.QUARANTINED);
                groupKeys.putAll(requestKeys);
            }
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
            failed(transacted, e);
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

    /**
     * Answers a settled request (a retry of events already stored) without a transaction: its publish record goes
     * through the node's plain producer, and the answer once the cluster has acknowledged the record. A retry then
     * costs one produce instead of a transaction's commit, and the sequencer does not wait for it.
     */
    private void answerSettled(AppendTask task, AppendResult.Committed committed) {
        if (!context.settings().publishRecords()) {
            acknowledge(() -> task.future().complete(committed));
            return;
        }
        PublishRecord publish = PublishRecord.of(view.name, task.request(), committed);
        String key = view.name + "/" + UUID.randomUUID();
        try {
            context.plainProducer().get().send(new ProducerRecord<>(context.topics().publishes().topic(), 0,
                    Codec.text(key), Codec.json(publish)), (metadata, error) -> acknowledge(() -> {
                        if (error != null) {
                            task.future().completeExceptionally(new LogUnavailableException(
                                    "the Kafka cluster did not store the publish record: " + error.getMessage(),
                                    error));
                            return;
                        }
                        context.publishes().apply(key, publish, metadata.offset());
                        task.future().complete(committed);
                    }));
        } catch (KafkaException e) {
            task.future().completeExceptionally(new LogUnavailableException(
                    "the Kafka cluster did not store the publish record: " + e.getMessage(), e));
        }
    }

    /**
     * Decides one request against the stream as the group has left it so far ({@code head}, {@code quarantineHead},
     * the keys accepted earlier in the group): dense offsets, duplicates within the request, the group and the
     * window ({@code stored}: the window's offset of each key of the group already stored, see {@link #storedKeys}),
     * and backpressure from the watermarks. Fills {@code requestKeys} with the keys it accepts.
     *
     * @return the request's fates, or its refusal
     */
    private AppendResult decide(AppendRequest request, long head, long quarantineHead, Map<String, Long> groupKeys,
            Map<String, Long> requestKeys, Map<String, Long> stored, long now) {
        List<AppendResult.EntryResult> fates = new ArrayList<>(request.size());
        long nextOffset = head + 1;
        long nextSeq = quarantineHead + 1;
        for (AppendRequest.Entry entry : request.entries()) {
            if (entry instanceof AppendRequest.Event event) {
                String key = event.idempotencyKey();
                Long original = key == null ? null : requestKeys.get(key);
                if (key != null && original == null) {
                    original = groupKeys.get(key);
                }
                if (key != null && original == null) {
                    original = stored.get(key);
                }
                if (original != null) {
                    fates.add(new AppendResult.EntryResult(AppendResult.Status.DUPLICATE, original));
                } else {
                    long offset = nextOffset++;
                    if (key != null) {
                        requestKeys.put(key, offset);
                    }
                    fates.add(new AppendResult.EntryResult(AppendResult.Status.ACCEPTED, offset));
                }
            } else {
                fates.add(new AppendResult.EntryResult(AppendResult.Status.QUARANTINED, nextSeq++));
            }
        }
        long newEntries = (nextOffset - 1 - head) + (nextSeq - 1 - quarantineHead);
        long backlog = (head - context.watermarks().events(view.name))
                + (quarantineHead - context.watermarks().quarantine(view.name));
        if (newEntries > 0 && backlog + newEntries > context.settings().maxPending()) {
            return new AppendResult.Backpressure(backlog, newEntries, context.settings().maxPending());
        }
        return new AppendResult.Committed(fates, now);
    }

    /** Applies a committed transaction's records to the view; whether the stream's head moved. */
    private boolean applyCommitted(List<Sent> sent) {
        boolean advanced = false;
        try {
            for (Sent record : sent) {
                long kafkaOffset = record.metadata().get().offset();
                switch (record.kind()) {
                    case EVENT -> {
                        view.applyEvent(record.position(), kafkaOffset, record.atMicros(), record.lastOfRequest());
                        if (dedup != null && record.key() != null) {
                            dedup.add(KeyHash.of(record.key()), record.position());
                        }
                        advanced = true;
                    }
                    case QUARANTINED -> {
                        view.applyQuarantine(record.position(), kafkaOffset);
                        advanced = true;
                    }
                    case PUBLISH -> context.publishes().apply(record.publishKey(), record.publish(), kafkaOffset);
                    case REPLAY_MARK -> view.applyReplay(record.mark());
                    case KEY_BLOCK -> keyBlocks.committed(kafkaOffset);
                }
            }
            if (dedup != null && advanced) {
                dedup.committed(view.headOffset());
            }
        } catch (InterruptedException | ExecutionException e) {
            // Cannot happen after a successful commit: every send completed before it.
            throw new IllegalStateException("a committed send has no metadata", e);
        }
        return advanced;
    }

    // ================================================================== quarantine replays

    /**
     * Runs one replay: entries marked replayed (before, or earlier in this request) and entries the quarantine does
     * not hold are only reported; the others are decided as one publish request and, unless it is refused or a dry
     * run, appended and marked replayed (with their offsets, the original's for a duplicate) in one transaction.
     */
    private void replay(ReplayTask task) {
        ReplayRequest request = task.request();
        long now = micros();
        ReplayResult.EntryResult[] results = new ReplayResult.EntryResult[request.entries().size()];
        List<ReplayRequest.Entry> toAppend = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        long quarantineHead = view.quarantineHeadSeq();
        for (int i = 0; i < results.length; i++) {
            ReplayRequest.Entry entry = request.entries().get(i);
            Codec.ReplayMark mark = view.replayOf(entry.seq());
            if (entry.seq() < 1 || entry.seq() > quarantineHead) {
                results[i] = new ReplayResult.EntryResult(entry.seq(), ReplayResult.Status.UNKNOWN, 0);
            } else if (mark != null) {
                results[i] = new ReplayResult.EntryResult(entry.seq(), ReplayResult.Status.ALREADY_REPLAYED,
                        mark.offset());
            } else if (seen.add(entry.seq())) {
                toAppend.add(entry);
                positions.add(i);
            }
            // else the same entry twice in one request: answered like the first, below
        }
        if (toAppend.isEmpty()) {
            task.future().complete(new ReplayResult.Replayed(answerRepeats(request, results), request.dryRun()));
            return;
        }
        AppendRequest append = new AppendRequest(request.stream(), request.requestId(), request.receivedAtMicros(),
                request.schemaVersion(), toAppend.stream().map(entry -> (AppendRequest.Entry) entry.event())
                        .toList(), request.keyId(), request.keyName());
        AppendResult decided;
        try {
            decided = decide(append, view.headOffset(), quarantineHead, Map.of(), new HashMap<>(),
                    storedKeys(List.of(append), now), now);
        } catch (LogUnavailableException e) {
            task.future().completeExceptionally(e);
            return;
        }
        if (decided instanceof AppendResult.Backpressure refused) {
            task.future().complete(new ReplayResult.Backpressure(refused.pending(), refused.newEntries(),
                    refused.maxPending()));
            return;
        }
        AppendResult.Committed committed = (AppendResult.Committed) decided;
        List<Codec.ReplayMark> marks = new ArrayList<>();
        for (int j = 0; j < toAppend.size(); j++) {
            AppendResult.EntryResult fate = committed.entries().get(j);
            long seq = toAppend.get(j).seq();
            results[positions.get(j)] = new ReplayResult.EntryResult(seq,
                    fate.status() == AppendResult.Status.ACCEPTED ? ReplayResult.Status.ACCEPTED
                            : ReplayResult.Status.DUPLICATE, fate.offset());
            marks.add(new Codec.ReplayMark(view.name, seq, fate.offset(), request.requestId(), now));
        }
        ReplayResult.Replayed replayed = new ReplayResult.Replayed(answerRepeats(request, results),
                request.dryRun());
        if (request.dryRun()) {
            task.future().complete(replayed);
            return;
        }
        List<Sent> sent = new ArrayList<>();
        try {
            begin();
            send(append, committed, sent);
            for (Codec.ReplayMark mark : marks) {
                sent.add(new Sent(producer.send(new ProducerRecord<>(context.topics().state().topic(), 0,
                        Codec.text(Codec.replayKey(view.name, mark.seq())), Codec.json(mark))), Kind.REPLAY_MARK,
                        0, 0, 0, null, null, null, mark));
            }
            sendKeyBlock(sent, view.headOffset());
            commit(sent.stream().map(Sent::metadata).toList());
        } catch (KafkaException e) {
            failed(List.of(task), e);
            return;
        }
        boolean advanced = applyCommitted(sent);
        task.future().complete(replayed);
        if (advanced) {
            context.appended().accept(view.name);
        }
    }

    /** Fills in the repeats of an entry within one request: replayed by its first occurrence, to its offset. */
    private static List<ReplayResult.EntryResult> answerRepeats(ReplayRequest request,
            ReplayResult.EntryResult[] results) {
        for (int i = 0; i < results.length; i++) {
            if (results[i] == null) {
                long seq = request.entries().get(i).seq();
                long offset = 0;
                for (ReplayResult.EntryResult result : results) {
                    if (result != null && result.seq() == seq) {
                        offset = result.offset();
                        break;
                    }
                }
                results[i] = new ReplayResult.EntryResult(seq, ReplayResult.Status.ALREADY_REPLAYED, offset);
            }
        }
        return List.of(results);
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
                        request.receivedAtMicros(), event.idempotencyKey(), null, null, null));
            } else if (fate.status() == AppendResult.Status.QUARANTINED) {
                AppendRequest.Quarantined quarantined = (AppendRequest.Quarantined) entry;
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(
                        context.topics().quarantine(view.name).topic(), 0, null, null, quarantined.payload(),
                        Codec.quarantineHeaders(fate.offset(), request.requestId(), request.receivedAtMicros(),
                                request.schemaVersion(), quarantined.errors()));
                sent.add(new Sent(producer.send(record), Kind.QUARANTINED, fate.offset(), 0, 0, null, null, null,
                        null));
            }
        }
        if (context.settings().publishRecords()) {
            PublishRecord publish = PublishRecord.of(view.name, request, committed);
            String key = view.name + "/" + UUID.randomUUID();
            sent.add(new Sent(producer.send(new ProducerRecord<>(context.topics().publishes().topic(), 0,
                    Codec.text(key), Codec.json(publish))), Kind.PUBLISH, 0, 0, 0, null, key, publish, null));
        }
    }

    // ================================================================== leases, commits, trims

    /**
     * Decides and commits a control task. A transaction that failed with its outcome unknown (a broker's transient
     * refusal, a timeout) is resolved by a resync; the task then has its answer if its records landed, or is decided
     * once more on what was committed, so that a lease, a commit or a release is not refused for the cluster's
     * hiccup. A second failure is the caller's {@code log_unavailable}.
     */
    private <T> void control(ControlTask<T> task) {
        control(task, true);
    }

    private <T> void control(ControlTask<T> task, boolean mayRetry) {
        Decision<T> decision;
        try {
            decision = task.decide().apply(micros());
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
                task.future().completeExceptionally(new NoSequencerException(view.name, "this node no longer"
                        + " sequences stream " + view.name + " (another node took it over)", RETRY_AFTER_SECONDS));
                state = State.STOPPED;
                problem = "fenced: " + fenced.getMessage();
                fencedAt = System.nanoTime();
                return;
            } catch (KafkaException e) {
                failAndResync(List.of(), e);
                if (state == State.ACTIVE && decision.landed().getAsBoolean()) {
                    task.future().complete(decision.answer());
                } else if (state == State.ACTIVE && mayRetry) {
                    control(task, false);
                } else {
                    task.future().completeExceptionally(new LogUnavailableException(
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

    // ================================================================== failures

    /**
     * A transaction failed in a way that leaves its outcome unknown (a timeout, a broker gone): fail its requests as
     * unavailable (a retry is deduplicated), then take the stream over again, which resolves the transaction and
     * reads what was committed before serving anew.
     */
    private void failAndResync(List<? extends Task> tasks, KafkaException cause) {
        problem = "the Kafka cluster did not commit: " + cause.getMessage();
        LOG.log(Level.WARNING, "a transaction of stream " + view.name + " failed; taking the stream over again",
                cause);
        fail(tasks, new LogUnavailableException(problem, cause));
        if (state == State.STOPPED) {
            return;
        }
        state = State.TAKING_OVER;
        context.stateChanged().run();
        closeProducer();
        try {
            takeOverUntilServing();
        } catch (InterruptedException e) {
            state = State.STOPPED;
        }
    }

    /**
     * Takes the stream over, and again every second while the cluster cannot be reached or does not answer in time
     * (a broker gone, its coordinators moving) or the {@linkplain TakeoverGuard guard} refuses (this node may no
     * longer hold the stream), until this sequencer serves or is stopped. A first takeover that
     * failed used to stop the sequencer for good while this node still held the stream, which then answered
     * {@code no_sequencer} until the next rebalance.
     */
    private void takeOverUntilServing() throws InterruptedException {
        while (state == State.TAKING_OVER) {
            String refusal = context.guard().refusal(view.name, confirmTakeover);
            // Any later takeover is a retake, after a failure: the group may have given the stream away meanwhile.
            confirmTakeover = true;
            if (refusal != null) {
                if (!refusal.equals(problem)) {
                    LOG.warning("this node does not take stream " + view.name + " over: " + refusal);
                }
                problem = refusal;
                failQueuedAsUnavailable();
                closeProducer();
                Thread.sleep(1_000);
                continue;
            }
            try {
                takeOver();
            } catch (ProducerFencedException | InvalidProducerEpochException e) {
                throw e; // another node took the stream over meanwhile: stop, the group will say who holds it
            } catch (KafkaException | LogUnavailableException e) {
                if (problem == null) {
                    LOG.log(Level.WARNING, "taking stream " + view.name + " over failed; trying again every second",
                            e);
                }
                problem = "the Kafka cluster cannot be reached: " + e.getMessage();
                failQueuedAsUnavailable();
                closeProducer();
                Thread.sleep(1_000);
            }
        }
    }

    private void failQueuedAsUnavailable() {
        Task task;
        while ((task = queue.poll()) != null) {
            future(task).completeExceptionally(new LogUnavailableException(problem));
        }
    }

    private void fail(List<? extends Task> tasks, RuntimeException failure) {
        for (Task task : tasks) {
            future(task).completeExceptionally(failure);
        }
    }

    /**
     * A group's transaction failed: if this node was fenced (another node took the stream over), its requests fail
     * with {@link NoSequencerException} and the sequencer stops; otherwise see {@link #failAndResync}.
     */
    private void failed(List<? extends Task> tasks, KafkaException cause) {
        if (cause instanceof ProducerFencedException || cause instanceof InvalidProducerEpochException
                || cause instanceof AuthorizationException || cause instanceof UnsupportedVersionException) {
            fail(tasks, new NoSequencerException(view.name, "this node no longer sequences stream " + view.name
                    + " (another node took it over)", RETRY_AFTER_SECONDS));
            state = State.STOPPED;
            problem = "fenced: " + cause.getMessage();
            fencedAt = System.nanoTime();
            return;
        }
        failAndResync(tasks, cause);
    }

    private void failQueued() {
        Task task;
        while ((task = queue.poll()) != null) {
            future(task).completeExceptionally(new NoSequencerException(view.name, "this node does not sequence"
                    + " stream " + view.name + " now", RETRY_AFTER_SECONDS));
        }
    }

    private static CompletableFuture<?> future(Task task) {
        if (task instanceof AppendTask append) {
            return append.future();
        }
        return task instanceof ReplayTask replay ? replay.future() : ((ControlTask<?>) task).future();
    }

    private void closeProducer() {
        if (producer != null) {
            try {
                producer.close(Duration.ZERO);
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "closing the producer of " + view.name + " failed", e);
            }
            producer = null;
        }
    }

    private long micros() {
        java.time.Instant now = context.clock().instant();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
