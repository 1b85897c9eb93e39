package dev.interlace.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    @TempDir
    Path dataDirectory;

    private ConfigLoader.Resolved load(Map<String, String> env, String... flags) {
        String[] args = new String[flags.length + 2];
        args[0] = "--data-dir";
        args[1] = dataDirectory.toString();
        System.arraycopy(flags, 0, args, 2, flags.length);
        return ConfigLoader.load(args, env);
    }

    @Test
    void aConfigurationChangesByNameAndABuilderNamesWhatIsMissing() {
        InterlaceConfig loaded = load(Map.of(), "--port", "0", "--max-pending", "7").config();
        InterlaceConfig changed = loaded.toBuilder().maxPending(9).sqlIsolation(SqlIsolation.INLINE).build();
        assertThat(changed.maxPending()).isEqualTo(9);
        assertThat(changed.sqlIsolation()).isEqualTo(SqlIsolation.INLINE);
        assertThat(changed.toBuilder().maxPending(7).sqlIsolation(loaded.sqlIsolation()).build()).isEqualTo(loaded);
        assertThat(loaded.withPort(8123).port()).isEqualTo(8123);

        assertThatThrownBy(() -> InterlaceConfig.builder().port(0).bind("127.0.0.1").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("dataDirectory is not set");
    }

    @Test
    void defaultsMatchTheDesign() {
        InterlaceConfig config = ConfigLoader.load(new String[0], Map.of()).config();
        assertThat(config.port()).isEqualTo(8000);
        assertThat(config.bind()).isEqualTo("127.0.0.1");
        assertThat(config.dataDirectory()).isEqualTo(Path.of(".interlace"));
        assertThat(config.maxBodyBytes()).isEqualTo(10_485_760);
        assertThat(config.maxEventsPerRequest()).isEqualTo(10_000);
        assertThat(config.maxPending()).isEqualTo(100_000);
        assertThat(config.minFreeDiskBytes()).isEqualTo(268_435_456L);
        assertThat(config.flushDelayMillis()).isEqualTo(50);
        assertThat(config.flushBatchRows()).isEqualTo(20_000);
        assertThat(config.flushBatchBytes()).isEqualTo(16L << 20);
        assertThat(config.modelRestRatio()).isEqualTo(3);
    }

    @Test
    void aFlagBeatsTheEnvironmentWhichBeatsThePropertiesFileWhichBeatsTheDefault() throws IOException {
        Files.writeString(dataDirectory.resolve("interlace.properties"),
                "port=7001\nmax-pending=300\nmax-body-bytes=4096\nflush-delay-ms = 20\n");
        ConfigLoader.Resolved resolved = load(Map.of("INTERLACE_PORT", "7002", "INTERLACE_MAX_PENDING", "200"),
                "--port", "7003");
        assertThat(resolved.config().port()).isEqualTo(7003);
        assertThat(resolved.config().maxPending()).isEqualTo(200);
        assertThat(resolved.config().maxBodyBytes()).isEqualTo(4096);
        assertThat(resolved.config().flushDelayMillis()).isEqualTo(20);
        assertThat(resolved.config().maxEventsPerRequest()).isEqualTo(10_000);
        assertThat(resolved.origins()).containsEntry("port", "flag").containsEntry("max-pending", "env")
                .containsEntry("max-body-bytes", "properties").containsEntry("max-events-per-request", "default");
    }

    @Test
    void theDataDirectoryComesFromTheFlagOrTheEnvironment() {
        Path fromEnv = dataDirectory.resolve("env");
        assertThat(ConfigLoader.load(new String[0], Map.of("INTERLACE_DATA_DIR", fromEnv.toString())).config()
                .dataDirectory()).isEqualTo(fromEnv);
        assertThat(ConfigLoader.load(new String[] {"--data-dir=" + dataDirectory}, Map.of("INTERLACE_DATA_DIR",
                fromEnv.toString())).config().dataDirectory()).isEqualTo(dataDirectory);
    }

    @Test
    void badValuesNameTheSettingAndWhereItCameFrom() throws IOException {
        assertThatThrownBy(() -> load(Map.of(), "--port", "eighty"))
                .isInstanceOf(ConfigException.class).hasMessage("--port must be a whole number, got \"eighty\"");
        assertThatThrownBy(() -> load(Map.of("INTERLACE_MAX_PENDING", "0")))
                .hasMessage("INTERLACE_MAX_PENDING must be between 1 and " + Long.MAX_VALUE / 2 + ", got 0");
        assertThatThrownBy(() -> load(Map.of(), "--port", "70000")).hasMessageContaining("between 0 and 65535");
        assertThatThrownBy(() -> load(Map.of(), "--model-rest-ratio", "-1"))
                .hasMessage("--model-rest-ratio must be between 0 and 100, got -1");
        assertThat(load(Map.of("INTERLACE_MODEL_REST_RATIO", "0")).config().modelRestRatio()).isZero();
        Files.writeString(dataDirectory.resolve("interlace.properties"), "flush-batch-rows=-1\n");
        assertThatThrownBy(() -> load(Map.of()))
                .hasMessageContaining("\"flush-batch-rows\" in interlace.properties must be between 1");
    }

    @Test
    void theLogIsSqliteByDefaultAndKafkaNeedsBootstrapServers() {
        assertThat(load(Map.of()).config().log()).isEqualTo(LogOptions.sqlite());
        assertThat(load(Map.of("INTERLACE_KAFKA_BOOTSTRAP", "k1:9092,k2:9092"), "--log", "kafka",
                "--kafka-replication-factor", "1", "--kafka-min-insync-replicas", "1").config().log())
                .isEqualTo(LogOptions.kafka("k1:9092,k2:9092", "interlace.", 1, 1));
        assertThat(load(Map.of(), "--log", "kafka", "--kafka-bootstrap", "k1:9092").config().log())
                .as("three replicas, two in sync by default").isEqualTo(LogOptions.kafka("k1:9092", "interlace.", 3, 2));
        assertThatThrownBy(() -> load(Map.of(), "--log", "kafka"))
                .hasMessage("--log kafka needs --kafka-bootstrap HOST:PORT[,HOST:PORT...]");
        assertThatThrownBy(() -> load(Map.of(), "--log", "kafka", "--kafka-bootstrap", "k1"))
                .hasMessage("--kafka-bootstrap: \"k1\" is not HOST:PORT");
        assertThatThrownBy(() -> load(Map.of(), "--log", "postgres")).hasMessage("--log must be sqlite or kafka,"
                + " got \"postgres\"");
        assertThatThrownBy(() -> load(Map.of(), "--kafka-replication-factor", "1"))
                .hasMessageStartingWith("--kafka-min-insync-replicas (2) must not exceed the replication factor (1)");
        assertThatThrownBy(() -> load(Map.of(), "--kafka-topic-prefix", "a/b"))
                .hasMessageStartingWith("--kafka-topic-prefix may hold only");
    }

    @Test
    void aRoleOtherThanAllNeedsTheKafkaLog() {
        assertThat(load(Map.of()).config().role()).isEqualTo(Role.ALL);
        assertThat(load(Map.of(), "--log", "kafka", "--kafka-bootstrap", "k1:9092", "--role", "ingest").config()
                .role()).isEqualTo(Role.INGEST);
        assertThat(load(Map.of("INTERLACE_ROLE", "Warehouse"), "--log", "kafka", "--kafka-bootstrap", "k1:9092")
                .config().role()).isEqualTo(Role.WAREHOUSE);
        assertThatThrownBy(() -> load(Map.of(), "--role", "ingest")).hasMessage("--role ingest needs --log kafka:"
                + " on the SQLite log one server owns both the log and the warehouse, so it runs everything"
                + " (--role all)");
        assertThatThrownBy(() -> load(Map.of(), "--log", "kafka", "--kafka-bootstrap", "k1:9092", "--role",
                "flusher")).hasMessage("--role must be all, ingest or warehouse, got \"flusher\"");
    }

    @Test
    void theAdvertisedUrlDefaultsToTheBindAddressAndPort() {
        assertThat(load(Map.of(), "--port", "8123").config().advertisedUrl()).isEqualTo("http://127.0.0.1:8123");
        assertThat(load(Map.of(), "--bind", "::1", "--port", "8123").config().advertisedUrl())
                .isEqualTo("http://[::1]:8123");
        assertThat(load(Map.of(), "--advertise-url", "https://node-1.example:8443").config().advertisedUrl())
                .isEqualTo("https://node-1.example:8443");
    }

    @Test
    void unknownOrRepeatedFlagsAndUnknownPropertiesAreErrors() throws IOException {
        assertThatThrownBy(() -> load(Map.of(), "--prot", "1")).hasMessageStartingWith("unknown flag --prot;")
                .hasMessageContaining("--port");
        assertThatThrownBy(() -> load(Map.of(), "--port", "1", "--port", "2")).hasMessageContaining("given twice");
        assertThatThrownBy(() -> load(Map.of(), "--port")).hasMessage("flag --port needs a value");
        assertThatThrownBy(() -> load(Map.of(), "serve")).hasMessage("unexpected argument \"serve\"");
        Files.writeString(dataDirectory.resolve("interlace.properties"), "maxpending=5\n");
        assertThatThrownBy(() -> load(Map.of())).hasMessageContaining("unknown setting \"maxpending\"");
    }

    @Test
    void plainHttpIsAdvertisedOnlyForALoopbackHostAndAClusterNodeOffLoopbackMustAdvertiseItself() {
        assertThat(load(Map.of(), "--advertise-url", "http://127.0.0.1:8001").config().advertisedUrl())
                .isEqualTo("http://127.0.0.1:8001");
        assertThat(load(Map.of(), "--advertise-url", "http://localhost:8001").config().advertisedUrl())
                .isEqualTo("http://localhost:8001");
        assertThat(load(Map.of(), "--advertise-url", "https://node1.example:8000").config().advertisedUrl())
                .isEqualTo("https://node1.example:8000");
        assertThat(load(Map.of(), "--port", "8123").config().advertisedUrl()).isEqualTo("http://127.0.0.1:8123");
        assertThatThrownBy(() -> load(Map.of(), "--advertise-url", "http://10.0.0.5:8000"))
                .hasMessageStartingWith("--advertise-url: \"http://10.0.0.5:8000\" is plain http:// to a host that"
                        + " is not loopback").hasMessageContaining("advertise https://");
        assertThatThrownBy(() -> load(Map.of("INTERLACE_ADVERTISE_URL", "http://node1.example:8000")))
                .hasMessageStartingWith("INTERLACE_ADVERTISE_URL: \"http://node1.example:8000\" is plain http://");
        assertThatThrownBy(() -> load(Map.of(), "--log", "kafka", "--kafka-bootstrap", "k1:9092", "--bind",
                "0.0.0.0")).hasMessageStartingWith("--log kafka on --bind 0.0.0.0 needs --advertise-url");
        assertThatThrownBy(() -> load(Map.of(), "--log", "kafka", "--kafka-bootstrap", "k1:9092", "--port", "0"))
                .hasMessageStartingWith("--log kafka with --port 0 needs --advertise-url or a port of its own");
        assertThat(load(Map.of(), "--log", "kafka", "--kafka-bootstrap", "k1:9092", "--port", "0",
                "--advertise-url", "http://127.0.0.1:8123").config().advertisedUrl()).isEqualTo("http://127.0.0.1:8123");
    }

    @Test
    void theClusterSecretFileMustBeOwnerOnlyAndLongEnough() throws IOException {
        Path secret = dataDirectory.resolve("cluster.secret");
        Files.writeString(secret, "0123456789abcdef0123456789abcdef\n");
        Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        assertThat(load(Map.of(), "--cluster-secret-file", secret.toString()).config().log().clusterSecretFile())
                .isEqualTo(secret);

        Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> load(Map.of(), "--cluster-secret-file", secret.toString()))
                .hasMessage("--cluster-secret-file: the cluster secret file " + secret + " may be read or written by"
                        + " other users (rw-r--r--); make it owner-only: chmod 600 " + secret);

        Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Files.writeString(secret, "too short\n");
        assertThatThrownBy(() -> load(Map.of(), "--cluster-secret-file", secret.toString()))
                .hasMessageStartingWith("--cluster-secret-file: the cluster secret file " + secret + " holds 9 bytes;"
                        + " a cluster secret needs at least 32");
        assertThatThrownBy(() -> load(Map.of(), "--cluster-secret-file", dataDirectory.resolve("none").toString()))
                .hasMessageStartingWith("--cluster-secret-file: cannot read");
    }

    @Test
    void theClusterCaFileMustHoldCertificates() throws IOException {
        Path notPem = Files.writeString(dataDirectory.resolve("ca.pem"), "not a certificate");
        assertThatThrownBy(() -> load(Map.of(), "--cluster-ca-file", notPem.toString()))
                .hasMessageStartingWith("--cluster-ca-file: " + notPem + " holds no PEM certificate");
    }
}
