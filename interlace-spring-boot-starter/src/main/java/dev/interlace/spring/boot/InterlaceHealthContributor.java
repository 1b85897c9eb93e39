package dev.interlace.spring.boot;

import dev.interlace.runtime.status.Readiness;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Interlace under {@code /actuator/health/interlace}: {@code live} (the server runs), {@code ready} (it takes
 * publishes: what {@code GET /health/ready} answers), {@code log} (the log takes writes, else
 * {@code log_unavailable}) and {@code flush} (no stream's flush failing beyond {@code ready-flush-failing-ms}).
 */
final class InterlaceHealthContributor {

    private InterlaceHealthContributor() {}

    static CompositeHealthContributor of(InterlaceServer server) {
        Map<String, HealthContributor> indicators = new LinkedHashMap<>();
        indicators.put("live", (HealthIndicator) () -> withReport(server, InterlaceHealthContributor::live));
        indicators.put("ready", (HealthIndicator) () -> withReport(server, InterlaceHealthContributor::ready));
        indicators.put("log", (HealthIndicator) () -> withReport(server, InterlaceHealthContributor::log));
        indicators.put("flush", (HealthIndicator) () -> withReport(server, InterlaceHealthContributor::flush));
        return CompositeHealthContributor.fromMap(indicators);
    }

    private static Health withReport(InterlaceServer server, Function<Readiness.Report, Health> check) {
        Optional<Readiness.Report> report = server.readiness();
        return report.map(check).orElseGet(() -> Health.down().withDetail("reason", "not running").build());
    }

    /** Down while a component that serves publishes has failed and not recovered, as {@code /health/live} is. */
    static Health live(Readiness.Report report) {
        List<String> failed = report.failedPublishComponents().stream()
                .map(failure -> failure.name() + ": " + failure.cause()).toList();
        return failed.isEmpty() ? Health.up().build()
                : Health.down().withDetail("reason", "component_failed").withDetail("components", failed).build();
    }

    static Health ready(Readiness.Report report) {
        Health.Builder health = report.ready() ? Health.up() : Health.down();
        return health.withDetail("free_disk_bytes", report.freeDiskBytes())
                .withDetail("min_free_disk_bytes", report.minFreeDiskBytes())
                .withDetail("log_writable", report.logWritable())
                .withDetail("flush_failing", report.flushFailing().stream().map(Readiness.FailingFlush::stream).toList())
                .withDetail("failed_components", report.failedComponents().stream()
                        .map(failure -> failure.name()).toList())
                .build();
    }

    static Health log(Readiness.Report report) {
        return report.logWritable() ? Health.up().build()
                : Health.down().withDetail("reason", "log_unavailable").withDetail("problem", report.logProblem())
                        .build();
    }

    static Health flush(Readiness.Report report) {
        List<Map<String, Object>> failing = report.flushFailing().stream().map(f -> Map.<String, Object>of(
                "stream", f.stream(), "since", Instant.ofEpochSecond(0, f.sinceMicros() * 1_000L).toString(),
                "error", String.valueOf(f.error()))).toList();
        Health.Builder health = failing.isEmpty() ? Health.up() : Health.down().withDetail("reason", "flush_failing");
        return health.withDetail("failing", failing)
                .withDetail("failing_below_threshold", report.flushFailingBelowThreshold()).build();
    }
}
