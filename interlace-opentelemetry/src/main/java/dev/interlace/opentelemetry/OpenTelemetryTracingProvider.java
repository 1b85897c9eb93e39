package dev.interlace.opentelemetry;

import dev.interlace.runtime.tracing.Tracing;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Turns tracing on when {@code OTEL_TRACES_EXPORTER} (or the system property {@code otel.traces.exporter}) names an
 * exporter, e.g. {@code otlp}; found by the runtime with {@code ServiceLoader}. Everything else comes from the SDK's
 * autoconfiguration and the standard {@code OTEL_*} variables (endpoint, protocol, headers, sampler, resource), with
 * these defaults: the service name {@code interlace}, OTLP over HTTP ({@code http/protobuf}: the module carries the
 * JDK's HTTP sender, not gRPC's), and no metrics or logs exported (the server's metrics are at {@code GET /metrics}).
 */
public final class OpenTelemetryTracingProvider implements Tracing.Provider {

    @Override
    public Tracing tracing() {
        return tracing(OpenTelemetryTracingProvider::setting);
    }

    /** The tracer {@code settings} (property name to value, or null) ask for, or null when tracing is off. */
    static Tracing tracing(UnaryOperator<String> settings) {
        String exporter = settings.apply("otel.traces.exporter");
        if (exporter == null || exporter.isBlank() || exporter.strip().equals("none")
                || "true".equalsIgnoreCase(settings.apply("otel.sdk.disabled"))) {
            return null;
        }
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> Map.of("otel.service.name", "interlace", "otel.metrics.exporter", "none",
                        "otel.logs.exporter", "none", "otel.traces.exporter", exporter,
                        "otel.exporter.otlp.protocol", "http/protobuf"))
                .disableShutdownHook() // the server's own shutdown closes it, after the spans of its drain
                .build().getOpenTelemetrySdk();
        return new OpenTelemetryTracing(sdk, sdk::close);
    }

    /** A setting as the SDK reads it: the system property, else the environment variable of the same name. */
    private static String setting(String property) {
        String value = System.getProperty(property);
        return value != null ? value
                : System.getenv(property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
    }
}
