package dev.interlace.runtime;

import com.google.inject.ProvisionException;
import dev.interlace.runtime.auth.ApiKeys;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.config.ConfigException;
import dev.interlace.runtime.config.Exposure;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.log.RetentionSweep;
import dev.interlace.runtime.queryprocess.QueryProcess;
import dev.interlace.runtime.warehouse.Warehouse;
import dev.interlace.runtime.warehouse.WarehouseFactory;
import dev.interlace.runtime.http.HttpApi;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.model.ModelRunner;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.FatalErrors;
import dev.interlace.runtime.ops.NativeLibraryCopies;
import dev.interlace.runtime.ops.Metrics;
import dev.interlace.runtime.tracing.Tracing;
import dev.interlace.runtime.records.Boot;
import dev.interlace.runtime.records.SysEvent;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.PartitionCounts;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts and stops the server's components in order. It is the only object {@link Interlace} takes from the
 * injector; every component comes in by constructor injection, as a {@link Provider} so that each is created at
 * the step of start-up that needs it (as before: a refused exposure check opens no log) and a failed start closes
 * only what it opened.
 */
final class Lifecycle {

    private static final Logger LOG = Logger.getLogger(Interlace.class.getName());

    private final InterlaceConfig config;
    private final StreamCatalog catalog;
    private final Provider<KeyFile> keyFile;
    private final Provider<ApiKeys> apiKeys;
    private final Provider<SystemRecords> records;
    private final Provider<Boot> boot;
    private final Provider<StreamLog> log;
    private final Provider<Flusher> flusher;
    private final Provider<Optional<Warehouse>> warehouse;
    private final Provider<Optional<ModelRunner>> models;
    private final Provider<RetentionSweep> sweep;
    private final Provider<HttpApi> http;
    private final Provider<Metrics> metrics;
    private final Provider<ComponentHealth> components;
    private final Provider<Tracing> tracing;
    private final Provider<Optional<QueryProcess>> queryProcess;

    @Inject
    Lifecycle(InterlaceConfig config, StreamCatalog catalog, Provider<KeyFile> keyFile, Provider<ApiKeys> apiKeys,
            Provider<SystemRecords> records, Provider<Boot> boot, Provider<StreamLog> log, Provider<Flusher> flusher,
            Provider<Optional<Warehouse>> warehouse, Provider<Optional<ModelRunner>> models,
            Provider<RetentionSweep> sweep, Provider<HttpApi> http, Provider<Metrics> metrics,
            Provider<ComponentHealth> components, Provider<Tracing> tracing,
            Provider<Optional<QueryProcess>> queryProcess) {
        this.queryProcess = queryProcess;
        this.components = components;
        this.tracing = tracing;
        this.config = config;
        this.catalog = catalog;
        this.keyFile = keyFile;
        this.apiKeys = apiKeys;
        this.records = records;
        this.boot = boot;
        this.log = log;
        this.flusher = flusher;
        this.warehouse = warehouse;
        this.models = models;
        this.sweep = sweep;
        this.http = http;
        this.metrics = metrics;
    }

