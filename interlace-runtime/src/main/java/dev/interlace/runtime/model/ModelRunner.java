package dev.interlace.runtime.model;

import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.stream.StreamPartitions;

import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.FatalErrors;

import dev.interlace.annotations.Materialise;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.warehouse.ModelStore;
import dev.interlace.runtime.warehouse.RunHistory;
import dev.interlace.runtime.warehouse.ModelOutcome;
import dev.interlace.runtime.warehouse.RunRecord;
import dev.interlace.runtime.warehouse.RunStatus;
import dev.interlace.runtime.warehouse.Trigger;
import dev.interlace.runtime.ops.TraceIds;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs models after flushes: one run is one pass over the affected part of the DAG in topological order, on a thread
 * of its own so a slow model never delays flushing. At most one run waits at a time; triggers that arrive while one
 * waits join it ({@code triggers}). After a run the thread rests {@code model-rest-ratio} times as long as the run took
 * before starting the next one (three by default), so that under a steady stream of flushes model runs take at most a
 * quarter of the runner's time and cannot crowd out publishing and flushing on a small machine; a quiet system's
 * short runs barely wait. A failing model is recorded with its error and its dependants are skipped; the rest of the
 * run goes on, and the next trigger retries.
 *
 * <p>This class only schedules: what a model's output is written as, its watermarks and the run history belong to the
 * warehouse ({@link ModelStore}, {@link RunHistory}), which writes them in its own dialect. An incremental model's
 * output and its watermarks commit in one transaction, so each stream row is processed exactly once.
 */
