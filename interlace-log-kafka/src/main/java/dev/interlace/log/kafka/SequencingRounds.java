package dev.interlace.log.kafka;

import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.ops.FatalErrors;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What a node that may sequence streams does in rounds, each on a daemon thread of its own, a failed round reported
 * to {@link ComponentHealth} and run again: the watchdog ({@link SequencerPlacement#watch}) and the upkeep of the
 * standby deduplication segments of the keyed streams it may take over ({@link SequencerPlacement#standbyRound}).
 */
final class SequencingRounds {

    /** How often the watchdog looks at the tailer and this node's sequencers. */
    private static final Duration WATCH_PERIOD = Duration.ofMillis(500);

    private final ComponentHealth components;
    private final ScheduledExecutorService standby;
    private final ScheduledExecutorService watchdog;

    /** Starts both, the standby rounds {@code standbyPeriod} apart. */
    SequencingRounds(SequencerPlacement placement, ComponentHealth components, Duration standbyPeriod) {
        this.components = components;
        this.standby = start("interlace-kafka-standby", Thread.NORM_PRIORITY - 1, standbyPeriod,
                ComponentHealth.Component.KAFKA_STANDBY, placement::standbyRound);
        this.watchdog = start("interlace-kafka-watchdog", Thread.NORM_PRIORITY, WATCH_PERIOD,
                ComponentHealth.Component.KAFKA_WATCHDOG, () -> placement.watch(components));
    }

    private ScheduledExecutorService start(String threadName, int priority, Duration period,
            ComponentHealth.Component component, Runnable round) {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(
                DaemonThreads.named(threadName, priority));
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

    /** Starts no more rounds; the one under way is interrupted. */
    void stop() {
        watchdog.shutdownNow();
        standby.shutdownNow();
    }

    /** Waits for a standby run under way to end (closing the indexes ends it at its next group of keys). */
    void awaitStopped() {
        DaemonThreads.awaitTermination(standby, Duration.ofSeconds(30));
    }
}
