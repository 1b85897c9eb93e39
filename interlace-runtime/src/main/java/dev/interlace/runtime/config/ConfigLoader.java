package dev.interlace.runtime.config;

import dev.interlace.client.TrustedCertificates;
import dev.interlace.runtime.config.ClusterSecret;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Resolves {@link InterlaceConfig} from flags, environment, the data directory's properties file and defaults, in that
 * order of precedence, and says where each value came from.
 */
public final class ConfigLoader {

    /**
     * One setting, defined once: its flag name (without {@code --}; the environment variable and the properties key
     * follow from it), default, what its value looks like in usage messages ({@code N}, {@code FILE}; empty for a
     * switch, which needs none), for a number the range it must be in, and what it does.
     */
    public record Setting(String flag, String defaultValue, String value, long min, long max, String description) {

        /** A setting that is not a number (its value is checked where it is read). */
        static Setting of(String flag, String defaultValue, String value, String description) {
            return new Setting(flag, defaultValue, value, 0, 0, description);
        }

        /** A whole number from {@code min} to {@code max}. */
        static Setting number(String flag, String defaultValue, String value, long min, long max,
                String description) {
            return new Setting(flag, defaultValue, value, min, max, description);
        }

        /** The environment variable: {@code INTERLACE_} and the flag name in upper case, {@code -} as {@code _}. */
        public String env() {
            return "INTERLACE_" + flag.toUpperCase(Locale.ROOT).replace('-', '_');
        }

        /** The key in {@code interlace.properties}: the flag name. */
        public String property() {
            return flag;
        }
    }

