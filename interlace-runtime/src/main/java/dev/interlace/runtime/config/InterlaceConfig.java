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
 * @param sqlProcessIdleMillis with {@link SqlIsolation#PROCESS}, how long the query process may go without a query
 *     before it is stopped (the next query starts it again); 0 keeps it running
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
        long sqlProcessIdleMillis,
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

    /** The defaults, with data under {@code .interlace} in the working directory. */
    public static InterlaceConfig defaults() {
        return ConfigLoader.load(new String[0], java.util.Map.of()).config();
    }

    /** A builder that starts from nothing: every component must be set before {@link Builder#build()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder that starts from this configuration, to change some of its values by name. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    public InterlaceConfig withPort(int newPort) {
        return toBuilder().port(newPort).build();
    }

    public InterlaceConfig withSqlIsolation(SqlIsolation isolation) {
        return toBuilder().sqlIsolation(isolation).build();
    }

    public InterlaceConfig withDataDirectory(Path directory) {
        return toBuilder().dataDirectory(directory).build();
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

    /**
     * Builds a configuration by naming its values. Every component but {@code configuredBackupRoot} must be set, by
     * {@link InterlaceConfig#toBuilder()} or one by one; {@link #build()} names the first one missing.
     */
    public static final class Builder {
        private Integer port;
        private String bind;
        private Path dataDirectory;
        private Long maxBodyBytes;
        private Long maxInflightBytes;
        private Integer maxEventsPerRequest;
        private Long maxPending;
        private Long minFreeDiskBytes;
        private Long flushDelayMillis;
        private Integer flushBatchRows;
        private Long flushBatchBytes;
        private Long recordRetentionMicros;
        private Integer refusedRequests;
        private Long readyFlushFailingMillis;
        private Integer modelRestRatio;
        private Long sqlTimeoutMillis;
        private SqlIsolation sqlIsolation;
        private Long sqlProcessIdleMillis;
        private Long readWaitMillis;
        private Connections connections;
        private Exposure exposure;
        private LogOptions log;
        private Path configuredBackupRoot;

        private Builder() {}

        private Builder(InterlaceConfig config) {
            port = config.port;
            bind = config.bind;
            dataDirectory = config.dataDirectory;
            maxBodyBytes = config.maxBodyBytes;
            maxInflightBytes = config.maxInflightBytes;
            maxEventsPerRequest = config.maxEventsPerRequest;
            maxPending = config.maxPending;
            minFreeDiskBytes = config.minFreeDiskBytes;
            flushDelayMillis = config.flushDelayMillis;
            flushBatchRows = config.flushBatchRows;
            flushBatchBytes = config.flushBatchBytes;
            recordRetentionMicros = config.recordRetentionMicros;
            refusedRequests = config.refusedRequests;
            readyFlushFailingMillis = config.readyFlushFailingMillis;
            modelRestRatio = config.modelRestRatio;
            sqlTimeoutMillis = config.sqlTimeoutMillis;
            sqlIsolation = config.sqlIsolation;
            sqlProcessIdleMillis = config.sqlProcessIdleMillis;
            readWaitMillis = config.readWaitMillis;
            connections = config.connections;
            exposure = config.exposure;
            log = config.log;
            configuredBackupRoot = config.configuredBackupRoot;
        }

        public Builder port(int value) {
            port = value;
            return this;
        }

        public Builder bind(String value) {
            bind = value;
            return this;
        }

        public Builder dataDirectory(Path value) {
            dataDirectory = value;
            return this;
        }

        public Builder maxBodyBytes(long value) {
            maxBodyBytes = value;
            return this;
        }

        public Builder maxInflightBytes(long value) {
            maxInflightBytes = value;
            return this;
        }

        public Builder maxEventsPerRequest(int value) {
            maxEventsPerRequest = value;
            return this;
        }

        public Builder maxPending(long value) {
            maxPending = value;
            return this;
        }

        public Builder minFreeDiskBytes(long value) {
            minFreeDiskBytes = value;
            return this;
        }

        public Builder flushDelayMillis(long value) {
            flushDelayMillis = value;
            return this;
        }

        public Builder flushBatchRows(int value) {
            flushBatchRows = value;
            return this;
        }

        public Builder flushBatchBytes(long value) {
            flushBatchBytes = value;
            return this;
        }

        public Builder recordRetentionMicros(long value) {
            recordRetentionMicros = value;
            return this;
        }

        public Builder refusedRequests(int value) {
            refusedRequests = value;
            return this;
        }

        public Builder readyFlushFailingMillis(long value) {
            readyFlushFailingMillis = value;
            return this;
        }

        public Builder modelRestRatio(int value) {
            modelRestRatio = value;
            return this;
        }

        public Builder sqlTimeoutMillis(long value) {
            sqlTimeoutMillis = value;
            return this;
        }

        public Builder sqlIsolation(SqlIsolation value) {
            sqlIsolation = value;
            return this;
        }

        public Builder sqlProcessIdleMillis(long value) {
            sqlProcessIdleMillis = value;
            return this;
        }

        public Builder readWaitMillis(long value) {
            readWaitMillis = value;
            return this;
        }

        public Builder connections(Connections value) {
            connections = value;
            return this;
        }

        public Builder exposure(Exposure value) {
            exposure = value;
            return this;
        }

        public Builder log(LogOptions value) {
            log = value;
            return this;
        }

        public Builder configuredBackupRoot(Path value) {
            configuredBackupRoot = value;
            return this;
        }

        /**
         * The configuration.
         *
         * @throws IllegalStateException naming a component that was not set
         */
        public InterlaceConfig build() {
            return new InterlaceConfig(require(port, "port"), require(bind, "bind"),
                    require(dataDirectory, "dataDirectory"), require(maxBodyBytes, "maxBodyBytes"),
                    require(maxInflightBytes, "maxInflightBytes"), require(maxEventsPerRequest, "maxEventsPerRequest"),
                    require(maxPending, "maxPending"), require(minFreeDiskBytes, "minFreeDiskBytes"),
                    require(flushDelayMillis, "flushDelayMillis"), require(flushBatchRows, "flushBatchRows"),
                    require(flushBatchBytes, "flushBatchBytes"),
                    require(recordRetentionMicros, "recordRetentionMicros"),
                    require(refusedRequests, "refusedRequests"),
                    require(readyFlushFailingMillis, "readyFlushFailingMillis"),
                    require(modelRestRatio, "modelRestRatio"), require(sqlTimeoutMillis, "sqlTimeoutMillis"),
                    require(sqlIsolation, "sqlIsolation"), require(sqlProcessIdleMillis, "sqlProcessIdleMillis"),
                    require(readWaitMillis, "readWaitMillis"),
                    require(connections, "connections"), require(exposure, "exposure"), require(log, "log"),
                    configuredBackupRoot);
        }

        private static <T> T require(T value, String name) {
            if (value == null) {
                throw new IllegalStateException(name + " is not set");
            }
            return value;
        }
    }
}
