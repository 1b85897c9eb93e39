package dev.interlace.opentelemetry;

import dev.interlace.runtime.ops.TraceIds;
import dev.interlace.runtime.ops.TraceParent;
import dev.interlace.runtime.tracing.Tracing;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.RunRecord;
import dev.interlace.runtime.warehouse.RunStatus;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The server's spans through an OpenTelemetry tracer: {@code interlace.publish} (a server span continuing the
 * request's {@code traceparent}) with its child {@code interlace.fsync} (from the hand-off to the log to the durable
 * commit), and, each in a trace of its own, {@code interlace.flush} and {@code interlace.model_run}, linked to the
 * publish spans of the requests they materialised.
 *
 * <p>Spans are made when the work is over, with the times the server measured. A flush or run record names its
 * requests by trace id only; the publish span of each is remembered here, for the last {@value #REMEMBERED_TRACES}
 * traces, so that a link can name it. A trace published before a restart, on another node of a cluster, or that long
 * ago, is counted on the span ({@code interlace.trace_count}) but not linked.
 */
public final class OpenTelemetryTracing implements Tracing {

    /** The instrumentation scope the spans are made under. */
    public static final String SCOPE = "dev.interlace";

    static final int REMEMBERED_TRACES = 4096;

    static final AttributeKey<String> STREAM = AttributeKey.stringKey("interlace.stream");
    static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("interlace.request_id");
    static final AttributeKey<Long> STATUS_CODE = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<Long> ACCEPTED = AttributeKey.longKey("interlace.events.accepted");
    static final AttributeKey<Long> DEDUPLICATED = AttributeKey.longKey("interlace.events.deduplicated");
    static final AttributeKey<Long> QUARANTINED = AttributeKey.longKey("interlace.events.quarantined");
    static final AttributeKey<String> FLUSH_ID = AttributeKey.stringKey("interlace.flush_id");
    static final AttributeKey<String> TARGET = AttributeKey.stringKey("interlace.flush.target");
    static final AttributeKey<Long> FIRST_OFFSET = AttributeKey.longKey("interlace.flush.first_offset");
    static final AttributeKey<Long> LAST_OFFSET = AttributeKey.longKey("interlace.flush.last_offset");
    static final AttributeKey<Long> ROWS = AttributeKey.longKey("interlace.flush.rows");
    static final AttributeKey<String> RUN_ID = AttributeKey.stringKey("interlace.run_id");
    static final AttributeKey<String> TRIGGER = AttributeKey.stringKey("interlace.run.trigger");
    static final AttributeKey<String> RUN_STATUS = AttributeKey.stringKey("interlace.run.status");
    static final AttributeKey<List<String>> MODELS = AttributeKey.stringArrayKey("interlace.run.models");
    static final AttributeKey<Long> TRACE_COUNT = AttributeKey.longKey("interlace.trace_count");
    static final AttributeKey<String> LINKED_TRACE = AttributeKey.stringKey("interlace.trace_id");

    private static final TextMapGetter<Map<String, String>> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final Tracer tracer;
    private final Runnable shutdown;
    /** Trace id to the publish span last started in it; the eldest are forgotten. Guarded by itself. */
    private final Map<String, SpanContext> publishSpans = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, SpanContext> eldest) {
            return size() > REMEMBERED_TRACES;
        }
    };

    /** Spans through {@code openTelemetry}, which the caller shuts down. */
    public OpenTelemetryTracing(OpenTelemetry openTelemetry) {
        this(openTelemetry, () -> {});
    }

    /** Spans through {@code openTelemetry}; {@code shutdown} runs when the server stops. */
    OpenTelemetryTracing(OpenTelemetry openTelemetry, Runnable shutdown) {
        this.tracer = openTelemetry.getTracer(SCOPE);
        this.shutdown = shutdown;
    }

    @Override
    public PublishTrace publishStarted(String stream, String requestId, long receivedAtMicros, String traceparent,
            String tracestate) {
        Map<String, String> headers = new HashMap<>();
        if (traceparent != null) {
            headers.put("traceparent", traceparent);
        }
        if (tracestate != null) {
            headers.put("tracestate", tracestate);
        }
        // A traceparent that is not valid extracts nothing: the span starts a trace, and its id is the request's.
        Context caller = W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, HEADERS);
        Span span = tracer.spanBuilder("interlace.publish").setParent(caller).setSpanKind(SpanKind.SERVER)
                .setStartTimestamp(receivedAtMicros, TimeUnit.MICROSECONDS)
                .setAttribute(STREAM, stream).setAttribute(REQUEST_ID, requestId).startSpan();
        if (!span.getSpanContext().isValid()) {
            return PublishTrace.untraced(TraceParent.traceIdOf(traceparent, requestId)); // a no-op tracer makes no ids
        }
        // Remembered now: the flush of the request's events may commit before its answer is built.
        synchronized (publishSpans) {
            publishSpans.put(span.getSpanContext().getTraceId(), span.getSpanContext());
        }
        return new Publish(tracer, span, stream, span.getSpanContext().getTraceId());
    }

    /** One publish's span, and the tracer its fsync span is made with. */
    private record Publish(Tracer tracer, Span span, String stream, String traceId) implements PublishTrace {

        @Override
        public void logged(long handedOverMicros, long durableAtMicros) {
            tracer.spanBuilder("interlace.fsync").setParent(Context.root().with(span))
                    .setStartTimestamp(handedOverMicros, TimeUnit.MICROSECONDS).setAttribute(STREAM, stream)
                    .startSpan().end(durableAtMicros, TimeUnit.MICROSECONDS);
        }

        @Override
        public void answered(int status, Tracing.EventCounts events) {
            span.setAttribute(STATUS_CODE, (long) status);
            if (events != null) {
                span.setAttribute(ACCEPTED, events.accepted());
                span.setAttribute(DEDUPLICATED, events.deduplicated());
                span.setAttribute(QUARANTINED, events.quarantined());
            }
            if (status >= 500) {
                span.setStatus(StatusCode.ERROR);
            }
            span.end();
        }
    }

    @Override
    public void flushed(FlushRecord record) {
        SpanBuilder builder = tracer.spanBuilder("interlace.flush").setNoParent()
                .setStartTimestamp(record.startedAtMicros(), TimeUnit.MICROSECONDS)
                .setAttribute(STREAM, record.stream()).setAttribute(FLUSH_ID, record.id())
                .setAttribute(TARGET, record.target().kind()).setAttribute(FIRST_OFFSET, record.firstOffset())
                .setAttribute(LAST_OFFSET, record.lastOffset()).setAttribute(ROWS, record.rows())
                .setAttribute(TRACE_COUNT, record.traces().count());
        link(builder, record.traces());
        builder.startSpan().end(record.committedAtMicros(), TimeUnit.MICROSECONDS);
    }

    @Override
    public void ran(RunRecord run) {
        SpanBuilder builder = tracer.spanBuilder("interlace.model_run").setNoParent()
                .setStartTimestamp(run.startedAtMicros(), TimeUnit.MICROSECONDS)
                .setAttribute(RUN_ID, run.id()).setAttribute(TRIGGER, run.trigger().toString())
                .setAttribute(RUN_STATUS, run.status().wire())
                .setAttribute(MODELS, run.models().stream().map(RunRecord.ModelResult::name).toList())
                .setAttribute(TRACE_COUNT, run.traces().count());
        link(builder, run.traces());
        Span span = builder.startSpan();
        if (run.status() == RunStatus.FAILED) {
            span.setStatus(StatusCode.ERROR);
        }
        span.end(run.finishedAtMicros(), TimeUnit.MICROSECONDS);
    }

    /** Links the publish spans of {@code traces} that are remembered. */
    private void link(SpanBuilder builder, TraceIds traces) {
        synchronized (publishSpans) {
            for (String traceId : traces.ids()) {
                SpanContext publish = publishSpans.get(traceId);
                if (publish != null) {
                    builder.addLink(publish, Attributes.of(LINKED_TRACE, traceId));
                }
            }
        }
    }

    @Override
    public void close() {
        shutdown.run();
    }
}
