package dev.interlace.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.tracing.Tracing;
import dev.interlace.runtime.testing.Eventually;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spans a real server exports through the OpenTelemetry SDK (into its in-memory exporter): the publish continues
 * the caller's trace and holds the fsync; the flush and the model run it triggered are linked to the publish span.
 */
class OpenTelemetryTracingTest {

    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CALLER_SPAN = "00f067aa0ba902b7";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dataDirectory;

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();
    private final HttpClient client = HttpClient.newHttpClient();
    private Interlace server;

    @BeforeEach
    void start() {
        String[] flags = {"--port", "0", "--data-dir", dataDirectory.toString()};
        server = Interlace.builder().config(ConfigLoader.load(flags, Map.of()).config())
                .override(binder -> binder.bind(Tracing.class).toInstance(new OpenTelemetryTracing(sdk)))
                .start();
    }

    @AfterEach
    void stop() {
        server.close();
        sdk.close();
    }

    @Test
    void aPublishContinuesTheCallersTraceAndItsFlushAndModelRunLinkToIt() throws Exception {
        HttpResponse<String> answer = publish("00-" + TRACE + "-" + CALLER_SPAN + "-01", "traced-1",
                "[{\"order_id\":\"a\",\"total\":\"2.50\"},{\"order_id\":\"b\",\"total\":\"1.00\"}]");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);

        SpanData publish = awaitSpan(span -> span.getName().equals("interlace.publish"));
        assertThat(publish.getTraceId()).isEqualTo(TRACE);
        assertThat(publish.getParentSpanId()).as("the caller's span").isEqualTo(CALLER_SPAN);
        assertThat(publish.getParentSpanContext().isRemote()).isTrue();
        assertThat(publish.getKind()).isEqualTo(SpanKind.SERVER);
        assertThat(publish.getAttributes().get(OpenTelemetryTracing.STREAM)).isEqualTo("traced_orders");
        assertThat(publish.getAttributes().get(OpenTelemetryTracing.REQUEST_ID)).isEqualTo("traced-1");
        assertThat(publish.getAttributes().get(OpenTelemetryTracing.STATUS_CODE)).isEqualTo(200L);
        assertThat(publish.getAttributes().get(OpenTelemetryTracing.ACCEPTED)).isEqualTo(2L);

        SpanData fsync = awaitSpan(span -> span.getName().equals("interlace.fsync"));
        assertThat(fsync.getTraceId()).isEqualTo(TRACE);
        assertThat(fsync.getParentSpanId()).as("a child of the publish").isEqualTo(publish.getSpanId());
        assertThat(fsync.getStartEpochNanos()).isGreaterThanOrEqualTo(publish.getStartEpochNanos());
        assertThat(fsync.getEndEpochNanos()).isLessThanOrEqualTo(publish.getEndEpochNanos());

        SpanContext publishContext = publish.getSpanContext();
        SpanData flush = awaitSpan(span -> span.getName().equals("interlace.flush"));
        assertThat(flush.getTraceId()).as("a trace of its own").isNotEqualTo(TRACE);
        assertThat(flush.getParentSpanContext().isValid()).isFalse();
        assertThat(flush.getLinks()).extracting(LinkData::getSpanContext).containsExactly(publishContext);
        assertThat(flush.getAttributes().get(OpenTelemetryTracing.ROWS)).isEqualTo(2L);
        assertThat(flush.getAttributes().get(OpenTelemetryTracing.TRACE_COUNT)).isEqualTo(1L);

        // Not the run at start-up (the model's table did not exist yet): the one the flush triggered.
        SpanData run = awaitSpan(span -> span.getName().equals("interlace.model_run")
                && span.getAttributes().get(OpenTelemetryTracing.TRACE_COUNT) > 0);
        assertThat(run.getLinks()).extracting(LinkData::getSpanContext).containsExactly(publishContext);
        assertThat(run.getAttributes().get(OpenTelemetryTracing.MODELS)).containsExactly("traced_order_totals");
        assertThat(run.getAttributes().get(OpenTelemetryTracing.RUN_STATUS)).isEqualTo("succeeded");
    }

    @Test
    void aMalformedTraceparentStartsANewTraceWhoseIdThePublishRecordKeeps() throws Exception {
        HttpResponse<String> answer = publish("00-" + TRACE.toUpperCase() + "-" + CALLER_SPAN + "-01", "malformed-1",
                "{\"order_id\":\"m\",\"total\":\"1.00\"}");
        assertThat(answer.statusCode()).as("never an error").isEqualTo(200);

        SpanData publish = awaitSpan(span -> span.getName().equals("interlace.publish"));
        assertThat(publish.getTraceId()).isNotEqualTo(TRACE).isNotEqualTo(TRACE.toUpperCase());
        assertThat(publish.getParentSpanContext().isValid()).as("a root span").isFalse();
        JsonNode correlation = JSON.readTree(get("/correlate?request_id=malformed-1").body());
        assertThat(correlation.get("publish").get("trace_id").asText()).as("the exported trace is the stored one")
                .isEqualTo(publish.getTraceId());
        SpanData fsync = awaitSpan(span -> span.getName().equals("interlace.fsync"));
        assertThat(fsync.getParentSpanId()).isEqualTo(publish.getSpanId());
    }

    /** Waits (up to 60 s: the flush and the run follow the publish) for a span {@code matching}. */
    private SpanData awaitSpan(Predicate<SpanData> matching) throws InterruptedException {
        return Eventually.get("a matching span", Duration.ofSeconds(60),
                () -> exporter.getFinishedSpanItems().stream().filter(matching).findFirst(), Optional::isPresent)
                .orElseThrow();
    }

    private List<String> names() {
        return exporter.getFinishedSpanItems().stream().map(SpanData::getName).toList();
    }

    private HttpResponse<String> publish(String traceparent, String requestId, String body)
            throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(server.uri() + "/streams/traced_orders"))
                .header("traceparent", traceparent).header("X-Request-Id", requestId)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(server.uri() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