    public static final Setting PORT = Setting.number("port", "8000", "N",
            0, 65_535, "HTTP port; 0 picks a free one");
    public static final Setting BIND = Setting.of("bind", "127.0.0.1", "ADDRESS",
            "address to listen on");
    public static final Setting DATA_DIR = Setting.of("data-dir", ".interlace", "DIR",
            "where the log, warehouse and lock live");
    public static final Setting MAX_BODY_BYTES = Setting.number("max-body-bytes", "10485760", "BYTES",
            1, Integer.MAX_VALUE - 16, "largest request body, after decompression");
    public static final Setting MAX_INFLIGHT_BYTES = Setting.number("max-inflight-bytes", "0", "BYTES",
            0, Long.MAX_VALUE / 2, "bytes that HTTP requests in flight may hold together (bodies, pages, /sql"
                + " results); beyond, 503 overloaded; 0: a quarter of the JVM's maximum heap");
    public static final Setting MAX_CONNECTIONS = Setting.number("max-connections", "10000", "N",
            1, 1_000_000, "HTTP connections open at once; beyond, a few are kept for /health/* and the rest refused"
                + " 503");
    public static final Setting MAX_CONNECTIONS_PER_ADDRESS = Setting.number("max-connections-per-address", "1000", "N",
            1, 1_000_000, "HTTP connections open at once from one client address (behind a proxy: as"
                + " --max-connections)");
    public static final Setting MAX_EVENTS_PER_REQUEST = Setting.number("max-events-per-request", "10000", "N",
            1, 10_000_000, "most events in one publish");
    public static final Setting MAX_PENDING = Setting.number("max-pending", "100000", "N",
            1, Long.MAX_VALUE / 2, "most entries per stream waiting to be materialised before 429");
    public static final Setting MIN_FREE_DISK_BYTES = Setting.number("min-free-disk-bytes", "268435456", "BYTES",
            0, Long.MAX_VALUE, "free disk below which publishes get 503");
    public static final Setting FLUSH_DELAY_MS = Setting.number("flush-delay-ms", "50", "MS",
            0, 3_600_000, "how long the flusher waits to batch more events");
    public static final Setting FLUSH_BATCH_ROWS = Setting.number("flush-batch-rows", "20000", "N",
            1, 10_000_000, "rows per flush transaction");
    public static final Setting FLUSH_BATCH_BYTES = Setting.number("flush-batch-bytes", "16777216", "BYTES",
            1, Long.MAX_VALUE / 2, "event bytes a flush batch reads from the log (it ends with the event that reaches"
                + " them)");
    public static final Setting RECORD_RETENTION = Setting.of("record-retention", "7d", "DURATION",
            "how long publish, flush and system records are kept (<n><s|m|h|d|w>; 0 keeps none)");
    public static final Setting REFUSED_REQUESTS = Setting.number("refused-requests", "10000", "N",
            0, 10_000_000, "refused requests (4xx/5xx) kept in memory for GET /logs/api");
    public static final Setting READY_FLUSH_FAILING_MS = Setting.number("ready-flush-failing-ms", "30000", "MS",
            0, 86_400_000, "how long a stream's flush may fail before /health/ready answers 503");
    public static final Setting SQL_TIMEOUT_MS = Setting.number("sql-timeout-ms", "30000", "MS",
            100, 3_600_000, "how long a POST /sql query may run before it is cancelled and answered 408 query_timeout");
    public static final Setting SQL_ISOLATION = Setting.of("sql-isolation", "process", "process|inline",
            "where POST /sql queries run: process (a query process of its own, a local replica of the warehouse,"
                + " killed at a query's deadline) or inline (the server's warehouse: an expression DuckDB cannot"
                + " interrupt may outlive the deadline)");
    public static final Setting SQL_PROCESS_IDLE_MS = Setting.number("sql-process-idle-ms", "600000", "MS", 0,
            30L * 24 * 3_600_000, "with --sql-isolation process, stop the query process after this long without a"
                + " query (the next query starts it again, from its replica on disk); 0 keeps it running");
    public static final Setting READ_WAIT_MS = Setting.number("read-wait-ms", "5000", "MS",
            0, 600_000, "how long a warehouse request with Interlace-After waits for its positions to be materialised"
                + " before 503 not_materialised");
    public static final Setting MODEL_REST_RATIO = Setting.number("model-rest-ratio", "3", "N",
            0, 100, "after a model run, wait this many times its duration before the next (0: back to back)");
    public static final Setting INSECURE_NO_AUTH = Setting.of("insecure-no-auth", "false", "",
            "serve without API keys on a non-loopback address (never do this on a network you do not trust)");
    public static final Setting ALLOWED_HOSTS = Setting.of("allowed-hosts", "", "HOST[,HOST...]",
            "extra Host names accepted, comma-separated (the loopback names always are)");
    public static final Setting CORS_ORIGINS = Setting.of("cors-origins", "", "ORIGIN[,ORIGIN...]",
            "browser origins allowed to call the API, comma-separated, e.g. https://app.example");
    public static final Setting TLS_CERT = Setting.of("tls-cert", "", "FILE",
            "PEM certificate chain: serve HTTPS (with --tls-key)");
    public static final Setting TLS_KEY = Setting.of("tls-key", "", "FILE",
            "PEM private key (PKCS#8) of --tls-cert");
    public static final Setting LOG = Setting.of("log", "sqlite", "sqlite|kafka",
            "the stream log: sqlite (in the data directory) or kafka (needs --kafka-bootstrap)");
    public static final Setting KAFKA_BOOTSTRAP = Setting.of("kafka-bootstrap", "", "HOST:PORT[,...]",
            "Kafka brokers to contact first, HOST:PORT[,HOST:PORT...] (with --log kafka)");
    public static final Setting KAFKA_TOPIC_PREFIX = Setting.of("kafka-topic-prefix", "interlace.", "PREFIX",
            "prefix of every topic the Kafka log creates");
    public static final Setting KAFKA_REPLICATION_FACTOR = Setting.number("kafka-replication-factor", "3", "N",
            1, 32, "replicas of each topic the Kafka log creates");
    public static final Setting KAFKA_MIN_INSYNC_REPLICAS = Setting.number("kafka-min-insync-replicas", "2", "N",
            1, 32, "replicas that hold a record before a publish is acknowledged (min.insync.replicas)");
    public static final Setting ADVERTISE_URL = Setting.of("advertise-url", "", "URL",
            "the URL other nodes reach this one at (default http(s)://<bind>:<port>)");
    public static final Setting CLUSTER_SECRET_FILE = Setting.of("cluster-secret-file", "", "FILE",
            "the secret shared by a cluster's nodes (at least 32 bytes, owner-only); forward requests to them");
    public static final Setting CLUSTER_CA_FILE = Setting.of("cluster-ca-file", "", "FILE",
            "PEM certificates trusted for https:// nodes, besides the JVM's defaults");
    public static final Setting ROLE = Setting.of("role", "all", "all|ingest|warehouse",
            "what this node runs with --log kafka: all, ingest (HTTP and sequencing) or warehouse (flusher, DuckDB,"
                + " models, /sql)");
    public static final Setting BACKUP_ROOT = Setting.of("backup-root", "", "DIR",
            "the directory POST /admin/backup (interlace backup --to) writes backups under; default <data-dir>/backups");
    public static final Setting REPLICA_TIMEOUT_MS = Setting.number("replica-timeout-ms", "600000", "MS", 1_000,
            30L * 24 * 3_600_000, "how long a warehouse replica may be silent before the log's trims stop waiting"
                + " for it (with --log kafka)");

