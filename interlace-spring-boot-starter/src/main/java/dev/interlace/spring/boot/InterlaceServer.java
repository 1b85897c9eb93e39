package dev.interlace.spring.boot;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.status.Readiness;
import dev.interlace.runtime.stream.StreamCatalog;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.context.SmartLifecycle;

/**
 * The Interlace server of a Spring application, started and stopped with the application context.
 *
 * <p>It starts before the application's web server and stops after it (a lower {@linkplain #getPhase() phase}): the
 * application's own requests that publish are finished before Interlace stops taking publishes. Stopping does what
 * {@code serve} does on SIGTERM: lets requests in flight finish, flushes what the log holds, closes the log.
 */
public class InterlaceServer implements SmartLifecycle {

    /** Before the web server's start (and after its graceful shutdown). */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final InterlaceConfig config;
    private final StreamCatalog catalog;
    private final ClassLoader classLoader;
    private final Supplier<Optional<MeterRegistry>> meterRegistry;
    private volatile Interlace server;

    /**
     * @param classLoader the application's class loader: inside an executable jar it is the one that sees the
     *     nested jars, where the SQL models under {@code models/} and the model registries are found
     * @param meterRegistry the application's registry, asked for at start; empty: a registry of the server's own
     */
    public InterlaceServer(InterlaceConfig config, StreamCatalog catalog, ClassLoader classLoader,
            Supplier<Optional<MeterRegistry>> meterRegistry) {
        this.config = config;
        this.catalog = catalog;
        this.classLoader = classLoader;
        this.meterRegistry = meterRegistry;
    }

    @Override
    public synchronized void start() {
        if (server != null) {
            return;
        }
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        // The runtime finds SQL models, model registries and log backends through the context class loader.
        thread.setContextClassLoader(classLoader);
        try {
            Interlace.Builder builder = Interlace.builder().config(config).catalog(catalog);
            meterRegistry.get().ifPresent(builder::meterRegistry);
            server = builder.start();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    @Override
    public synchronized void stop() {
        Interlace running = server;
        if (running != null) {
            running.close();
            server = null;
        }
    }

    @Override
    public boolean isRunning() {
        return server != null;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** The running server. */
    public Interlace interlace() {
        Interlace running = server;
        if (running == null) {
            throw new IllegalStateException("Interlace is not running (the application context has not started it,"
                    + " or has stopped it)");
        }
        return running;
    }

    /** The API's base URI, e.g. {@code http://127.0.0.1:8000}. */
    public URI uri() {
        return interlace().uri();
    }

    /** The port the API listens on (the real one when {@code interlace.port} is 0). */
    public int port() {
        return interlace().port();
    }

    /** Whether it can take publishes now; empty while it is not running. */
    public Optional<Readiness.Report> readiness() {
        Interlace running = server;
        return running == null ? Optional.empty() : Optional.of(running.instance(Readiness.class).check());
    }
}
