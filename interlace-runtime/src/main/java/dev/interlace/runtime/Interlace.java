package dev.interlace.runtime;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Module;
import com.google.inject.util.Modules;
import dev.interlace.runtime.auth.AuthModule;
import dev.interlace.runtime.cluster.ClusterModule;
import dev.interlace.runtime.config.ConfigException;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.config.LogOptions;
import dev.interlace.runtime.flush.FlushModule;
import dev.interlace.runtime.http.HttpModule;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.log.LogBackendFactory;
import dev.interlace.runtime.log.LogModule;
import dev.interlace.runtime.model.ModelModule;
import dev.interlace.runtime.model.ModelRunner;
import dev.interlace.runtime.ops.DataDirectoryLock;
import dev.interlace.runtime.ops.Metrics;
import dev.interlace.runtime.health.HealthModule;
import dev.interlace.runtime.ops.OpsModule;
import dev.interlace.runtime.queryprocess.QueryProcessModule;
import dev.interlace.runtime.records.RecordsModule;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.tracing.TracingModule;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A running Interlace server: the data directory locked, the log open, every declared stream registered and the HTTP
 * API listening. Start one with {@link #builder()}; {@link #close()} drains requests in flight and closes the log.
 *
 * <pre>{@code
 * try (Interlace server = Interlace.builder().config(config).start()) {
 *     URI uri = server.uri();
 *     ...
 * }
 * }</pre>
 */
public final class Interlace implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Interlace.class.getName());
    private static final int DRAIN_SECONDS = 10;

    private final InterlaceConfig config;
    private final DataDirectoryLock lock;
    private final Injector injector;
    private final Lifecycle lifecycle;
    private final int port;
    private boolean closed;

    private Interlace(InterlaceConfig config, DataDirectoryLock lock, Injector injector, Lifecycle lifecycle,
            int port) {
        this.config = config;
        this.lock = lock;
        this.injector = injector;
        this.lifecycle = lifecycle;
        this.port = port;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The port the API listens on (the real one when the configured port was 0). */
    public int port() {
        return port;
    }

    /** The API's base URI, e.g. {@code http://127.0.0.1:8000}. */
    public URI uri() {
        String host = config.bind().contains(":") ? "[" + config.bind() + "]" : config.bind();
        return URI.create((config.exposure().tls() ? "https://" : "http://") + host + ":" + port);
    }

    /** The configuration it runs with. */
    public InterlaceConfig config() {
        return config;
    }

    /** Which executor runs HTTP handlers. */
    public String httpExecutor() {
        return lifecycle.http().executorDescription();
    }

    /**
     * An instance from the server's object graph, e.g. the {@link dev.interlace.runtime.log.StreamLog}: for tests and embedders; the server's
     * own components are constructor-injected into {@link Lifecycle}.
     */
    public <T> T instance(Class<T> type) {
        return injector.getInstance(type);
    }

    /**
     * Stops accepting requests, lets those in flight finish, flushes what the log holds beyond the watermarks (for up
     * to {@value #DRAIN_SECONDS} s), closes the warehouse and the log and releases the data directory.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        lifecycle.close(DRAIN_SECONDS);
        try {
            lock.close();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "releasing the data directory lock failed", e);
        }
    }

    /** The model runner, when there is a warehouse to run models in. */
    public Optional<ModelRunner> models() {
        return lifecycle.models();
    }

    /**
     * The module of the log backend {@code --log} names, found with {@code ServiceLoader}; none for the SQLite log,
     * which {@link LogModule} binds.
     */
    private static List<Module> logBackend(InterlaceConfig config) {
        String name = config.log().backend();
        if (name.equals(LogOptions.SQLITE)) {
            return List.of();
        }
        for (LogBackendFactory factory : ServiceLoader.load(LogBackendFactory.class,
                Thread.currentThread().getContextClassLoader())) {
            if (factory.name().equals(name)) {
                return List.of(factory.module(config));
            }
        }
        throw new ConfigException("--log " + name + " needs the interlace-log-" + name + " module on the class path");
    }

    /** Configures and starts a server. */
    public static final class Builder {

        private InterlaceConfig config = InterlaceConfig.defaults();
        private StreamCatalog catalog;
        private final List<Module> overrides = new ArrayList<>();

        private Builder() {}

        public Builder config(InterlaceConfig value) {
            this.config = Objects.requireNonNull(value, "config");
            return this;
        }

        /**
         * The streams to serve; by default every registry on the class path. Streams given here (and modules given
         * to {@link #override} or {@link #meterRegistry}) are this JVM's only, so a query process, which finds its
         * streams on the class path, cannot serve them: {@code POST /sql} then runs in the server's warehouse
         * ({@code --sql-isolation inline}).
         */
        public Builder catalog(StreamCatalog value) {
            this.catalog = Objects.requireNonNull(value, "catalog");
            return this;
        }

        /**
         * Registers the server's meters in {@code registry} (an embedding application's) instead of a Prometheus
         * registry of its own; the JVM's meters are left to the application, and {@code GET /metrics} answers them
         * only when {@code registry} is a Prometheus registry.
         */
        public Builder meterRegistry(MeterRegistry registry) {
            Objects.requireNonNull(registry, "registry");
            overrides.add(binder -> {
                binder.bind(MeterRegistry.class).toInstance(registry);
                binder.bind(Metrics.class).toInstance(new Metrics(registry, false));
            });
            return this;
        }

        /** Replaces bindings of the default modules (tests bind fault-injecting listeners this way). */
        public Builder override(Module... modules) {
            overrides.addAll(List.of(modules));
            return this;
        }

        /**
         * Starts the server.
         *
         * @throws UncheckedIOException wrapping a {@link DataDirectoryLock.LockedException} when another server
         *     uses the data directory
         */
        public Interlace start() {
            StreamCatalog streams = catalog != null ? catalog
                    : StreamCatalog.load(Thread.currentThread().getContextClassLoader());
            // A query process finds its streams and models on the class path and its settings in flags: a catalog or
            // modules given in code are this JVM's only, so queries run in the server's warehouse then.
            InterlaceConfig config = catalog == null && overrides.isEmpty() ? this.config
                    : this.config.withSqlIsolation(dev.interlace.runtime.config.SqlIsolation.INLINE);
            DataDirectoryLock lock;
            try {
                lock = DataDirectoryLock.acquire(config.dataDirectory());
            } catch (IOException e) {
                throw new UncheckedIOException(e.getMessage(), e);
            }
            try {
                Module defaults = Modules.combine(new CoreModule(config, streams), new OpsModule(), new HealthModule(),
                        new AuthModule(), new RecordsModule(), new TracingModule(), new LogModule(), new FlushModule(),
                        new ModelModule(), new HttpModule(), new ClusterModule(), new QueryProcessModule());
                Injector injector = Guice.createInjector(Modules.override(
                        Modules.override(defaults).with(logBackend(config))).with(overrides));
                // The one lookup: every component reaches the lifecycle by constructor injection.
                Lifecycle lifecycle = injector.getInstance(Lifecycle.class);
                int port = lifecycle.start();
                return new Interlace(config, lock, injector, lifecycle, port);
            } catch (IOException | RuntimeException e) {
                try {
                    lock.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
                if (e instanceof IOException io) {
                    throw new UncheckedIOException("cannot start: " + io.getMessage(), io);
                }
                throw (RuntimeException) e;
            }
        }
    }
}
