package dev.interlace.runtime.tracing;

import dev.interlace.runtime.ops.TraceParent;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.RunRecord;
import java.util.ServiceLoader;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Where the server reports its work to a tracer: each publish (and, inside it, the wait for the log's durable
 * commit), each flush batch and each model run, as they end, with their times.
 *
 * <p>The runtime holds no tracer of its own and depends on no tracing library: a module on the class path may offer
 * one ({@link Provider}, found with {@code ServiceLoader}; {@code interlace-opentelemetry} exports spans through the
 * OpenTelemetry SDK). Without one, {@link #NONE} only decides a publish's trace id, as a tracer would: the caller's,
 * from a valid {@code traceparent}, or its own ({@link TraceParent#traceIdOf(String, String)}).
 */
public interface Tracing extends AutoCloseable {

    /** No tracer: trace ids are kept in the records, nothing is exported. */
    Tracing NONE = new Tracing() {};

    /**
     * A publish begins (its body was read and is about to be decoded).
     *
     * @param receivedAtMicros when the request arrived
     * @param traceparent the request's {@code traceparent} header, or null
     * @param tracestate its {@code tracestate} header, or null
     * @return the publish's trace, whose id its publish record keeps
     */
    default PublishTrace publishStarted(String stream, String requestId, long receivedAtMicros, String traceparent,
            String tracestate) {
        return PublishTrace.untraced(TraceParent.traceIdOf(traceparent, requestId));
    }

    /** A flush batch committed; {@code record} holds its times and its requests' trace ids. */
    default void flushed(FlushRecord record) {}

    /** A model run finished; {@code run} holds its times, its models and the trace ids of its flushes. */
    default void ran(RunRecord run) {}

    /** Sends what is still buffered and stops; called last when the server stops. */
    @Override
    default void close() {}

    /** One publish as a tracer follows it; every method is called at most once, from any thread. */
    interface PublishTrace {

        /** The W3C trace id of the publish (32 lowercase hex digits). */
        String traceId();

        /**
         * The log took the request's events at {@code handedOverMicros} and confirmed them durable (committed with
         * its fsync, or its Kafka transaction) at {@code durableAtMicros}.
         */
        default void logged(long handedOverMicros, long durableAtMicros) {}

        /**
         * The publish is answered with {@code status}; {@code events} says how its events fared, null when none was
         * stored (the request was refused, or failed unexpectedly).
         */
        default void answered(int status, EventCounts events) {}

        /** A trace that only has an id. */
        static PublishTrace untraced(String traceId) {
            return () -> traceId;
        }
    }

    /** How a publish's events fared: accepted, deduplicated (acknowledged before) and quarantined. */
    record EventCounts(long accepted, long deduplicated, long quarantined) {}

    /** Offers a tracer from a module on the class path ({@code META-INF/services/...Tracing$Provider}). */
    interface Provider {

        /** This module's tracer as its configuration (e.g. the environment) asks for, or null when it is off. */
        Tracing tracing();
    }

    /** The first tracer a provider on the class path turns on, else {@link #NONE}; one that fails is skipped. */
    static Tracing fromClassPath(ClassLoader loader) {
        for (Provider provider : ServiceLoader.load(Provider.class, loader)) {
            try {
                Tracing tracing = provider.tracing();
                if (tracing != null) {
                    return tracing;
                }
            } catch (RuntimeException | LinkageError e) {
                Logger.getLogger(Tracing.class.getName()).log(Level.WARNING, "the tracer of "
                        + provider.getClass().getName() + " could not be started; spans are not exported", e);
            }
        }
        return NONE;
    }
}