    /**
     * Checks the exposure, opens the log and registers every stream, prepares the flusher, records the warehouse's
     * migrations, starts the models, flushing, the retention sweep and the HTTP API, and records the start-up. On a
     * failure it closes what it opened (keys, HTTP, flusher, log, in that order) and rethrows.
     *
     * @return the port the API listens on
     */
    int start() throws IOException {
        StreamLog openedLog = null;
        KeyFile keys = null;
        ApiKeys authenticating = null;
        Flusher openedFlusher = null;
        HttpApi api = null;
        Thread warehouseLoad = null;
        try {
            keys = keyFile.get();
            authenticating = apiKeys.get();
            checkExposure(authenticating, records.get(), boot.get().id());
            recordPreviousFatalExit(records.get(), boot.get().id());
            // The system records opened SQLite, which loaded the driver's library from its copy: delete the copy.
            NativeLibraryCopies.deleteLoaded(NativeLibraryCopies.SQLITE);
            warehouseLoad = loadWarehouseAhead();
            openedLog = log.get();
            PartitionCounts.check(catalog, openedLog.knownStreams());
            openedLog.registerAll(PartitionCounts.registrationOrder(catalog));
            openedFlusher = flusher.get();
            openedFlusher.prepare();
            SystemRecords systemRecords = records.get();
            String bootId = boot.get().id();
            warehouse.get().ifPresent(store -> store.migrationsApplied().forEach(migration ->
                    systemRecords.record(SysRecord.of(micros(), SysEvent.MIGRATION, null, bootId, migration))));
            Optional<ModelRunner> runner = models.get();
            if (runner.isPresent()) {
                runner.get().start();
                openedFlusher.addFlushedListener(runner.get()::streamFlushed);
            }
            openedFlusher.startFlushing();
            sweep.get().start();
            api = http.get();
            int port = api.start(config.bind(), config.port());
            records.get().record(SysRecord.of(micros(), SysEvent.STARTUP, null, boot.get().id(), "interlace started on port "
                    + port + " with " + catalog.streams().size() + " streams, data in " + config.dataDirectory()));
            return port;
        } catch (IOException | RuntimeException e) {
            if (authenticating != null) {
                closeApiKeys(authenticating, keys);
            }
            if (keys != null) {
                keys.close();
            }
            if (api != null) {
                api.stop(0);
            }
            if (openedFlusher != null) {
                openedFlusher.close();
            }
            if (openedLog != null) {
                openedLog.close();
            }
            if (warehouseLoad != null) {
                // A start that fails early exits soon after: not in the middle of unpacking the library, which would
                // leave a partial copy in the temporary directory.
                DaemonThreads.join(warehouseLoad, Duration.ofSeconds(10));
            }
            // A component that could not be created fails the start with its own exception (a ConfigException is a
            // refusal to start, exit 2), not with the injector's wrapper around it.
            if (e instanceof ProvisionException provision && provision.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    /**
     * Stops accepting requests and lets those in flight finish, flushes what the log holds beyond the watermarks,
     * stops the sweep and the models, closes the flusher and the log, records the shutdown and closes the records,
     * the metrics and the key file.
     */
    void close(int drainSeconds) {
        // A stop under way (asked for, or after a component failed) is not turned into an exit by a failure during it;
        // nor does a server closed inside a longer-lived JVM (tests, an embedding application) end that JVM later.
        components.get().close();
        http.get().stop(drainSeconds);
        queryProcess.get().ifPresent(QueryProcess::close);
        Flusher openedFlusher = flusher.get();
        if (openedFlusher.materialises() && !openedFlusher.drain(Duration.ofSeconds(drainSeconds))) {
            LOG.warning("shutting down with events not yet materialised; they are flushed on the next start");
        }
        sweep.get().close();
        Optional<ModelRunner> runner = models.get();
        runner.ifPresent(r -> r.awaitIdle(Duration.ofSeconds(drainSeconds)));
        runner.ifPresent(ModelRunner::close);
        openedFlusher.close();
        log.get().close();
        SystemRecords systemRecords = records.get();
        systemRecords.record(SysRecord.of(micros(), SysEvent.SHUTDOWN, null, boot.get().id(), "interlace stopped"));
        systemRecords.close();
        metrics.get().close();
        closeApiKeys(apiKeys.get(), keyFile.get());
        keyFile.get().close();
        tracing.get().close(); // last: the spans of the drain above are sent
    }

    /**
     * Closes the keys the server authenticates with when they are more than the key file (which is closed after
     * them): keys shared by a cluster hold connections of their own.
     */
    private static void closeApiKeys(ApiKeys authenticating, KeyFile keys) {
        if (authenticating instanceof AutoCloseable closeable && closeable != keys) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.warning("closing the API keys failed: " + e);
            }
        }
    }

    /**
     * Has the warehouse implementation load what opening it needs (DuckDB's native library) on a thread of its own
     * while the log opens: on the Kafka log, start-up waits for the cluster's answers meanwhile.
     *
     * @return the thread loading it, or null when this process runs no warehouse
     */
    private Thread loadWarehouseAhead() {
        if (!config.role().runsWarehouse()) {
            return null;
        }
        Thread loading = DaemonThreads.thread(() -> {
            try {
                WarehouseFactory.onClassPath().ifPresent(WarehouseFactory::load);
            } catch (RuntimeException | ServiceConfigurationError e) {
                LOG.log(Level.FINE, "the warehouse could not be loaded ahead; opening it reports why",
                        e);
            }
        }, "interlace-warehouse-load");
        loading.start();
        return loading;
    }

    /** The HTTP API (started by {@link #start()}). */
    HttpApi http() {
        return http.get();
    }

    /** The model runner, when there is a warehouse to run models in. */
    Optional<ModelRunner> models() {
        return models.get();
    }

    /**
     * Refuses to serve beyond loopback without a key (unless {@code --insecure-no-auth}), and warns, at every start,
     * about serving without keys or without TLS off loopback.
     *
     * @throws ConfigException when the server would be open to the network
     */
    private void checkExposure(ApiKeys keys, SystemRecords systemRecords, String bootId) {
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
            systemRecords.record(SysRecord.of(micros(), SysEvent.INSECURE_NO_AUTH, null, bootId, warning));
        }
        if (!exposure.tls()) {
            String warning = "serving plain HTTP on " + config.bind() + ": API keys and data cross the network"
                    + " unencrypted; give --tls-cert and --tls-key, or put a TLS-terminating proxy in front";
            LOG.warning(warning);
            System.err.println("interlace: warning: " + warning);
        }
    }

    /**
     * Turns the reason the previous run ended on a fatal error (out of memory), which it left in the data directory,
     * into a {@code fatal_exit} system record, and arms the same for this run.
     */
    private void recordPreviousFatalExit(SystemRecords systemRecords, String bootId) throws IOException {
        if (!Files.isDirectory(config.dataDirectory())) {
            return;
        }
        FatalErrors.takePreviousAndWatch(config.dataDirectory()).ifPresent(reason -> {
            String message = "the previous run ended on a fatal error: " + reason;
            LOG.warning(message);
            systemRecords.record(SysRecord.of(micros(), SysEvent.FATAL_EXIT, null, bootId, message));
        });
    }

    private static long micros() {
        return EpochMicros.now(Clock.systemUTC());
    }
}
