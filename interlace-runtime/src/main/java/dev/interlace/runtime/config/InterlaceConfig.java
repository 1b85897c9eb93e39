package dev.interlace.runtime.config;

import java.nio.file.Path;

/**
 * Everything {@code interlace serve} can be configured with (docs/configuration.md). Each value comes from, in order of
 * precedence: a command-line flag, an {@code INTERLACE_*} environment variable, {@code <data-dir>/interlace.properties},
 * the default.
 *
 * @param port HTTP port, 0 for an ephemeral one
 * @param bind address to listen on
 * @param dataDirectory where the log, the warehouse and the lock live
 * @param maxBodyBytes largest request body, after decompression
 * @param maxInflightBytes the bytes that HTTP requests in flight may hold together; 0 for the default, a quarter of
 *     the JVM's maximum heap ({@link #inflightBudgetBytes()})
 * @param maxEventsPerRequest most events in one publish
 * @param maxPending most entries of one stream waiting to be materialised before publishes get 429
 * @param minFreeDiskBytes free disk below which publishes get 503
 * @param flushDelayMillis how long the flusher waits for more events after an append
 * @param flushBatchRows rows per flush transaction
 * @param flushBatchBytes event bytes a flush batch reads from the log at most (it ends with the event that reaches
 *     them)
 * @param recordRetentionMicros how long publish, flush and system records are kept; 0 keeps none
 * @param refusedRequests how many refused requests (4xx/5xx) the in-memory ring keeps
 * @param readyFlushFailingMillis how long a stream's flush may fail before {@code /health/ready} says 503
 * @param modelRestRatio how many times a model run's duration the model runner waits before it starts the next run
 * @param sqlTimeoutMillis how long a {@code POST /sql} query may run before it is cancelled and answered as timed out
 * @param sqlIsolation where {@code POST /sql} queries run: in a query process the server kills at a query's deadline,
 *     or in the server's own warehouse
 * @param readWaitMillis how long a warehouse request with {@code Interlace-After} may wait for the positions it names
 *     to be materialised
 * @param connections how many HTTP connections may be open, in all and from one client address
 * @param exposure keys off loopback, accepted hosts and origins, TLS
 * @param log which stream log to run on (SQLite in the data directory, or Kafka) and its settings
 * @param configuredBackupRoot {@code --backup-root}, the directory {@code POST /admin/backup} writes under; null for
 *     the default, {@code <data-dir>/backups} ({@link #backupRoot()})
 */
