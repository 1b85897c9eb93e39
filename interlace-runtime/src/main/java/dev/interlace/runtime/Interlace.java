package dev.interlace.runtime;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Module;
import com.google.inject.TypeLiteral;
import com.google.inject.util.Modules;
import dev.interlace.runtime.auth.ApiKeys;
import dev.interlace.runtime.auth.AuthModule;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.config.ConfigException;
import dev.interlace.runtime.config.Exposure;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushModule;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.flush.Warehouse;
import dev.interlace.runtime.flush.RetentionSweep;
import dev.interlace.runtime.http.HttpApi;
import dev.interlace.runtime.http.HttpModule;
import dev.interlace.runtime.log.LogModule;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.model.ModelModule;
import dev.interlace.runtime.model.ModelRunner;
import dev.interlace.runtime.ops.DataDirectoryLock;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.Metrics;
import dev.interlace.runtime.ops.OpsModule;
import dev.interlace.runtime.records.Boot;
import dev.interlace.runtime.records.RecordsModule;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
    private final HttpApi http;
    private final EventLog log;
    private final Flusher flusher;
    private final int port;
    private boolean closed;

    private Interlace(InterlaceConfig config, DataDirectoryLock lock, Injector injector, HttpApi http, EventLog log,
            Flusher flusher, int port) {
        this.config = config;
        this.lock = lock;
        this.injector = injector;
        this.http = http;
        this.log = log;
        this.flusher = flusher;
        this.port = port;
    }

    /**
     * Refuses to serve beyond loopback without a key (unless {@code --insecure-no-auth}), and warns, at every start,
     * about serving without keys or without TLS off loopback.
     *
     * @throws ConfigException when the server would be open to the network
     */
    private static void checkExposure(InterlaceConfig config, ApiKeys keys, SystemRecords records, String bootId) {
        if (Exposure.isLoopback(config.bind())) {
            return;
        }
        Exposure exposure = config.exposure();
        if (keys.isEmpty() && !exposure.insecureNoAuth()) {
            throw new ConfigException("--bind " + config.bind() + " listens beyond this machine, and there is no API"
                    + " key: anyone who reaches the port could read every table and publish anything. Create a key"
                    + " first (interlace keys create --name admin --scope admin --data-dir " + config.dataDirectory()
                    + ") and send it as Authorization: Bearer <key>; only on a network you trust completely, pass"
                    + " --insecure-no-auth");
        }
        if (keys.isEmpty()) {
            String warning = "serving WITHOUT API KEYS on " + config.bind() + " (--insecure-no-auth): anyone who"
                    + " reaches the port can read and publish everything; requests must name an --allowed-hosts host";
            LOG.warning(warning);
            System.err.println("interlace: warning: " + warning);
            records.record(SysRecord.of(micros(), "insecure_no_auth", null, bootId, warning));
        }
        if (!exposure.tls()) {
            String warning = "serving plain HTTP on " + config.bind() + ": API keys and data cross the network"
                    + " unencrypted; give --tls-cert and --tls-key, or put a TLS-terminating proxy in front";
            LOG.warning(warning);
            System.err.println("interlace: warning: " + warning);
        }
    }

    private static long micros() {
        return EpochMicros.now(java.time.Clock.systemUTC());
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
        return http.executorDescription();
    }

    /** An instance from the server's object graph, e.g. the {@link EventLog}. */
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
        http.stop(DRAIN_SECONDS);
        if (flusher.materialises() && !flusher.drain(Duration.ofSeconds(DRAIN_SECONDS))) {
            LOG.warning("shutting down with events not yet materialised; they are flushed on the next start");
        }
        injector.getInstance(RetentionSweep.class).close();
        Optional<ModelRunner> models = models(injector);
        models.ifPresent(runner -> runner.awaitIdle(Duration.ofSeconds(DRAIN_SECONDS)));
        models.ifPresent(ModelRunner::close);
        flusher.close();
        log.close();
        SystemRecords records = injector.getInstance(SystemRecords.class);
        records.record(SysRecord.of(micros(), "shutdown", null, injector.getInstance(Boot.class).id(),
                "interlace stopped"));
        records.close();
        injector.getInstance(Metrics.class).close();
        injector.getInstance(KeyFile.class).close();
        try {
            lock.close();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "releasing the data directory lock failed", e);
        }
    }

    /** The model runner, when there is a warehouse to run models in. */
    public Optional<ModelRunner> models() {
        return models(injector);
    }

    private static Optional<ModelRunner> models(Injector injector) {
        return injector.getInstance(Key.get(new TypeLiteral<Optional<ModelRunner>>() {}));
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

        /** The streams to serve; by default every registry on the class path. */
        public Builder catalog(StreamCatalog value) {
            this.catalog = Objects.requireNonNull(value, "catalog");
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
         * @throws DataDirectoryLock.LockedException wrapped in {@link UncheckedIOException} when another server
         *     uses the data directory
         */
        public Interlace start() {
            StreamCatalog streams = catalog != null ? catalog
                    : StreamCatalog.load(Thread.currentThread().getContextClassLoader());
            DataDirectoryLock lock;
            try {
                lock = DataDirectoryLock.acquire(config.dataDirectory());
            } catch (IOException e) {
                throw new UncheckedIOException(e.getMessage(), e);
            }
            EventLog log = null;
            KeyFile keys = null;
            Flusher flusher = null;
            HttpApi http = null;
            try {
                Module defaults = Modules.combine(new CoreModule(config, streams), new OpsModule(), new AuthModule(),
                        new RecordsModule(), new LogModule(), new FlushModule(), new ModelModule(), new HttpModule());
                Injector injector = Guice.createInjector(Modules.override(defaults).with(overrides));
                keys = injector.getInstance(KeyFile.class);
                checkExposure(config, injector.getInstance(ApiKeys.class), injector.getInstance(SystemRecords.class),
                        injector.getInstance(Boot.class).id());
                log = injector.getInstance(EventLog.class);
                for (StreamDescriptor stream : streams.streams()) {
                    log.register(stream);
                }
                flusher = injector.getInstance(Flusher.class);
                flusher.prepare();
                SystemRecords records = injector.getInstance(SystemRecords.class);
                String bootId = injector.getInstance(Boot.class).id();
                injector.getInstance(Key.get(new TypeLiteral<Optional<Warehouse>>() {})).ifPresent(warehouse ->
                        warehouse.migrationsApplied().forEach(migration ->
                                records.record(SysRecord.of(micros(), "migration", null, bootId, migration))));
                Optional<ModelRunner> models = models(injector);
                if (models.isPresent()) {
                    models.get().start();
                    flusher.addFlushedListener(models.get()::streamFlushed);
                }
                flusher.startFlushing();
                injector.getInstance(RetentionSweep.class).start();
                http = injector.getInstance(HttpApi.class);
                int port = http.start(config.bind(), config.port());
                injector.getInstance(SystemRecords.class).record(SysRecord.of(micros(), "startup", null,
                        injector.getInstance(Boot.class).id(), "interlace started on port " + port + " with "
                                + streams.streams().size() + " streams, data in " + config.dataDirectory()));
                return new Interlace(config, lock, injector, http, log, flusher, port);
            } catch (IOException | RuntimeException e) {
                if (keys != null) {
                    keys.close();
                }
                if (http != null) {
                    http.stop(0);
                }
                if (flusher != null) {
                    flusher.close();
                }
                if (log != null) {
                    log.close();
                }
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
