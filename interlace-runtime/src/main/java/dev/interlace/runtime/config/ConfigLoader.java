package dev.interlace.runtime.config;

import dev.interlace.client.TrustedCertificates;
import dev.interlace.runtime.cluster.ClusterSecret;
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
     * One setting: its flag name (without {@code --}), environment variable, default, what its value looks like in
     * usage messages ({@code N}, {@code FILE}; empty for a switch, which needs none) and what it does.
     */
    public record Setting(String flag, String env, String defaultValue, String value, String description) {
        /** The key in {@code interlace.properties}: the flag name. */
        public String property() {
            return flag;
        }
    }

    public static final List<Setting> SETTINGS = List.of(
            new Setting("port", "INTERLACE_PORT", "8000", "N", "HTTP port; 0 picks a free one"),
            new Setting("bind", "INTERLACE_BIND", "127.0.0.1", "ADDRESS", "address to listen on"),
            new Setting("data-dir", "INTERLACE_DATA_DIR", ".interlace", "DIR",
                    "where the log, warehouse and lock live"),
            new Setting("max-body-bytes", "INTERLACE_MAX_BODY_BYTES", "10485760", "BYTES",
                    "largest request body, after decompression"),
            new Setting("max-inflight-bytes", "INTERLACE_MAX_INFLIGHT_BYTES", "0", "BYTES",
                    "bytes that HTTP requests in flight may hold together (bodies, pages, /sql results); beyond, 503"
                            + " overloaded; 0: a quarter of the JVM's maximum heap"),
            new Setting("max-connections", "INTERLACE_MAX_CONNECTIONS", "10000", "N",
                    "HTTP connections open at once; beyond, a few are kept for /health/* and the rest refused 503"),
            new Setting("max-connections-per-address", "INTERLACE_MAX_CONNECTIONS_PER_ADDRESS", "1000", "N",
                    "HTTP connections open at once from one client address (behind a proxy: as --max-connections)"),
            new Setting("max-events-per-request", "INTERLACE_MAX_EVENTS_PER_REQUEST", "10000", "N",
                    "most events in one publish"),
            new Setting("max-pending", "INTERLACE_MAX_PENDING", "100000", "N",
                    "most entries per stream waiting to be materialised before 429"),
            new Setting("min-free-disk-bytes", "INTERLACE_MIN_FREE_DISK_BYTES", "268435456", "BYTES",
                    "free disk below which publishes get 503"),
            new Setting("flush-delay-ms", "INTERLACE_FLUSH_DELAY_MS", "50", "MS",
                    "how long the flusher waits to batch more events"),
            new Setting("flush-batch-rows", "INTERLACE_FLUSH_BATCH_ROWS", "20000", "N", "rows per flush transaction"),
            new Setting("flush-batch-bytes", "INTERLACE_FLUSH_BATCH_BYTES", "16777216", "BYTES",
                    "event bytes a flush batch reads from the log (it ends with the event that reaches them)"),
            new Setting("record-retention", "INTERLACE_RECORD_RETENTION", "7d", "DURATION",
                    "how long publish, flush and system records are kept (<n><s|m|h|d|w>; 0 keeps none)"),
            new Setting("refused-requests", "INTERLACE_REFUSED_REQUESTS", "10000", "N",
                    "refused requests (4xx/5xx) kept in memory for GET /logs/api"),
            new Setting("ready-flush-failing-ms", "INTERLACE_READY_FLUSH_FAILING_MS", "30000", "MS",
                    "how long a stream's flush may fail before /health/ready answers 503"),
            new Setting("sql-timeout-ms", "INTERLACE_SQL_TIMEOUT_MS", "30000", "MS",
                    "how long a POST /sql query may run before it is cancelled and answered 408 query_timeout"),
            new Setting("read-wait-ms", "INTERLACE_READ_WAIT_MS", "5000", "MS",
                    "how long a warehouse request with Interlace-After waits for its positions to be materialised"
                            + " before 503 not_materialised"),
            new Setting("model-rest-ratio", "INTERLACE_MODEL_REST_RATIO", "3", "N",
                    "after a model run, wait this many times its duration before the next (0: back to back)"),
            new Setting("insecure-no-auth", "INTERLACE_INSECURE_NO_AUTH", "false", "",
                    "serve without API keys on a non-loopback address (never do this on a network you do not trust)"),
            new Setting("allowed-hosts", "INTERLACE_ALLOWED_HOSTS", "", "HOST[,HOST...]",
                    "extra Host names accepted, comma-separated (the loopback names always are)"),
            new Setting("cors-origins", "INTERLACE_CORS_ORIGINS", "", "ORIGIN[,ORIGIN...]",
                    "browser origins allowed to call the API, comma-separated, e.g. https://app.example"),
            new Setting("tls-cert", "INTERLACE_TLS_CERT", "", "FILE",
                    "PEM certificate chain: serve HTTPS (with --tls-key)"),
            new Setting("tls-key", "INTERLACE_TLS_KEY", "", "FILE", "PEM private key (PKCS#8) of --tls-cert"),
            new Setting("log", "INTERLACE_LOG", "sqlite", "sqlite|kafka",
                    "the stream log: sqlite (in the data directory) or kafka (needs --kafka-bootstrap)"),
            new Setting("kafka-bootstrap", "INTERLACE_KAFKA_BOOTSTRAP", "", "HOST:PORT[,...]",
                    "Kafka brokers to contact first, HOST:PORT[,HOST:PORT...] (with --log kafka)"),
            new Setting("kafka-topic-prefix", "INTERLACE_KAFKA_TOPIC_PREFIX", "interlace.", "PREFIX",
                    "prefix of every topic the Kafka log creates"),
            new Setting("kafka-replication-factor", "INTERLACE_KAFKA_REPLICATION_FACTOR", "3", "N",
                    "replicas of each topic the Kafka log creates"),
            new Setting("kafka-min-insync-replicas", "INTERLACE_KAFKA_MIN_INSYNC_REPLICAS", "2", "N",
                    "replicas that hold a record before a publish is acknowledged (min.insync.replicas)"),
            new Setting("advertise-url", "INTERLACE_ADVERTISE_URL", "", "URL",
                    "the URL other nodes reach this one at (default http(s)://<bind>:<port>)"),
            new Setting("cluster-secret-file", "INTERLACE_CLUSTER_SECRET_FILE", "", "FILE",
                    "the secret shared by a cluster's nodes (at least 32 bytes, owner-only); forward requests to them"),
            new Setting("cluster-ca-file", "INTERLACE_CLUSTER_CA_FILE", "", "FILE",
                    "PEM certificates trusted for https:// nodes, besides the JVM's defaults"),
            new Setting("role", "INTERLACE_ROLE", "all", "all|ingest|warehouse",
                    "what this node runs with --log kafka: all, ingest (HTTP and sequencing) or warehouse (flusher,"
                            + " DuckDB, models, /sql)"));

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

        Setting dataDirSetting = setting("data-dir");
        String dataDir = flags.containsKey("data-dir") ? flags.get("data-dir")
                : environment.getOrDefault(dataDirSetting.env(), dataDirSetting.defaultValue());
        origins.put("data-dir", flags.containsKey("data-dir") ? "flag"
                : environment.containsKey(dataDirSetting.env()) ? "env" : "default");
        Properties properties = readProperties(Path.of(dataDir).resolve("interlace.properties"));

        for (Setting setting : SETTINGS) {
            if (setting.flag().equals("data-dir")) {
                values.put("data-dir", dataDir);
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
            if (SETTINGS.stream().noneMatch(s -> s.property().equals(key)) || key.equals("data-dir")) {
                throw new ConfigException("unknown setting \"" + key + "\" in " + Path.of(dataDir)
                        .resolve("interlace.properties") + "; known settings: " + knownFlags(false));
            }
        }

        InterlaceConfig config = new InterlaceConfig(
                (int) number(values, origins, "port", 0, 65_535),
                bind(values.get("bind")),
                Path.of(dataDir),
                number(values, origins, "max-body-bytes", 1, Integer.MAX_VALUE - 16),
                number(values, origins, "max-inflight-bytes", 0, Long.MAX_VALUE / 2),
                (int) number(values, origins, "max-events-per-request", 1, 10_000_000),
                number(values, origins, "max-pending", 1, Long.MAX_VALUE / 2),
                number(values, origins, "min-free-disk-bytes", 0, Long.MAX_VALUE),
                number(values, origins, "flush-delay-ms", 0, 3_600_000),
                (int) number(values, origins, "flush-batch-rows", 1, 10_000_000),
                number(values, origins, "flush-batch-bytes", 1, Long.MAX_VALUE / 2),
                retention(values, origins, "record-retention"),
                (int) number(values, origins, "refused-requests", 0, 10_000_000),
                number(values, origins, "ready-flush-failing-ms", 0, 86_400_000),
                (int) number(values, origins, "model-rest-ratio", 0, 100),
                number(values, origins, "sql-timeout-ms", 100, 3_600_000),
                number(values, origins, "read-wait-ms", 0, 600_000),
                new Connections((int) number(values, origins, "max-connections", 1, 1_000_000),
                        (int) number(values, origins, "max-connections-per-address", 1, 1_000_000)),
                new Exposure(bool(values, origins, "insecure-no-auth"), hosts(values.get("allowed-hosts")),
                        origins(values, origins, "cors-origins"), file(values, origins, "tls-cert"),
                        file(values, origins, "tls-key")),
                log(values, origins));
        checkAdvertiseUrl(config, origins);
        return new Resolved(config, origins);
    }

    private static LogOptions log(Map<String, String> values, Map<String, String> origins) {
        String backend = values.get("log").strip().toLowerCase(Locale.ROOT);
        String bootstrap = values.get("kafka-bootstrap").strip();
        String prefix = values.get("kafka-topic-prefix").strip();
        int replicationFactor = (int) number(values, origins, "kafka-replication-factor", 1, 32);
        int minInsyncReplicas = (int) number(values, origins, "kafka-min-insync-replicas", 1, 32);
        if (!backend.equals(LogOptions.SQLITE) && !backend.equals(LogOptions.KAFKA)) {
            throw new ConfigException(describe("log", origins.get("log")) + " must be sqlite or kafka, got \""
                    + backend + "\"");
        }
        if (!prefix.matches("[A-Za-z0-9._-]{0,200}")) {
            throw new ConfigException(describe("kafka-topic-prefix", origins.get("kafka-topic-prefix"))
                    + " may hold only letters, digits, '.', '_' and '-', got \"" + prefix + "\"");
        }
        if (minInsyncReplicas > replicationFactor) {
            throw new ConfigException(describe("kafka-min-insync-replicas", origins.get("kafka-min-insync-replicas"))
                    + " (" + minInsyncReplicas + ") must not exceed the replication factor (" + replicationFactor
                    + "): no publish could ever be acknowledged");
        }
        if (backend.equals(LogOptions.KAFKA)) {
            if (bootstrap.isEmpty()) {
                throw new ConfigException("--log kafka needs --kafka-bootstrap HOST:PORT[,HOST:PORT...]");
            }
            for (String address : bootstrap.split(",")) {
                if (!address.strip().matches("[A-Za-z0-9.\\[\\]:_-]+:[0-9]{1,5}")) {
                    throw new ConfigException(describe("kafka-bootstrap", origins.get("kafka-bootstrap"))
                            + ": \"" + address.strip() + "\" is not HOST:PORT");
                }
            }
        }
        String advertiseUrl = values.get("advertise-url").strip();
        if (!advertiseUrl.isEmpty() && !advertiseUrl.matches("https?://[A-Za-z0-9.\\[\\]:_-]+(:[0-9]{1,5})?")) {
            throw new ConfigException(describe("advertise-url", origins.get("advertise-url")) + ": \"" + advertiseUrl
                    + "\" is not scheme://host[:port]");
        }
        Path secretFile = file(values, origins, "cluster-secret-file");
        if (secretFile != null) {
            try {
                ClusterSecret.read(secretFile);
            } catch (ConfigException e) {
                throw new ConfigException(describe("cluster-secret-file", origins.get("cluster-secret-file")) + ": "
                        + e.getMessage());
            }
        }
        Path caFile = file(values, origins, "cluster-ca-file");
        if (caFile != null) {
            try {
                TrustedCertificates.read(caFile);
            } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
                throw new ConfigException(describe("cluster-ca-file", origins.get("cluster-ca-file")) + ": "
                        + e.getMessage());
            }
        }
        Role role = role(values, origins, backend);
        return new LogOptions(backend, bootstrap, prefix, replicationFactor, minInsyncReplicas, advertiseUrl,
                secretFile, caFile, role);
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
            throw new ConfigException(describe("advertise-url", origins.get("advertise-url")) + ": \"" + advertised
                    + "\" is plain http:// to a host that is not loopback; requests forwarded between nodes would"
                    + " cross the network unencrypted. Serve TLS (--tls-cert, --tls-key) and advertise https://");
        }
    }

    private static Role role(Map<String, String> values, Map<String, String> origins, String backend) {
        String text = values.get("role").strip().toLowerCase(Locale.ROOT);
        Role role = switch (text) {
            case "all" -> Role.ALL;
            case "ingest" -> Role.INGEST;
            case "warehouse" -> Role.WAREHOUSE;
            default -> throw new ConfigException(describe("role", origins.get("role"))
                    + " must be all, ingest or warehouse, got \"" + text + "\"");
        };
        if (role != Role.ALL && !backend.equals(LogOptions.KAFKA)) {
            throw new ConfigException(describe("role", origins.get("role")) + " " + role.wire() + " needs --log kafka:"
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

    private static long number(Map<String, String> values, Map<String, String> origins, String flag, long min,
            long max) {
        String text = values.get(flag);
        long value;
        try {
            value = Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw new ConfigException(describe(flag, origins.get(flag)) + " must be a whole number, got \"" + text
                    + "\"");
        }
        if (value < min || value > max) {
            throw new ConfigException(describe(flag, origins.get(flag)) + " must be between " + min + " and " + max
                    + ", got " + value);
        }
        return value;
    }

    /** A duration {@code <integer><s|m|h|d|w>} in microseconds; {@code 0} alone means none. */
    private static long retention(Map<String, String> values, Map<String, String> origins, String flag) {
        String text = values.get(flag).strip();
        if (text.equals("0")) {
            return 0;
        }
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("([1-9][0-9]{0,8})([smhdw])").matcher(text);
        if (!matcher.matches()) {
            throw new ConfigException(describe(flag, origins.get(flag)) + " must be <integer><s|m|h|d|w> (e.g. 7d) or"
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

    private static boolean bool(Map<String, String> values, Map<String, String> origins, String flag) {
        String text = values.get(flag).strip().toLowerCase(Locale.ROOT);
        if (!text.equals("true") && !text.equals("false")) {
            throw new ConfigException(describe(flag, origins.get(flag)) + " must be true or false, got \"" + text
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
    private static List<String> origins(Map<String, String> values, Map<String, String> origins, String flag) {
        List<String> list = new ArrayList<>();
        for (String origin : values.get(flag).split(",")) {
            String trimmed = origin.strip();
            if (trimmed.isEmpty()) {
                continue;
            }
            if (!trimmed.matches("https?://[A-Za-z0-9.\\[\\]:-]+")) {
                throw new ConfigException(describe(flag, origins.get(flag)) + ": \"" + trimmed + "\" is not an origin;"
                        + " write scheme://host[:port], e.g. https://app.example");
            }
            list.add(trimmed.toLowerCase(Locale.ROOT));
        }
        return list;
    }

    private static Path file(Map<String, String> values, Map<String, String> origins, String flag) {
        String text = values.get(flag).strip();
        if (text.isEmpty()) {
            return null;
        }
        Path path = Path.of(text);
        if (!Files.isReadable(path)) {
            throw new ConfigException(describe(flag, origins.get(flag)) + ": cannot read " + path);
        }
        return path;
    }

    private static String bind(String address) {
        if (address.isBlank()) {
            throw new ConfigException("--bind must not be empty");
        }
        return address.strip();
    }

    private static String describe(String flag, String origin) {
        Setting setting = setting(flag);
        return switch (origin) {
            case "env" -> setting.env();
            case "properties" -> "\"" + setting.property() + "\" in interlace.properties";
            default -> "--" + flag;
        };
    }

    private static Setting setting(String flag) {
        return SETTINGS.stream().filter(s -> s.flag().equals(flag)).findFirst().orElseThrow();
    }

    private static String knownFlags(boolean dashes) {
        List<String> names = new ArrayList<>();
        for (Setting setting : SETTINGS) {
            names.add((dashes ? "--" : "") + setting.flag().toLowerCase(Locale.ROOT));
        }
        return String.join(", ", names);
    }
}
