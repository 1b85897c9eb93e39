package dev.interlace.log.kafka;

import dev.interlace.runtime.ops.ComponentHealth;
import dev.interlace.runtime.ops.FatalErrors;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a node that may sequence streams does in rounds, each on a daemon thread of its own, a failed round reported
 * to {@link ComponentHealth} and run again: the watchdog (a tailer that died, this node's candidacy and sequencers)
 * and the upkeep of the standby deduplication segments of the keyed streams it may take over.
 */
final class SequencingRounds {

    private static final Logger LOG = Logger.getLogger(SequencingRounds.class.getName());
    /** How often the watchdog looks at the tailer and this node's sequencers. */
    private static final Duration WATCH_PERIOD = Duration.ofMillis(500);

    private final StreamViews views;
    private final Topics topics;
    private final Readers readers;
    private final Tailer tailer;
    private final SequencerIndexes indexes;
    private final SequencerPlacement placement;
    private final Candidacy candidacy;
    private final ComponentHealth components;
    /** Whether the log is closing: no round starts anything new then. */
    private final BooleanSupplier closed;
    private final ScheduledExecutorService standby;
    private final ScheduledExecutorService watchdog;

    /** Starts both, the standby runs {@code standbyPeriod} apart. */
    SequencingRounds(StreamViews views, Topics topics, Readers readers, Tailer tailer, SequencerIndexes indexes,
            SequencerPlacement placement, Candidacy candidacy, ComponentHealth components, BooleanSupplier closed,
            Duration standbyPeriod) {
        this.views = views;
        this.topics = topics;
        this.readers = readers;
        this.tailer = tailer;
        this.indexes = indexes;
        this.placement = placement;
        this.candidacy = candidacy;
        this.components = components;
        this.closed = closed;
        this.standby = start("interlace-kafka-standby", Thread.NORM_PRIORITY - 1, standbyPeriod,
                ComponentHealth.Component.KAFKA_STANDBY, this::standbyRound);
        this.watchdog = start("interlace-kafka-watchdog", Thread.NORM_PRIORITY, WATCH_PERIOD,
                ComponentHealth.Component.KAFKA_WATCHDOG, this::watch);
    }

    private ScheduledExecutorService start(String threadName, int priority, Duration period,
            ComponentHealth.Component component, Runnable round) {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            thread.setPriority(priority);
            return thread;
        });
        executor.scheduleWithFixedDelay(() -> reportingErrors(component, round), period.toMillis(),
                period.toMillis(), TimeUnit.MILLISECONDS);
        return executor;
    }

    /**
     * Runs one round: an error escaping it would end its schedule silently, so out of memory ends the process and any
     * other error is reported and the round runs again at the next period.
     */
    private void reportingErrors(ComponentHealth.Component component, Runnable round) {
        try {
            round.run();
            components.recovered(component, null);
        } catch (Error e) {
            FatalErrors.exitIfFatal(e);
            components.failed(component, null, e, ComponentHealth.Fate.RESTARTING);
        }
    }

    /**
     * One look at every keyed stream this node follows without sequencing it (see {@link SequencerIndexes#standby}),
     * including one whose registration is still catching up with its events: a node that never followed a stream
     * builds its segments from the key blocks while its tailer reads the events, so that its takeover reads only the
     * blocks written since, instead of building every segment after the catch-up.
     */
    private void standbyRound() {
        for (StreamView view : views.all()) {
            if (closed.getAsBoolean()) {
                return;
            }
            // Its topics exist once the tailer follows them (a route).
            if (view.keyed() && !placement.sequences(view.name)
                    && views.streamOf(topics.events(view.name).topic()) != null) {
                indexes.standby(view, new KeyBlockTopic(view, topics, readers));
            }
        }
    }

    /**
     * The watchdog's round: reports a tailer that died, lets streams this node caught up with make it a candidate
     * ({@link Candidacy#check}) and looks at this node's sequencers ({@link SequencerPlacement#watch}).
     */
    private void watch() {
        RuntimeException tailerFailure = tailer.failure();
        if (tailerFailure != null && !closed.getAsBoolean()) {
            components.failed(ComponentHealth.Component.KAFKA_TAILER, null, tailerFailure, ComponentHealth.Fate.DEAD);
        }
        try {
            candidacy.check();
            placement.watch();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the Kafka log's watchdog round failed", e);
        }
    }

    /** Starts no more rounds; the one under way is interrupted. */
    void stop() {
        watchdog.shutdownNow();
        standby.shutdownNow();
    }

    /** Waits for a standby run under way to end (closing the indexes ends it at its next group of keys). */
    void awaitStopped() {
        try {
            standby.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