public final class ModelRunner implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ModelRunner.class.getName());

    private final ModelGraph graph;
    private final ModelStore store;
    private final RunHistory history;
    private final Clock clock;
    private final RequestIds ids;
    private final ModelListener listener;
    private final ScheduledExecutorService executor;
    /** How many times a run's duration the runner rests after it. */
    private final int restRatio;
    /** When the next run may start ({@link System#nanoTime()}): the last run's end plus its rest. */
    private volatile long restUntilNanos = System.nanoTime();
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when {@link #active} falls to 0. */
    private final java.util.concurrent.locks.Condition idle = lock.newCondition();
    private PendingRun pending;
    /** The run taken from {@link #pending} whose record is being written; guarded by {@link #lock}. */
    private PendingRun starting;
    /** Runs queued or running; guarded by {@link #lock}. */
    private int active;
    private final ComponentHealth components;
    /** Per stream, the furthest watermark whose flush-triggered run finished with every model succeeding. */
    private final Map<String, Long> caughtUp = new java.util.concurrent.ConcurrentHashMap<>();

    public ModelRunner(ModelGraph graph, ModelStore store, RunHistory history, Clock clock, RequestIds ids,
            ModelListener listener, int restRatio) {
        this(graph, store, history, clock, ids, listener, restRatio, ComponentHealth.unwatched());
    }

    /**
     * A runner that reports an error of a model run (a fault of this process, not a failed query) to
     * {@code components}.
     */
    public ModelRunner(ModelGraph graph, ModelStore store, RunHistory history, Clock clock, RequestIds ids,
            ModelListener listener, int restRatio, ComponentHealth components) {
        this.components = components;
        if (restRatio < 0) {
            throw new IllegalArgumentException("the rest ratio must not be negative, got " + restRatio);
        }
        this.graph = graph;
        this.restRatio = restRatio;
        this.store = store;
        this.history = history;
        this.clock = clock;
        this.ids = ids;
        this.listener = listener;
        this.executor = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("interlace-models"));
    }

    /** Creates the bookkeeping tables, finishes runs a crash interrupted, and queues models left stale by downtime. */
    public void start() {
        try {
            history.prepareRuns(micros());
            store.prepareModels();
        } catch (RuntimeException e) {
            throw new ModelException(e.getMessage());
        }
        Set<String> stale = new LinkedHashSet<>();
        for (ModelDefinition model : graph.inOrder()) {
            if (model.materialise() == Materialise.VIEW ? !exists(model) : isStale(model)) {
                stale.addAll(graph.withDependants(model.name()));
            }
        }
        if (!stale.isEmpty()) {
            trigger(Trigger.STARTUP, stale);
        }
    }

    /**
     * How far the models reading {@code stream} are known to be up to date: the furthest watermark of the stream whose
     * flush triggered a run that succeeded ({@link Long#MAX_VALUE} when no model reads the stream; 0 before any such
     * run of this process).
     */
    public long modelsCaughtUp(String stream) {
        return graph.affectedByStream(StreamPartitions.streamOf(stream)).isEmpty() ? Long.MAX_VALUE
                : caughtUp.getOrDefault(stream, 0L);
    }

    /** Called after a flush committed new rows of {@code stream}. */
    public void streamFlushed(String stream, long watermark) {
        streamFlushed(stream, watermark, TraceIds.NONE);
    }

    /**
     * Called after a flush committed new rows of {@code stream} for the requests of {@code traces}, which the run it
     * triggers (or joins) records.
     */
    public void streamFlushed(String stream, long watermark, TraceIds traces) {
        // A partition's flush (log stream orders__p1) runs the models of its stream; the trigger names the partition.
        Set<String> affected = graph.affectedByStream(StreamPartitions.streamOf(stream));
        if (!affected.isEmpty()) {
            trigger(Trigger.flushed(stream, watermark), affected, traces);
        }
    }

    /**
     * Queues a run of {@code model} and its dependants.
     *
     * @return the run's id
     * @throws IllegalArgumentException when there is no such model
     */
    public String runManually(String model) {
        if (graph.model(model) == null) {
            throw new IllegalArgumentException("no model is named " + model);
        }
        return trigger(Trigger.MANUAL, graph.withDependants(model));
    }

    /** The models and what each reads. */
    public ModelGraph graph() {
        return graph;
    }

    /** Whether a model of that name exists. */
    public boolean hasModel(String name) {
        return graph.model(name) != null;
    }

    /** Queues the models, joining the run already waiting if there is one; returns the run's id. */
    String trigger(Trigger trigger, Set<String> models) {
        return trigger(trigger, models, TraceIds.NONE);
    }

    private String trigger(Trigger trigger, Set<String> models, TraceIds traces) {
        lock.lock();
        try {
            // Only memory here: triggers come from the flush threads, which must not wait on run bookkeeping. The
            // run is recorded when it starts (GET /runs shows the waiting one from memory until then).
            if (pending != null) {
                pending.triggers.add(trigger);
                pending.models.addAll(models);
                pending.traces = pending.traces.plus(traces);
                return pending.id;
            }
            PendingRun run = new PendingRun(ids.mintWithPrefix("run-"), trigger, micros());
            run.models.addAll(models);
            run.traces = traces;
            pending = run;
            active++;
            executor.execute(this::runPending);
            return run.id;
        } finally {
            lock.unlock();
        }
    }

    private void runPending() {
        // A run triggered while the previous one ran was queued right behind it: it waits out the rest here.
        long rest = restUntilNanos - System.nanoTime();
        if (rest > 0) {
            try {
                executor.schedule(this::runPending, rest, TimeUnit.NANOSECONDS);
                return;
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closing: run now, as before the runner rested
            }
        }
        PendingRun run;
        lock.lock();
        try {
            run = pending;
            pending = null;
            starting = run;
        } finally {
            lock.unlock();
        }
        if (run == null) {
            return;
        }
        long started = System.nanoTime();
        try {
            if (execute(run)) {
                components.recovered(ComponentHealth.Component.MODEL_RUNNER, null);
            }
        } catch (Error e) {
            // The executor's task would swallow it. Out of memory ends the process; any other error is said, and the
            // next trigger runs the models again.
            FatalErrors.exitIfFatal(e);
            components.failed(ComponentHealth.Component.MODEL_RUNNER, null, e, ComponentHealth.Fate.RESTARTING);
        } finally {
            long ended = System.nanoTime();
            restUntilNanos = ended + restRatio * (ended - started);
            lock.lock();
            try {
                if (--active == 0) {
                    idle.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** Runs the models of {@code run}; returns false when one of them failed on an error rather than an exception. */
    private boolean execute(PendingRun run) {
        boolean noError = true;
        long started = micros();
        insertStarted(run, started);
        lock.lock();
        try {
            starting = null;
        } finally {
            lock.unlock();
        }
        List<RunRecord.ModelResult> results = new ArrayList<>();
        Map<String, String> failed = new HashMap<>();
        for (ModelDefinition model : graph.inOrder()) {
            if (!run.models.contains(model.name())) {
                continue;
            }
            String blockedBy = graph.modelsReadBy(model.name()).stream().filter(failed::containsKey).findFirst()
                    .orElse(null);
            if (blockedBy != null) {
                String reason = "skipped: input model " + blockedBy + " " + (failed.get(blockedBy) == null
                        ? "failed" : "was skipped");
                failed.put(model.name(), reason);
                results.add(new RunRecord.ModelResult(model.name(), ModelOutcome.SKIPPED, 0, 0, reason));
                continue;
            }
            long start = System.nanoTime();
            try {
                long rows = materialise(model);
                results.add(new RunRecord.ModelResult(model.name(), ModelOutcome.SUCCEEDED, rows,
                        (System.nanoTime() - start) / 1_000_000, null));
            } catch (SQLException | RuntimeException | Error e) {
                FatalErrors.exitIfFatal(e);
                if (e instanceof Error error) { // a fault of this process (a Java model's stack overflow, a bug)
                    noError = false;
                    components.failed(ComponentHealth.Component.MODEL_RUNNER, null, error,
                            ComponentHealth.Fate.RESTARTING);
                }
                failed.put(model.name(), null);
                LOG.log(Level.WARNING, "model " + model.name() + " failed in run " + run.id, e);
                results.add(new RunRecord.ModelResult(model.name(), ModelOutcome.FAILED, 0,
                        (System.nanoTime() - start) / 1_000_000, String.valueOf(e.getMessage())));
            }
        }
        boolean anyFailed = results.stream().anyMatch(result -> result.status() == ModelOutcome.FAILED);
        RunStatus status = anyFailed ? RunStatus.FAILED : RunStatus.SUCCEEDED;
        finish(run.id, status, results);
        if (!anyFailed) {
            for (Trigger trigger : run.triggers) {
                if (trigger.kind() == Trigger.Kind.STREAM) {
                    caughtUp.merge(trigger.stream(), trigger.offset(), Math::max);
                }
            }
        }
        listener.runFinished(new RunRecord(run.id, run.trigger, List.copyOf(run.triggers), status,
                run.queuedAtMicros, started, micros(), List.copyOf(results), run.traces));
        return noError;
    }

    /** Brings one model up to date; returns the rows written. */
    private long materialise(ModelDefinition model) throws SQLException {
        ModelStore.JavaBody java = model.javaModel() == null ? null : (connection, deltas) -> {
            // The store's deltas are per log stream: a stream of several partitions has one per partition
            // (orders, orders__p1, ...), which the model gets together, as one delta of the stream.
            Map<String, java.util.SortedMap<Integer, ModelContext.Range>> byStream = new LinkedHashMap<>();
            deltas.forEach((logStream, delta) -> byStream.computeIfAbsent(StreamPartitions.streamOf(logStream),
                    stream -> new java.util.TreeMap<>()).put(StreamPartitions.partitionOf(logStream),
                    new ModelContext.Range(delta.afterOffset(), delta.throughOffset())));
            Map<String, ModelContext.Delta> contextDeltas = new LinkedHashMap<>();
            byStream.forEach((stream, ranges) -> {
                ModelContext.Range first = ranges.get(ranges.firstKey());
                contextDeltas.put(stream, new ModelContext.Delta(stream, first.afterOffset(), first.throughOffset(),
                        ranges.size() > 1 ? ranges : new java.util.TreeMap<>()));
            });
            try {
                return model.javaModel().run(new ModelContext(connection, model.schema(), model.name(),
                        contextDeltas));
            } catch (SQLException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        };
        ModelStore.ModelOutput output = new ModelStore.ModelOutput(model.schema(), model.name(), model.materialise(),
                model.sql(), model.uniqueKey(), graph.logStreamsReadBy(model.name()), java);
        return store.materialise(output, new ModelStore.Steps() {
            @Override
            public void afterOutput(long rows) {
                listener.afterOutput(model.name(), rows);
            }

            @Override
            public void beforeCommit() {
                listener.beforeCommit(model.name());
            }
        });
    }

    private boolean isStale(ModelDefinition model) {
        if (!exists(model)) {
            return true;
        }
        try {
            return store.isBehindStreams(model.name(), List.copyOf(graph.streamsReadBy(model.name())));
        } catch (RuntimeException e) {
            throw new ModelException(e.getMessage());
        }
    }

    private boolean exists(ModelDefinition model) {
        try {
            return store.modelExists(model.schema(), model.name());
        } catch (RuntimeException e) {
            throw new ModelException(e.getMessage());
        }
    }

    // ---------------------------------------------------------------- run records

    private void insertStarted(PendingRun run, long startedMicros) {
        try {
            history.runStarted(new RunRecord(run.id, run.trigger, List.copyOf(run.triggers), RunStatus.RUNNING,
                    run.queuedAtMicros, startedMicros, 0, List.of(), run.traces));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "cannot record run " + run.id, e);
        }
    }

    /** The run waiting to start (or whose record is being written), if it matches {@code filter}. */
    private Optional<RunRecord> waiting(RunRecord.Filter filter) {
        lock.lock();
        try {
            PendingRun run = pending != null ? pending : starting;
            if (run == null) {
                return Optional.empty();
            }
            RunStatus status = run == pending ? RunStatus.QUEUED : RunStatus.RUNNING;
            RunRecord record = new RunRecord(run.id, run.trigger, List.copyOf(run.triggers), status,
                    run.queuedAtMicros, 0, 0, List.of(), run.traces);
            boolean matches = (filter.model() == null || run.models.contains(filter.model()))
                    && (filter.status() == null || filter.status() == status)
                    && (filter.trigger() == null || run.triggers.contains(filter.trigger()))
                    && (filter.sinceMicros() == null || run.queuedAtMicros >= filter.sinceMicros())
                    && (filter.untilMicros() == null || run.queuedAtMicros < filter.untilMicros());
            return matches ? Optional.of(record) : Optional.empty();
        } finally {
            lock.unlock();
        }
    }

    private void finish(String id, RunStatus status, List<RunRecord.ModelResult> results) {
        try {
            history.runFinished(id, status, micros(), results);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "cannot record the end of run " + id, e);
        }
    }

    /** Runs matching the filters, newest first (the one waiting to start, if any, first), and how many match. */
    public RunRecord.Page runs(RunRecord.Filter filter) {
        RunRecord.Page recorded;
        try {
            recorded = history.runs(filter);
        } catch (RuntimeException e) {
            throw new ModelException(e.getMessage());
        }
        Optional<RunRecord> waiting = waiting(filter);
        if (waiting.isEmpty()) {
            return recorded;
        }
        List<RunRecord> runs = new ArrayList<>();
        runs.add(waiting.get());
        for (RunRecord run : recorded.runs()) {
            if (runs.size() < filter.limit()) {
                runs.add(run);
            }
        }
        return new RunRecord.Page(runs, recorded.total() + 1);
    }

    /** One run with its models. */
    public Optional<RunRecord> run(String id) {
        Optional<RunRecord> waiting = waiting(new RunRecord.Filter(null, null, null, null, null, 1));
        if (waiting.isPresent() && waiting.get().id().equals(id)) {
            return waiting;
        }
        try {
            return history.run(id);
        } catch (RuntimeException e) {
            throw new ModelException(e.getMessage());
        }
    }

    /** Waits until no run is queued or running (tests, shutdown); returns whether that happened in time. */
    public boolean awaitIdle(java.time.Duration timeout) {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (active > 0) {
                if (remaining <= 0) {
                    return false;
                }
                remaining = idle.awaitNanos(remaining);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        DaemonThreads.stop(executor, Duration.ofSeconds(30));
    }

    private long micros() {
        return EpochMicros.now(clock);
    }

    /** A run not started yet; triggers coalesce into it. */
    private static final class PendingRun {
        final String id;
        final Trigger trigger;
        final long queuedAtMicros;
        final List<Trigger> triggers = new ArrayList<>();
        final Set<String> models = new HashSet<>();
        /** The trace ids of the flushes coalesced into the run; guarded by the runner's lock. */
        TraceIds traces = TraceIds.NONE;

        PendingRun(String id, Trigger trigger, long queuedAtMicros) {
            this.id = id;
            this.trigger = trigger;
            this.queuedAtMicros = queuedAtMicros;
            triggers.add(trigger);
        }
    }
}
