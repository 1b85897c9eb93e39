package dev.interlace.runtime.tracing;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;

/** Binds the server's {@link Tracing}. */
public final class TracingModule extends AbstractModule {

    /**
     * Where the server reports its spans: a tracer a module on the class path offers and turns on (e.g.
     * {@code interlace-opentelemetry}, by the {@code OTEL_*} environment), else none. Override the binding to trace
     * into a tracer of your own.
     */
    @Provides
    @Singleton
    Tracing tracing() {
        return Tracing.fromClassPath(Thread.currentThread().getContextClassLoader());
    }
}
