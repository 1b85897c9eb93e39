package dev.interlace.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.tracing.Tracing;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** Tracing is off unless an exporter is named, and the runtime finds the provider on the class path. */
class OpenTelemetryTracingProviderTest {

    @Test
    void tracingIsOffUntilAnExporterIsNamed() {
        assertThat(OpenTelemetryTracingProvider.tracing(name -> null)).isNull();
        assertThat(OpenTelemetryTracingProvider.tracing(Map.of("otel.traces.exporter", "none")::get)).isNull();
        assertThat(OpenTelemetryTracingProvider.tracing(Map.of("otel.traces.exporter", "otlp",
                "otel.sdk.disabled", "true")::get)).isNull();
        Tracing tracing = OpenTelemetryTracingProvider.tracing(Map.of("otel.traces.exporter", "otlp")::get);
        try {
            assertThat(tracing).isInstanceOf(OpenTelemetryTracing.class);
        } finally {
            tracing.close();
        }
    }

    @Test
    void theRuntimeFindsTheProviderAndLeavesTracingOffWithoutTheEnvironment() {
        assertThat(ServiceLoader.load(Tracing.Provider.class, getClass().getClassLoader()).stream()
                .map(ServiceLoader.Provider::type)).containsExactly(OpenTelemetryTracingProvider.class);
        boolean configured = System.getenv("OTEL_TRACES_EXPORTER") != null
                || System.getProperty("otel.traces.exporter") != null;
        Tracing found = Tracing.fromClassPath(getClass().getClassLoader());
        if (configured) {
            assertThat(found).isInstanceOf(OpenTelemetryTracing.class);
            found.close();
        } else {
            assertThat(found).isSameAs(Tracing.NONE);
        }
    }
}