    /** Every setting, in the order usage messages and the docs list them. */
    public static final List<Setting> SETTINGS = List.of(PORT, BIND, DATA_DIR, MAX_BODY_BYTES, MAX_INFLIGHT_BYTES,
            MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS, MAX_EVENTS_PER_REQUEST, MAX_PENDING, MIN_FREE_DISK_BYTES,
            FLUSH_DELAY_MS, FLUSH_BATCH_ROWS, FLUSH_BATCH_BYTES, RECORD_RETENTION, REFUSED_REQUESTS,
            READY_FLUSH_FAILING_MS, SQL_TIMEOUT_MS, SQL_ISOLATION, SQL_PROCESS_IDLE_MS, READ_WAIT_MS, MODEL_REST_RATIO,
            INSECURE_NO_AUTH, ALLOWED_HOSTS, CORS_ORIGINS, TLS_CERT, TLS_KEY, LOG, KAFKA_BOOTSTRAP, KAFKA_TOPIC_PREFIX,
            KAFKA_REPLICATION_FACTOR, KAFKA_MIN_INSYNC_REPLICAS, ADVERTISE_URL, CLUSTER_SECRET_FILE, CLUSTER_CA_FILE,
            ROLE, REPLICA_TIMEOUT_MS, BACKUP_ROOT);

    /** Flags that may be given without a value, meaning {@code true}: the settings whose value shows as nothing. */
    private static final java.util.Set<String> SWITCHES = SETTINGS.stream().filter(s -> s.value().isEmpty())
            .map(Setting::flag).collect(java.util.stream.Collectors.toUnmodifiableSet());

    /**
     * The resolved configuration and the origin of every value ({@code flag}, {@code env}, {@code properties},
     * {@code default}).
     */
    public record Resolved(InterlaceConfig config, Map<String, String> origins) {}

    private ConfigLoader() {}

    /**
     * Resolves the configuration.
     *
     * @param args the flags, {@code --name value} or {@code --name=value}
     * @param environment the process environment
     * @throws ConfigException for an unknown flag, a missing value or a value that is not valid
     */
    public static Resolved load(String[] args, Map<String, String> environment) {
        Map<String, String> flags = parseFlags(args);
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> origins = new LinkedHashMap<>();

        Setting dataDirSetting = DATA_DIR;
        String dataDir = flags.containsKey(DATA_DIR.flag()) ? flags.get(DATA_DIR.flag())
                : environment.getOrDefault(dataDirSetting.env(), dataDirSetting.defaultValue());
        origins.put(DATA_DIR.flag(), flags.containsKey(DATA_DIR.flag()) ? "flag"
                : environment.containsKey(dataDirSetting.env()) ? "env" : "default");
        Properties properties = readProperties(Path.of(dataDir).resolve("interlace.properties"));

        for (Setting setting : SETTINGS) {
            if (setting == DATA_DIR) {
                values.put(DATA_DIR.flag(), dataDir);
                continue;
            }
            if (flags.containsKey(setting.flag())) {
                values.put(setting.flag(), flags.get(setting.flag()));
                origins.put(setting.flag(), "flag");
            } else if (environment.containsKey(setting.env())) {
                values.put(setting.flag(), environment.get(setting.env()));
                origins.put(setting.flag(), "env");
            } else if (properties.containsKey(setting.property())) {
                values.put(setting.flag(), properties.getProperty(setting.property()).strip());
                origins.put(setting.flag(), "properties");
            } else {
                values.put(setting.flag(), setting.defaultValue());
                origins.put(setting.flag(), "default");
            }
        }
        for (String key : properties.stringPropertyNames()) {
            if (SETTINGS.stream().noneMatch(s -> s.property().equals(key)) || key.equals(DATA_DIR.property())) {
                throw new ConfigException("unknown setting \"" + key + "\" in " + Path.of(dataDir)
                        .resolve("interlace.properties") + "; known settings: " + knownFlags(false));
            }
        }

        InterlaceConfig config = InterlaceConfig.builder()
                .port((int) number(values, origins, PORT))
                .bind(bind(values.get(BIND.flag())))
                .dataDirectory(Path.of(dataDir))
                .maxBodyBytes(number(values, origins, MAX_BODY_BYTES))
                .maxInflightBytes(number(values, origins, MAX_INFLIGHT_BYTES))
                .maxEventsPerRequest((int) number(values, origins, MAX_EVENTS_PER_REQUEST))
                .maxPending(number(values, origins, MAX_PENDING))
                .minFreeDiskBytes(number(values, origins, MIN_FREE_DISK_BYTES))
                .flushDelayMillis(number(values, origins, FLUSH_DELAY_MS))
                .flushBatchRows((int) number(values, origins, FLUSH_BATCH_ROWS))
                .flushBatchBytes(number(values, origins, FLUSH_BATCH_BYTES))
                .recordRetentionMicros(retention(values, origins, RECORD_RETENTION))
                .refusedRequests((int) number(values, origins, REFUSED_REQUESTS))
                .readyFlushFailingMillis(number(values, origins, READY_FLUSH_FAILING_MS))
                .modelRestRatio((int) number(values, origins, MODEL_REST_RATIO))
                .sqlTimeoutMillis(number(values, origins, SQL_TIMEOUT_MS))
                .sqlIsolation(sqlIsolation(values, origins))
                .sqlProcessIdleMillis(number(values, origins, SQL_PROCESS_IDLE_MS))
                .readWaitMillis(number(values, origins, READ_WAIT_MS))
                .connections(new Connections((int) number(values, origins, MAX_CONNECTIONS),
                        (int) number(values, origins, MAX_CONNECTIONS_PER_ADDRESS)))
                .exposure(new Exposure(bool(values, origins, INSECURE_NO_AUTH), hosts(values.get(ALLOWED_HOSTS.flag())),
                        origins(values, origins, CORS_ORIGINS), file(values, origins, TLS_CERT),
                        file(values, origins, TLS_KEY)))
                .log(log(values, origins))
                .configuredBackupRoot(values.get(BACKUP_ROOT.flag()).isBlank() ? null
                        : Path.of(values.get(BACKUP_ROOT.flag()).strip()))
                .build();
        checkAdvertiseUrl(config, origins);
        return new Resolved(config, origins);
    }