public record InterlaceConfig(
        int port,
        String bind,
        Path dataDirectory,
        long maxBodyBytes,
        long maxInflightBytes,
        int maxEventsPerRequest,
        long maxPending,
        long minFreeDiskBytes,
        long flushDelayMillis,
        int flushBatchRows,
        long flushBatchBytes,
        long recordRetentionMicros,
        int refusedRequests,
        long readyFlushFailingMillis,
        int modelRestRatio,
        long sqlTimeoutMillis,
        SqlIsolation sqlIsolation,
        long readWaitMillis,
        Connections connections,
        Exposure exposure,
        LogOptions log,
        Path configuredBackupRoot) {

    /** The default of {@code --sql-timeout-ms}. */
    public static final long DEFAULT_SQL_TIMEOUT_MILLIS = 30_000;

    /** The default of {@code --read-wait-ms}. */
    public static final long DEFAULT_READ_WAIT_MILLIS = 5_000;

    public InterlaceConfig {
        java.util.Objects.requireNonNull(log, "log");
        java.util.Objects.requireNonNull(connections, "connections");
        java.util.Objects.requireNonNull(sqlIsolation, "sqlIsolation");
    }

    /** A configuration on the SQLite log. */
    public InterlaceConfig(int port, String bind, Path dataDirectory, long maxBodyBytes, int maxEventsPerRequest,
            long maxPending, long minFreeDiskBytes, long flushDelayMillis, int flushBatchRows, long flushBatchBytes,
            long recordRetentionMicros, int refusedRequests, long readyFlushFailingMillis, int modelRestRatio,
            Exposure exposure) {
        this(port, bind, dataDirectory, maxBodyBytes, 0, maxEventsPerRequest, maxPending, minFreeDiskBytes,
                flushDelayMillis, flushBatchRows, flushBatchBytes, recordRetentionMicros, refusedRequests,
                readyFlushFailingMillis, modelRestRatio, DEFAULT_SQL_TIMEOUT_MILLIS, SqlIsolation.PROCESS,
                DEFAULT_READ_WAIT_MILLIS,
                Connections.DEFAULTS, exposure,
                LogOptions.sqlite(), null);
    }

    /** The defaults, with data under {@code .interlace} in the working directory. */
    public static InterlaceConfig defaults() {
        return ConfigLoader.load(new String[0], java.util.Map.of()).config();
    }

    public InterlaceConfig withPort(int newPort) {
        return new InterlaceConfig(newPort, bind, dataDirectory, maxBodyBytes, maxInflightBytes, maxEventsPerRequest,
                maxPending, minFreeDiskBytes, flushDelayMillis, flushBatchRows, flushBatchBytes, recordRetentionMicros,
                refusedRequests, readyFlushFailingMillis, modelRestRatio, sqlTimeoutMillis, sqlIsolation, readWaitMillis,
                connections, exposure, log, configuredBackupRoot);
    }

    public InterlaceConfig withSqlIsolation(SqlIsolation isolation) {
        return new InterlaceConfig(port, bind, dataDirectory, maxBodyBytes, maxInflightBytes, maxEventsPerRequest,
                maxPending, minFreeDiskBytes, flushDelayMillis, flushBatchRows, flushBatchBytes, recordRetentionMicros,
                refusedRequests, readyFlushFailingMillis, modelRestRatio, sqlTimeoutMillis, isolation, readWaitMillis,
                connections, exposure, log, configuredBackupRoot);
    }

    public InterlaceConfig withDataDirectory(Path directory) {
        return new InterlaceConfig(port, bind, directory, maxBodyBytes, maxInflightBytes, maxEventsPerRequest,
                maxPending, minFreeDiskBytes, flushDelayMillis, flushBatchRows, flushBatchBytes, recordRetentionMicros,
                refusedRequests, readyFlushFailingMillis, modelRestRatio, sqlTimeoutMillis, sqlIsolation, readWaitMillis,
                connections, exposure, log, configuredBackupRoot);
    }

    /**
     * The URL other nodes and clients reach this node at: {@code --advertise-url}, or {@code http(s)://<bind>:<port>}
     * (https when TLS is configured). It names the node as a stream's sequencer and as the holder of the flusher's
     * leases.
     */
    public String advertisedUrl() {
        if (!log.advertiseUrl().isEmpty()) {
            return log.advertiseUrl();
        }
        String host = bind.contains(":") ? "[" + bind + "]" : bind;
        return (exposure.tls() ? "https" : "http") + "://" + host + ":" + port;
    }

    /** What this node runs ({@code --role}); {@link Role#ALL} on the SQLite log. */
    public Role role() {
        return log.role();
    }

    /**
     * The in-flight byte budget of the HTTP API: {@code --max-inflight-bytes}, or by default a quarter of the JVM's
     * maximum heap, which leaves the rest to what other bounds govern (the flusher's batches, the recent events kept
     * for it, the refused-requests ring) and to the collector's headroom.
     */
    public long inflightBudgetBytes() {
        return maxInflightBytes > 0 ? maxInflightBytes : Math.max(1, Runtime.getRuntime().maxMemory() / 4);
    }

    /**
     * The directory that online backups ({@code POST /admin/backup}) are written under: {@code --backup-root}, by
     * default {@code <data-dir>/backups}; absolute and normalised.
     */
    public Path backupRoot() {
        Path root = configuredBackupRoot != null ? configuredBackupRoot : dataDirectory.resolve("backups");
        return root.toAbsolutePath().normalize();
    }

    /** Whether publish, flush and system records are kept at all ({@code record-retention} is not 0). */
    public boolean keepsRecords() {
        return recordRetentionMicros > 0;
    }
}
