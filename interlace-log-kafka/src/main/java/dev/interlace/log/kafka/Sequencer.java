package dev.interlace.log.kafka;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.NoSequencerException;
import dev.interlace.runtime.log.ReplayRequest;
import dev.interlace.runtime.log.ReplayResult;
import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.ops.FatalErrors;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * The one writer of one stream while this node holds it: a thread ({@code interlace-kafka-sequencer-<stream>}) with
 * a queue in front, and a transactional producer whose {@code transactional.id} is the stream's on every node.
 *
 * <p>Taking a stream over calls {@code initTransactions}, which bumps the producer epoch: any earlier holder's
 * producer is fenced (its open transaction aborted, its next commit refused), so a holder that was paused past its
 * ownership can never acknowledge again. Then it reads the stream's topics up to their stable end, so its view (the
 * head, the deduplication window, the consumer groups) is exactly what was committed; only then does it serve: at
 * once the tasks that read no keys (a flusher's lease and commits), the others once its deduplication index is open.
 *
 * <p>Its tasks ({@link SequencerQueue}) run on that thread: the appends and replays, decided by the
 * {@link dev.interlace.runtime.log.AppendDecision} every log asks and written in transactions
 * ({@link SequencerWrites}), against the window's keys it keeps ({@link SequencerKeys}); lease, commit, release and
 * trim decisions on {@code _state} through the same producer, so they are fenced the same way. This class is its life
 * (taking over, serving, restarting after a failure, stopping) and the answers to failed transactions.
 */
final class Sequencer {

    private static final Logger LOG = Logger.getLogger(Sequencer.class.getName());
    private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(60);
    private static final int RETRY_AFTER_SECONDS = 1;

    /**
     * Where the sequencer is. {@code OPENING_INDEX}: fenced and caught up, it serves only the control tasks that read
     * no keys while its index opens ({@link IndexOpening}); appends and whatever reads keys wait, and the stream is
     * not served here yet ({@link SequencerPlacement#holder}). {@code ACTIVE}: it serves everything.
     */
    enum State { TAKING_OVER, OPENING_INDEX, ACTIVE, STOPPED }

    private final StreamView view;
    private final SequencerContext context;
    private final SequencerQueue queue = new SequencerQueue();
    private final Thread thread;
    private volatile State state = State.TAKING_OVER;
    /** Wakes the sequencer's thread pausing between attempts (see {@link #pause}) when the sequencer is stopped. */
    private final Signal stopped = new Signal();
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
    /** When the takeover under way started, and when it was fenced and caught up: for its log line. */
    private long takeoverStarted;
    private long caughtUpAt;
    /** When another producer of the stream's transactional id fenced this sequencer; 0 while it was not. */
    private volatile long fencedAt;
    private final SequencerKeys keys;
    private final SequencerWrites writes;
    private final SettledRetries settledRetries;
    /**
     * Whether the next takeover must be confirmed by the group's coordinator (see {@link TakeoverGuard}): every one
     * but the first of a sequencer started for an assignment the group just made. Its thread's alone.
     */
    private boolean confirmTakeover;
    /** How many tasks the previous group held: whether the next one lingers ({@link SequencerQueue#take}). */
    private int lastGroupSize;

    /** The sequencer of a stream the sequencer group just assigned to this node. */
    Sequencer(StreamView view, SequencerContext context) {
        this(view, context, false);
    }

    /**
     * A sequencer of {@code view}'s stream; with {@code confirmTakeover}, it takes the stream over only once the
     * group's coordinator says that the group assigns the stream to this node.
     */
    Sequencer(StreamView view, SequencerContext context, boolean confirmTakeover) {
        this.view = view;
        this.context = context;
        this.confirmTakeover = confirmTakeover;
        this.keys = new SequencerKeys(view, context);
        this.writes = new SequencerWrites(this, view, context, keys);
        this.settledRetries = new SettledRetries(view, keys);
        this.thread = DaemonThreads.thread(this::run, "interlace-kafka-sequencer-" + view.name);
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

    /**
     * Queues {@code request} when that is all {@link #append} would do, without waiting for anything: the sequencer
     * serves, and the request cannot be a retry settled by committed events (the index's memory and filters say so at
     * once). Null otherwise: {@link #append} then decides, on a thread that may wait.
     */
    CompletableFuture<AppendResult> appendAtOnce(AppendRequest request) {
        if (state != State.ACTIVE || stall() != null) {
            return null;
        }
        try {
            if (!settledRetries.certainlyUnsettled(request, micros())) {
                return null;
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "asking the index of stream " + view.name + " whether a request may be a retry failed",
                    e);
            return null; // append looks it up, and fails it as the lookup does
        }
        CompletableFuture<AppendResult> future = new CompletableFuture<>();
        submit(new SequencerQueue.AppendTask(request, future));
        return future;
    }

    /**
     * Appends {@code request} through the queue, unless it is a retry settled by committed events: that one is
     * answered here, on the caller's thread, without waiting for the transaction under way ({@link SettledRetries}).
     */
    CompletableFuture<AppendResult> append(AppendRequest request) {
        CompletableFuture<AppendResult> future = new CompletableFuture<>();
        if (state == State.ACTIVE && stall() == null) {
            AppendResult.Committed settled = null;
            try {
                settled = settledRetries.settled(request, micros());
            } catch (RuntimeException e) {
                // The events could not be read back here: the sequencer decides, and reads them again.
                LOG.log(Level.FINE, "looking a retry of stream " + view.name + " up failed", e);
            }
            if (settled != null && state == State.ACTIVE) {
                SettledRetries.answer(context, view, request, settled, future, Runnable::run);
                return future;
            }
        }
        submit(new SequencerQueue.AppendTask(request, future));
        return future;
    }

    CompletableFuture<ReplayResult> replay(ReplayRequest request) {
        CompletableFuture<ReplayResult> future = new CompletableFuture<>();
        submit(new SequencerQueue.ReplayTask(request, future));
        return future;
    }

    /** A decision on {@code _state} that may read the stream's keys: served once the index is open. */
    <T> CompletableFuture<T> control(LongFunction<ControlDecision<T>> decide) {
        CompletableFuture<T> future = new CompletableFuture<>();
        submit(new SequencerQueue.ControlTask<>(decide, future, true));
        return future;
    }

    /**
     * A decision on {@code _state} that reads the stream's view alone, never its keys (a consumer group's lease,
     * commit or release): served as soon as the sequencer has fenced and caught up, while its index opens.
     */
    <T> CompletableFuture<T> controlReadingNoKeys(LongFunction<ControlDecision<T>> decide) {
        CompletableFuture<T> future = new CompletableFuture<>();
        submit(new SequencerQueue.ControlTask<>(decide, future, false));
        return future;
    }

    private void submit(SequencerQueue.Task task) {
        String stall = stall();
        if (stall != null) {
            task.future().completeExceptionally(new LogUnavailableException(stall));
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
                + TimeUnit.NANOSECONDS.toSeconds(waited) + " s (cut off from the brokers, or the brokers stopped)";
    }

    /**
     * Called twice a second off the sequencer's thread: while the cluster does not answer, the requests of the group
     * in hand and those queued behind it are answered {@code 503 log_unavailable} at once rather than when the
     * client's or the cluster's timeout ends (the group in hand may still commit: a retry is deduplicated).
     */
    void checkStall() {
        String stall = stall();
        if (stall == null) {
            return;
        }
        queue.failInHand(LogUnavailableException.outcomeUnknown(stall, null));
        LogUnavailableException unavailable = new LogUnavailableException(stall);
        queue.failQueued(() -> unavailable);
    }

    /** Stops serving: fails what is queued, finishes the transaction under way, closes the producer. */
    void stop() {
        moveTo(State.STOPPED);
        stopped.raise();
        DaemonThreads.join(thread, Duration.ofSeconds(30));
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
            moveTo(State.STOPPED);
            failQueued();
            writes.closeProducer();
            keys.close();
            context.stateChanged().run();
        }
    }

    /** Takes the stream over, then serves queued tasks until the sequencer stops. */
    private void serve() throws InterruptedException {
        takeOverUntilServing(true);
        while (state == State.ACTIVE) {
            List<SequencerQueue.Task> batch = queue.take(context.settings().maxGroupRequests(), lastGroupSize > 1);
            lastGroupSize = batch.size();
            runGroup(batch);
        }
    }

    /** Runs a group of tasks taken from the queue, as the group in hand. */
    private void runGroup(List<SequencerQueue.Task> batch) {
        if (!batch.isEmpty()) {
            waitingSince = System.nanoTime();
            try {
                writes.run(batch);
            } catch (RuntimeException e) {
                // Whatever the batch did not answer is answered now (a retry is deduplicated).
                SequencerQueue.fail(batch, LogUnavailableException.outcomeUnknown("the sequencer of stream "
                        + view.name + " failed: " + e, e));
                throw e;
            } finally {
                waitingSince = 0;
                queue.done();
            }
        }
    }

    /**
     * After an unexpected failure: says why on {@link #problem} (the log's health reports it), waits, and sets the
     * sequencer to take the stream over again; returns the next wait, doubled up to {@link #MAX_RESTART_MILLIS}.
     */
    private long restartAfterFailure(RuntimeException failure, long waitMillis) throws InterruptedException {
        // The state first, then the problem (and the reverse when it serves again): whoever sees the problem sees
        // that the sequencer does not serve.
        if (!moveTo(State.TAKING_OVER)) {
            return waitMillis;
        }
        problem = "the sequencer of stream " + view.name + " failed (" + failure + "); it takes the stream over"
                + " again in " + waitMillis + " ms";
        LOG.log(Level.SEVERE, problem, failure);
        failQueuedAsUnavailable();
        writes.closeProducer();
        context.stateChanged().run();
        pause(waitMillis);
        return Math.min(MAX_RESTART_MILLIS, waitMillis * 2);
    }

    /** Fences the previous holder, reads the stream up to its stable end and starts opening the index. */
    private void takeOver() throws InterruptedException {
        takeoverStarted = System.nanoTime();
        KafkaProducer<byte[], byte[]> producer = writes.openProducer();
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
        caughtUpAt = System.nanoTime();
        keys.startOpening();
        problem = null;
        moveTo(State.OPENING_INDEX);
        context.stateChanged().run();
    }

    /**
     * Once fenced and caught up: serves the control tasks that read no keys until the index is open (with
     * {@code serveMeanwhile}; otherwise only waits, as a resync in the middle of a group does), then serves all.
     */
    private void openIndex(boolean serveMeanwhile) throws InterruptedException {
        while (state == State.OPENING_INDEX) {
            if (keys.opened(serveMeanwhile ? 0 : 200)) {
                if (!moveTo(State.ACTIVE)) {
                    return;
                }
                long now = System.nanoTime();
                LOG.info("this node (" + context.nodeUrl() + ") sequences stream " + view.name + " from offset "
                        + (view.headOffset() + 1) + "; taking over took "
                        + TimeUnit.NANOSECONDS.toMillis(now - takeoverStarted) + " ms (fenced and caught up in "
                        + TimeUnit.NANOSECONDS.toMillis(caughtUpAt - takeoverStarted) + ", the index open "
                        + TimeUnit.NANOSECONDS.toMillis(now - caughtUpAt) + " ms later)");
                context.stateChanged().run();
            } else if (serveMeanwhile) {
                runGroup(queue.takeReadingNoKeys(context.settings().maxGroupRequests(), 20));
            }
        }
    }

    /** After a trim through {@code throughOffset} is committed (on this thread); see {@link SequencerKeys#trimmed}. */
    void trimmed(long throughOffset) {
        keys.trimmed(throughOffset);
    }

    /**
     * The newest stored offset carrying {@code key} (0 when none), looked up on this thread: candidates of every
     * age, confirmed by the events.
     */
    CompletableFuture<Long> offsetOfKey(String key) {
        return control(now -> ControlDecision.answerOnly(keys.newestOffsetOf(key)));
    }

    /** What the index holds now, if this sequencer has one; any thread. */
    java.util.Optional<DedupIndex.Stats> dedupStats() {
        return keys.dedupStats();
    }

    // ================================================================== failures

    /**
     * A transaction failed in a way that leaves its outcome unknown (a timeout, a broker gone): fail its requests as
     * unavailable (a retry is deduplicated), then take the stream over again, which resolves the transaction and
     * reads what was committed before serving anew.
     */
    void failAndResync(List<? extends SequencerQueue.Task> tasks, KafkaException cause) {
        problem = "the Kafka cluster did not commit: " + cause.getMessage();
        LOG.log(Level.WARNING, "a transaction of stream " + view.name + " failed; taking the stream over again",
                cause);
        SequencerQueue.fail(tasks, LogUnavailableException.outcomeUnknown(problem, cause));
        if (!moveTo(State.TAKING_OVER)) {
            return;
        }
        context.stateChanged().run();
        writes.closeProducer();
        try {
            takeOverUntilServing(false);
        } catch (InterruptedException e) {
            moveTo(State.STOPPED);
        }
    }

    /**
     * Takes the stream over, and again every second while the cluster cannot be reached or does not answer in time
     * (a broker gone, its coordinators moving) or the {@linkplain TakeoverGuard guard} refuses (this node may no
     * longer hold the stream), until this sequencer serves or is stopped. A first takeover that
     * failed used to stop the sequencer for good while this node still held the stream, which then answered
     * {@code no_sequencer} until the next rebalance. An index that fails to open is a takeover that failed.
     *
     * @param serveMeanwhile whether to serve the tasks that read no keys while the index opens ({@link #openIndex})
     */
    private void takeOverUntilServing(boolean serveMeanwhile) throws InterruptedException {
        while (state == State.TAKING_OVER || state == State.OPENING_INDEX) {
            String refusal = context.guard().refusal(view.name, confirmTakeover);
            // Any later takeover is a retake, after a failure: the group may have given the stream away meanwhile.
            confirmTakeover = true;
            if (refusal != null) {
                if (!refusal.equals(problem)) {
                    LOG.warning("this node does not take stream " + view.name + " over: " + refusal);
                }
                problem = refusal;
                failQueuedAsUnavailable();
                writes.closeProducer();
                pause(1_000);
                continue;
            }
            try {
                takeOver();
                openIndex(serveMeanwhile);
            } catch (ProducerFencedException | InvalidProducerEpochException e) {
                throw e; // another node took the stream over meanwhile: stop, the group will say who holds it
            } catch (KafkaException | LogUnavailableException e) {
                if (state == State.OPENING_INDEX) {
                    moveTo(State.TAKING_OVER);
                }
                if (problem == null) {
                    LOG.log(Level.WARNING, "taking stream " + view.name + " over failed; trying again every second",
                            e);
                }
                problem = "the Kafka cluster cannot be reached: " + e.getMessage();
                failQueuedAsUnavailable();
                writes.closeProducer();
                pause(1_000);
            }
        }
    }

    /** Waits {@code millis} between attempts of the sequencer's thread, or less: until the sequencer is stopped. */
    private void pause(long millis) throws InterruptedException {
        stopped.awaitWhile(() -> state != State.STOPPED, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis));
    }

    private void failQueuedAsUnavailable() {
        String why = problem;
        queue.failQueued(() -> new LogUnavailableException(why));
    }

    /**
     * A group's transaction failed: if this node was fenced (another node took the stream over), its requests fail
     * with {@link NoSequencerException} and the sequencer stops; otherwise see {@link #failAndResync}.
     */
    void failed(List<? extends SequencerQueue.Task> tasks, KafkaException cause) {
        if (cause instanceof ProducerFencedException || cause instanceof InvalidProducerEpochException
                || cause instanceof AuthorizationException || cause instanceof UnsupportedVersionException) {
            SequencerQueue.fail(tasks, new NoSequencerException(view.name, "this node no longer sequences stream "
                    + view.name + " (another node took it over)", RETRY_AFTER_SECONDS));
            moveTo(State.STOPPED);
            problem = "fenced: " + cause.getMessage();
            fencedAt = System.nanoTime();
            return;
        }
        failAndResync(tasks, cause);
    }

    /** Moves {@link #state} to {@code next} unless it is stopped (a stop is never undone); whether it moved. */
    private synchronized boolean moveTo(State next) {
        if (state == State.STOPPED && next != State.STOPPED) {
            return false;
        }
        state = next;
        return true;
    }

    private void failQueued() {
        queue.failQueued(() -> new NoSequencerException(view.name, "this node does not sequence stream " + view.name
                + " now", RETRY_AFTER_SECONDS));
    }

    long micros() {
        return dev.interlace.runtime.ops.EpochMicros.now(context.clock());
    }
}
