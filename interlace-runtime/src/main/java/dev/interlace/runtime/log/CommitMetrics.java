package dev.interlace.runtime.log;

import com.google.inject.Inject;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The log's group commits as meters: how many (each one fsync), how long the commit took and how many requests and
 * entries each one carried. Called on the writer thread only, once per group, never per request.
 */
public final class CommitMetrics implements CommitListener {

    private final Counter commits;
    private final Timer duration;
    private final DistributionSummary requests;
    private final DistributionSummary entries;
    /** When the current group's commit started; only the writer thread touches it. */
    private long commitStartedNanos;

    @Inject
    public CommitMetrics(MeterRegistry registry) {
        commits = Counter.builder("interlace.log.commits")
                .description("Group commits of published events to the log; each one is one fsync")
                .register(registry);
        duration = Timer.builder("interlace.log.commit.duration")
                .description("Time to commit one group, the fsync included")
                .serviceLevelObjectives(millis(0.25), millis(0.5), millis(1), millis(2.5), millis(5), millis(10),
                        millis(25), millis(50), millis(100), millis(250), millis(1000))
                .register(registry);
        requests = DistributionSummary.builder("interlace.log.group.requests")
                .description("Publish requests committed together in one group")
                .serviceLevelObjectives(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
                .register(registry);
        entries = DistributionSummary.builder("interlace.log.group.entries")
                .description("Entries (accepted, duplicate and quarantined events) committed together in one group")
                .serviceLevelObjectives(1, 10, 100, 1_000, 10_000, 100_000, 1_000_000)
                .register(registry);
    }

    @Override
    public void beforeCommit(int groupRequests, int groupEntries) {
        commitStartedNanos = System.nanoTime();
    }

    @Override
    public void afterCommit(int groupRequests, int groupEntries) {
        duration.record(System.nanoTime() - commitStartedNanos, TimeUnit.NANOSECONDS);
        commits.increment();
        requests.record(groupRequests);
        entries.record(groupEntries);
    }

    private static Duration millis(double value) {
        return Duration.ofNanos((long) (value * 1_000_000));
    }
}