    private static LogOptions log(Map<String, String> values, Map<String, String> origins) {
        String backend = values.get(LOG.flag()).strip().toLowerCase(Locale.ROOT);
        String bootstrap = values.get(KAFKA_BOOTSTRAP.flag()).strip();
        String prefix = values.get(KAFKA_TOPIC_PREFIX.flag()).strip();
        int replicationFactor = (int) number(values, origins, KAFKA_REPLICATION_FACTOR);
        int minInsyncReplicas = (int) number(values, origins, KAFKA_MIN_INSYNC_REPLICAS);
        if (!backend.equals(LogOptions.SQLITE) && !backend.equals(LogOptions.KAFKA)) {
            throw new ConfigException(describe(LOG, origins) + " must be sqlite or kafka, got \""
                    + backend + "\"");
        }
        if (!prefix.matches("[A-Za-z0-9._-]{0,200}")) {
            throw new ConfigException(describe(KAFKA_TOPIC_PREFIX, origins)
                    + " may hold only letters, digits, '.', '_' and '-', got \"" + prefix + "\"");
        }
        if (minInsyncReplicas > replicationFactor) {
            throw new ConfigException(describe(KAFKA_MIN_INSYNC_REPLICAS, origins)
                    + " (" + minInsyncReplicas + ") must not exceed the replication factor (" + replicationFactor
                    + "): no publish could ever be acknowledged");
        }
        if (backend.equals(LogOptions.KAFKA)) {
            if (bootstrap.isEmpty()) {
                throw new ConfigException("--log kafka needs --kafka-bootstrap HOST:PORT[,HOST:PORT...]");
            }
            for (String address : bootstrap.split(",")) {
                if (!address.strip().matches("[A-Za-z0-9.\\[\\]:_-]+:[0-9]{1,5}")) {
                    throw new ConfigException(describe(KAFKA_BOOTSTRAP, origins)
                            + ": \"" + address.strip() + "\" is not HOST:PORT");
                }
            }
        }
        String advertiseUrl = values.get(ADVERTISE_URL.flag()).strip();
        if (!advertiseUrl.isEmpty() && !advertiseUrl.matches("https?://[A-Za-z0-9.\\[\\]:_-]+(:[0-9]{1,5})?")) {
            throw new ConfigException(describe(ADVERTISE_URL, origins) + ": \"" + advertiseUrl
                    + "\" is not scheme://host[:port]");
        }
        Path secretFile = file(values, origins, CLUSTER_SECRET_FILE);
        if (secretFile != null) {
            try {
                ClusterSecret.read(secretFile);
            } catch (ConfigException e) {
                throw new ConfigException(describe(CLUSTER_SECRET_FILE, origins) + ": "
                        + e.getMessage());
            }
        }
        Path caFile = file(values, origins, CLUSTER_CA_FILE);
        if (caFile != null) {
            try {
                TrustedCertificates.read(caFile);
            } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
                throw new ConfigException(describe(CLUSTER_CA_FILE, origins) + ": "
                        + e.getMessage());
            }
        }
        Role role = role(values, origins, backend);
        return new LogOptions(backend, bootstrap, prefix, replicationFactor, minInsyncReplicas, advertiseUrl,
                secretFile, caFile, role, number(values, origins, REPLICA_TIMEOUT_MS));
    }

    /**
     * Plain HTTP between nodes only on loopback: an {@code http://} advertised URL must name a loopback host, and a
     * node of a Kafka cluster listening beyond loopback must say how the others reach it.
     */
    private static void checkAdvertiseUrl(InterlaceConfig config, Map<String, String> origins) {
        String advertised = config.log().advertiseUrl();
        if (advertised.isEmpty()) {
            if (config.log().backend().equals(LogOptions.KAFKA) && !Exposure.isLoopback(config.bind())) {
                throw new ConfigException("--log kafka on --bind " + config.bind() + " needs --advertise-url: the URL"
                        + " the other nodes reach this one at, https:// off loopback (e.g. https://node1.example:8000)");
            }
            if (config.log().backend().equals(LogOptions.KAFKA) && config.port() == 0) {
                throw new ConfigException("--log kafka with --port 0 needs --advertise-url or a port of its own: the"
                        + " cluster names this node by its URL before the port is chosen (e.g. --port 8000)");
            }
            return;
        }
        String host = java.net.URI.create(advertised).getHost();
        if (advertised.regionMatches(true, 0, "http://", 0, 7) && (host == null || !Exposure.isLoopback(host))) {
            throw new ConfigException(describe(ADVERTISE_URL, origins) + ": \"" + advertised
                    + "\" is plain http:// to a host that is not loopback; requests forwarded between nodes would"
                    + " cross the network unencrypted. Serve TLS (--tls-cert, --tls-key) and advertise https://");
        }
    }

    private static SqlIsolation sqlIsolation(Map<String, String> values, Map<String, String> origins) {
        String text = values.get(SQL_ISOLATION.flag()).strip();
        return SqlIsolation.parse(text).orElseThrow(() -> new ConfigException(describe(SQL_ISOLATION, origins)
                + " must be process or inline, got \"" + text + "\""));
    }

    private static Role role(Map<String, String> values, Map<String, String> origins, String backend) {
        String text = values.get(ROLE.flag()).strip().toLowerCase(Locale.ROOT);
        Role role = switch (text) {
            case "all" -> Role.ALL;
            case "ingest" -> Role.INGEST;
            case "warehouse" -> Role.WAREHOUSE;
            default -> throw new ConfigException(describe(ROLE, origins)
                    + " must be all, ingest or warehouse, got \"" + text + "\"");
        };
        if (role != Role.ALL && !backend.equals(LogOptions.KAFKA)) {
            throw new ConfigException(describe(ROLE, origins) + " " + role.wire() + " needs --log kafka:"
                    + " on the SQLite log one server owns both the log and the warehouse, so it runs everything"
                    + " (--role all)");
        }
        return role;
    }

    private static Map<String, String> parseFlags(String[] args) {
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new ConfigException("unexpected argument \"" + arg + "\"");
            }
            String name = arg.substring(2);
            String value;
            int equals = name.indexOf('=');
            if (equals >= 0) {
                value = name.substring(equals + 1);
                name = name.substring(0, equals);
            } else if (SWITCHES.contains(name) && (i + 1 == args.length || args[i + 1].startsWith("--"))) {
                value = "true";
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new ConfigException("flag --" + name + " needs a value");
            }
            String flag = name;
            if (SETTINGS.stream().noneMatch(s -> s.flag().equals(flag))) {
                throw new ConfigException("unknown flag --" + name + "; known flags: " + knownFlags(true));
            }
            if (flags.put(name, value) != null) {
                throw new ConfigException("flag --" + name + " is given twice");
            }
        }
        return flags;
    }

    private static Properties readProperties(Path file) {
        Properties properties = new Properties();
        if (Files.isRegularFile(file)) {
            try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                properties.load(reader);
            } catch (IOException e) {
                throw new ConfigException("cannot read " + file + ": " + e.getMessage());
            }
        }
        return properties;
    }

    private static long number(Map<String, String> values, Map<String, String> origins, Setting setting) {
        String flag = setting.flag();
        long min = setting.min();
        long max = setting.max();
        String text = values.get(flag);
        long value;
        try {
            value = Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw new ConfigException(describe(setting, origins) + " must be a whole number, got \"" + text
                    + "\"");
        }
        if (value < min || value > max) {
            throw new ConfigException(describe(setting, origins) + " must be between " + min + " and " + max
                    + ", got " + value);
        }
        return value;
    }

    /** A duration {@code <integer><s|m|h|d|w>} in microseconds; {@code 0} alone means none. */
    private static long retention(Map<String, String> values, Map<String, String> origins, Setting setting) {
        String flag = setting.flag();
        String text = values.get(flag).strip();
        if (text.equals("0")) {
            return 0;
        }
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("([1-9][0-9]{0,8})([smhdw])").matcher(text);
        if (!matcher.matches()) {
            throw new ConfigException(describe(setting, origins) + " must be <integer><s|m|h|d|w> (e.g. 7d) or"
                    + " 0, got \"" + text + "\"");
        }
        long seconds = switch (matcher.group(2)) {
            case "s" -> 1;
            case "m" -> 60;
            case "h" -> 3_600;
            case "d" -> 86_400;
            default -> 604_800;
        };
        return Long.parseLong(matcher.group(1)) * seconds * 1_000_000L;
    }

    private static boolean bool(Map<String, String> values, Map<String, String> origins, Setting setting) {
        String flag = setting.flag();
        String text = values.get(flag).strip().toLowerCase(Locale.ROOT);
        if (!text.equals("true") && !text.equals("false")) {
            throw new ConfigException(describe(setting, origins) + " must be true or false, got \"" + text
                    + "\"");
        }
        return text.equals("true");
    }

    private static List<String> hosts(String text) {
        List<String> hosts = new ArrayList<>();
        for (String host : text.split(",")) {
            if (!host.isBlank()) {
                hosts.add(host.strip().toLowerCase(Locale.ROOT));
            }
        }
        return hosts;
    }

    /** Origins as browsers send them: {@code scheme://host[:port]}, no path, no trailing slash. */
    private static List<String> origins(Map<String, String> values, Map<String, String> origins, Setting setting) {
        String flag = setting.flag();
        List<String> list = new ArrayList<>();
        for (String origin : values.get(flag).split(",")) {
            String trimmed = origin.strip();
            if (trimmed.isEmpty()) {
                continue;
            }
            if (!trimmed.matches("https?://[A-Za-z0-9.\\[\\]:-]+")) {
                throw new ConfigException(describe(setting, origins) + ": \"" + trimmed + "\" is not an origin;"
                        + " write scheme://host[:port], e.g. https://app.example");
            }
            list.add(trimmed.toLowerCase(Locale.ROOT));
        }
        return list;
    }

    private static Path file(Map<String, String> values, Map<String, String> origins, Setting setting) {
        String flag = setting.flag();
        String text = values.get(flag).strip();
        if (text.isEmpty()) {
            return null;
        }
        Path path = Path.of(text);
        if (!Files.isReadable(path)) {
            throw new ConfigException(describe(setting, origins) + ": cannot read " + path);
        }
        return path;
    }

    private static String bind(String address) {
        if (address.isBlank()) {
            throw new ConfigException("--bind must not be empty");
        }
        return address.strip();
    }

    private static String describe(Setting setting, Map<String, String> origins) {
        String flag = setting.flag();
        return switch (origins.get(flag)) {
            case "env" -> setting.env();
            case "properties" -> "\"" + setting.property() + "\" in interlace.properties";
            default -> "--" + flag;
        };
    }

    private static String knownFlags(boolean dashes) {
        List<String> names = new ArrayList<>();
        for (Setting setting : SETTINGS) {
            names.add((dashes ? "--" : "") + setting.flag().toLowerCase(Locale.ROOT));
        }
        return String.join(", ", names);
    }
}
