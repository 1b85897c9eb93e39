package dev.interlace.runtime.health;

import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.records.SysEvent;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Where the process's long-lived components (the log's writer, the flusher, the sequencers, ...) say that they
 * failed and, where they restart themselves, that they recovered; what {@code /health/live} and {@code /health/ready}
 * read.
 *
 * <p>A failure is never silent: it is logged, written as a {@code component_failed} system record and listed by both
 * health routes. A component that serves publishes and has not recovered {@link #exitAfter} after it failed (at once
 * for one that cannot restart, {@link Fate#DEAD}, after the same grace) ends the process with
 * {@value #EXIT_STATUS}, so that a supervisor starts a healthy one; the grace lets the health routes and the record
 * say why first, and lets a component that restarts itself with backoff recover. Nothing acknowledged is lost by
 * exiting: acknowledged events are durable already. Errors of the virtual machine itself do not come here: they
 * end the process at once ({@link dev.interlace.runtime.ops.FatalErrors}).
 */
public final class ComponentHealth implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ComponentHealth.class.getName());

    /** The exit status after a component that serves publishes failed and did not recover. */
    public static final int EXIT_STATUS = 4;

    /** How long a failed component that serves publishes may stay failed before the process exits, by default. */
    public static final Duration DEFAULT_EXIT_AFTER = Duration.ofSeconds(10);

    /** The long-lived components, and whether publishes stop being served when one fails. */
    public enum Component {
        LOG_WRITER("log-writer", true),
        LOG_ACK("log-ack", true),
        FLUSHER("flusher", true),
        DEDUP_SEALER("dedup-sealer", true),
        KAFKA_SEQUENCER("kafka-sequencer", true),
        KAFKA_TAILER("kafka-tailer", true),
        KAFKA_WATCHDOG("kafka-watchdog", true),
        KAFKA_STANDBY("kafka-standby", false),
        MODEL_RUNNER("model-runner", false),
        RETENTION_SWEEP("retention-sweep", false),
        /** The process {@code POST /sql} queries run in ({@code --sql-isolation process}). */
        QUERY_PROCESS("query-process", false);

        private final String label;
        private final boolean servesPublishes;

        Component(String label, boolean servesPublishes) {
            this.label = label;
            this.servesPublishes = servesPublishes;
        }

        /** The name in health answers and system records. */
        public String label() {
            return label;
        }

        /** Whether its failure stops publishes from being served (and so fails {@code /health/live}). */
        public boolean servesPublishes() {
            return servesPublishes;
        }
    }

    /** What becomes of a failed component. */
    public enum Fate {
        /** It retries on its own, with backoff; {@link #recovered} clears the failure. */
        RESTARTING,
        /** Its thread is gone: only a new process brings it back. */
        DEAD
    }

    /**
     * One component that failed and has not recovered.
     *
     * @param component which
     * @param scope the stream it failed for, or null when it serves all of them
     * @param fate whether it restarts itself
     * @param cause the failure, for people
     * @param sinceMicros when it first failed, epoch microseconds
     */
    public record Failure(Component component, String scope, Fate fate, String cause, long sinceMicros) {
        /** {@code flusher (stream orders)}, {@code log-writer}. */
        public String name() {
            return component.label() + (scope == null ? "" : " (stream " + scope + ")");
        }
    }

    private record Key(Component component, String scope) {}

    private final SystemRecords records;
    private final Clock clock;
    /** Null when failures never end the process (a log or index used without a server). */
    private final Duration exitAfter;
    private final Map<Key, Failure> failures = new ConcurrentHashMap<>();
    private final ScheduledExecutorService exits;
    private volatile Integer exitStatus;

    /**
     * Failures recorded in {@code records}; one of a component that serves publishes ends the process after
     * {@code exitAfter} (never when null).
     */
    public ComponentHealth(SystemRecords records, Clock clock, Duration exitAfter) {
        this.records = records;
        this.clock = clock;
        this.exitAfter = exitAfter;
        this.exits = exitAfter == null ? null : Executors.newSingleThreadScheduledExecutor(
                DaemonThreads.named("interlace-component-exit"));
    }

    /** Failures that are only logged and listed: for a log or an index used outside a server (tools, tests). */
    public static ComponentHealth unwatched() {
        return new ComponentHealth(SystemRecords.DISCARD, Clock.systemUTC(), null);
    }

    /**
     * Says that {@code component} failed (for {@code scope}, a stream, or all streams when null); a failure already
     * reported for the same component and scope keeps its first time and is not recorded again.
     */
    public void failed(Component component, String scope, Throwable cause, Fate fate) {
        Key key = new Key(component, scope);
        String description = cause.toString();
        long now = EpochMicros.now(clock);
        Failure previous = failures.get(key);
        Failure failure = new Failure(component, scope, fate, description,
                previous == null ? now : previous.sinceMicros());
        failures.put(key, failure);
        if (previous != null && previous.fate() == fate) {
            return;
        }
        String message = failure.name() + " failed: " + description + "; " + (fate == Fate.DEAD
                ? "it cannot restart" : "it restarts with backoff")
                + (component.servesPublishes() && exitAfter != null ? "; the process exits with status "
                        + EXIT_STATUS + " if it is still failed in " + exitAfter.toMillis() + " ms" : "");
        LOG.log(Level.SEVERE, message, cause);
        records.record(SysRecord.of(now, SysEvent.COMPONENT_FAILED, scope, "component-" + component.label(), message));
        if (component.servesPublishes() && exits != null) {
            try {
                exits.schedule(() -> exitIfStillFailed(key, failure.sinceMicros()), exitAfter.toMillis(),
                        TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closing) {
                // the process is stopping anyway
            }
        }
    }

    /** Says that {@code component} serves again after a failure; does nothing when it had not failed. */
    public void recovered(Component component, String scope) {
        Failure failure = failures.remove(new Key(component, scope));
        if (failure == null) {
            return;
        }
        String message = failure.name() + " recovered after failing since "
                + java.time.Instant.ofEpochSecond(0, failure.sinceMicros() * 1_000) + ": " + failure.cause();
        LOG.info(message);
        records.record(SysRecord.of(EpochMicros.now(clock), SysEvent.COMPONENT_RECOVERED, scope,
                "component-" + component.label(), message));
    }

    /** The components failed now, oldest failure first. */
    public List<Failure> failures() {
        List<Failure> list = new ArrayList<>(failures.values());
        list.sort(Comparator.comparingLong(Failure::sinceMicros).thenComparing(Failure::name));
        return list;
    }

    /** Whether a component that serves publishes is failed now. */
    public boolean publishesFailed() {
        return failures.values().stream().anyMatch(failure -> failure.component().servesPublishes());
    }

    /** The status the process is exiting with because a component failed, if it is. */
    public OptionalInt exitStatus() {
        Integer status = exitStatus;
        return status == null ? OptionalInt.empty() : OptionalInt.of(status);
    }

    /** The failure of {@code component} for {@code scope}, if it is failed now. */
    public Optional<Failure> failure(Component component, String scope) {
        return Optional.ofNullable(failures.get(new Key(component, scope)));
    }

    private void exitIfStillFailed(Key key, long sinceMicros) {
        Failure failure = failures.get(key);
        if (failure == null || failure.sinceMicros() != sinceMicros) {
            return; // recovered meanwhile (a later failure has its own deadline)
        }
        String reason = failure.name() + " failed " + exitAfter.toMillis() + " ms ago and has not recovered ("
                + failure.cause() + "); exiting with status " + EXIT_STATUS
                + " so that a supervisor starts a healthy process";
        System.err.println("interlace: " + reason);
        LOG.severe(reason);
        records.record(SysRecord.of(EpochMicros.now(clock), SysEvent.COMPONENT_EXIT, failure.scope(),
                "component-" + failure.component().label(), reason));
        exitStatus = EXIT_STATUS;
        // Not on this thread: the shutdown closes this executor. The shutdown hooks stop the server in order.
        Thread exit = new Thread(() -> System.exit(EXIT_STATUS), "interlace-component-exit-now");
        exit.start();
    }

    @Override
    public void close() {
        if (exits != null) {
            exits.shutdownNow();
        }
    }
}
