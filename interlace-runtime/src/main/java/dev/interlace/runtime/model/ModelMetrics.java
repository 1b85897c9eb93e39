package dev.interlace.runtime.model;

import dev.interlace.runtime.warehouse.ModelOutcome;
import dev.interlace.runtime.warehouse.RunRecord;
import dev.interlace.runtime.warehouse.RunStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Model runs as meters: how long each run took and whether it failed, and per model how long it took and how often
 * it succeeded, failed or was skipped. The meters of every model are created at start-up, so a model that never
 * failed shows a failure count of 0 rather than nothing.
 */
public final class ModelMetrics implements ModelListener {

    private final Timer succeededRuns;
    private final Timer failedRuns;
    private final Map<String, ModelMeters> models = new HashMap<>();

    public ModelMetrics(MeterRegistry registry, ModelGraph graph) {
        succeededRuns = runDuration(registry, "succeeded");
        failedRuns = runDuration(registry, "failed");
        for (ModelDefinition model : graph.inOrder()) {
            models.put(model.name(), new ModelMeters(registry, model.name()));
        }
    }

    @Override
    public void runFinished(RunRecord run) {
        Timer runs = run.status() == RunStatus.FAILED ? failedRuns : succeededRuns;
        runs.record(Math.max(0, run.finishedAtMicros() - run.startedAtMicros()), TimeUnit.MICROSECONDS);
        for (RunRecord.ModelResult result : run.models()) {
            ModelMeters meters = models.get(result.name());
            if (meters == null) {
                continue;
            }
            switch (result.status()) {
                case SUCCEEDED -> meters.succeeded.increment();
                case FAILED -> meters.failed.increment();
                default -> meters.skipped.increment();
            }
            if (result.status() != ModelOutcome.SKIPPED) {
                meters.duration.record(result.durationMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    private static Timer runDuration(MeterRegistry registry, String status) {
        return Timer.builder("interlace.model.run.duration")
                .description("Duration of model runs (one pass over the affected models), by outcome")
                .tag("status", status)
                .serviceLevelObjectives(Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
                        Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
                        Duration.ofMillis(2_500), Duration.ofSeconds(5), Duration.ofSeconds(10),
                        Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofMinutes(5))
                .register(registry);
    }

    /** One model's meters. */
    private static final class ModelMeters {
        final Timer duration;
        final Counter succeeded;
        final Counter failed;
        final Counter skipped;

        ModelMeters(MeterRegistry registry, String model) {
            duration = Timer.builder("interlace.model.duration")
                    .description("Time a model took in a run (succeeded or failed; a skipped model takes none)")
                    .tag("model", model)
                    .register(registry);
            succeeded = result(registry, model, "succeeded");
            failed = result(registry, model, "failed");
            skipped = result(registry, model, "skipped");
        }

        private static Counter result(MeterRegistry registry, String model, String status) {
            return Counter.builder("interlace.model.results")
                    .description("Models run, by outcome: succeeded, failed, or skipped because an input failed")
                    .tags("model", model, "status", status)
                    .register(registry);
        }
    }
}
