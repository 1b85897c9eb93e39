package dev.interlace.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.auth.KeyFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeysCommandTest {

    private static final Pattern SECRET = Pattern.compile("ilk_[A-Za-z0-9_-]{43}");

    @TempDir
    Path dataDirectory;

    private final CliHarness cli = new CliHarness();

    private int run(Map<String, String> environment, String... args) {
        return cli.run(environment, args);
    }

    private int keys(String... args) {
        String[] withDirectory = new String[args.length + 2];
        System.arraycopy(args, 0, withDirectory, 0, args.length);
        withDirectory[args.length] = "--data-dir";
        withDirectory[args.length + 1] = dataDirectory.toString();
        String[] all = new String[withDirectory.length + 1];
        all[0] = "keys";
        System.arraycopy(withDirectory, 0, all, 1, withDirectory.length);
        return run(Map.of(), all);
    }

    private String stdout() {
        return cli.stdout();
    }

    private String stderr() {
        return cli.stderr();
    }

    private String createdSecret() {
        Matcher secret = SECRET.matcher(stdout());
        assertThat(secret.find()).as(stdout()).isTrue();
        return secret.group();
    }

    @Test
    void createPrintsTheSecretOnceAndStoresOnlyItsHash() throws Exception {
        assertThat(keys("create", "--name", "ingest", "--scope", "publish:orders,read", "--quota", "50"))
                .as(stderr()).isZero();
        String secret = createdSecret();
        assertThat(stdout()).contains("created key_").contains("\"ingest\"").contains("publish:orders,read")
                .contains("quota 50 events/s").contains("shown only now");
        assertThat(Files.readString(KeyFile.file(dataDirectory))).doesNotContain(secret)
                .doesNotContain(secret.substring(4));

        assertThat(keys("list")).isZero();
        assertThat(stdout()).doesNotContain(secret.substring(4)).contains("ingest").contains("publish:orders,read")
                .contains("| 50").contains("never").contains("(1 key, 1 live)");
        assertThat(List.of(stdout().lines().findFirst().orElseThrow().split("\\|")).stream().map(String::strip))
                .containsExactly("id", "name", "scopes", "quota", "created", "last used", "revoked");
    }

    @Test
    void createAndListSpeakJsonForScripts() throws Exception {
        assertThat(keys("create", "--name", "ops", "--scope", "admin", "--json")).isZero();
        JsonNode created = ServerClient.JSON.readTree(stdout());
        assertThat(created.get("secret").asText()).matches(SECRET);
        assertThat(created.get("id").asText()).matches("key_[0-9a-f]{8}");
        assertThat(created.get("scopes").get(0).asText()).isEqualTo("admin");

        assertThat(keys("list", "--json")).isZero();
        JsonNode listed = ServerClient.JSON.readTree(stdout());
        assertThat(listed.get("count").asInt()).isEqualTo(1);
        assertThat(listed.get("keys").get(0).get("id").asText()).isEqualTo(created.get("id").asText());
        assertThat(listed.get("keys").get(0).has("secret")).isFalse();
        assertThat(listed.get("keys").get(0).get("revoked_at").isNull()).isTrue();
        assertThat(stdout()).doesNotContain(created.get("secret").asText());
    }

    @Test
    void revokingTheLastKeySaysTheLoopbackServerIsNowOpen() throws Exception {
        assertThat(keys("create", "--name", "ingest", "--scope", "publish")).isZero();
        assertThat(keys("create", "--name", "ops", "--scope", "admin", "--json")).isZero();
        String opsId = ServerClient.JSON.readTree(stdout()).get("id").asText();

        assertThat(keys("revoke", "ingest")).as(stderr()).isZero();
        assertThat(stdout()).contains("revoked key_").contains("\"ingest\"").doesNotContain(KeysCommand.LAST_KEY);

        assertThat(keys("revoke", opsId)).as(stderr()).isZero();
        assertThat(stdout()).contains("revoked " + opsId)
                .contains("that was the last key: a loopback server is now open without keys");

        assertThat(keys("list")).isZero();
        assertThat(stdout()).contains("(2 keys, 0 live;");
        assertThat(stdout().lines().skip(2).limit(2).toList()).allSatisfy(row -> assertThat(row).matches(".*\\| \\d{4}-.*Z$"));
    }

    @Test
    void failuresExitOne() throws Exception {
        assertThat(keys("create", "--name", "ingest", "--scope", "publish")).isZero();
        assertThat(keys("create", "--name", "ingest", "--scope", "read")).isEqualTo(Main.FAILED);
        assertThat(stderr()).contains("a key named \"ingest\" exists");

        assertThat(keys("revoke", "nobody")).isEqualTo(Main.FAILED);
        assertThat(stderr()).contains("no key named or with id \"nobody\"");

        assertThat(keys("revoke", "ingest")).isZero();
        assertThat(keys("revoke", "ingest")).isEqualTo(Main.FAILED);
        assertThat(stderr()).contains("already revoked");
    }

    @Test
    void aCorruptKeyFileFailsNamingTheFile() throws Exception {
        Files.writeString(KeyFile.file(dataDirectory), "{\"format\":1,\"keys\":[");
        assertThat(keys("list")).isEqualTo(Main.FAILED);
        assertThat(stderr()).contains(KeyFile.file(dataDirectory).toString()).contains("not valid");
        assertThat(keys("create", "--name", "ingest", "--scope", "publish")).isEqualTo(Main.FAILED);
        assertThat(Files.readString(KeyFile.file(dataDirectory))).isEqualTo("{\"format\":1,\"keys\":[");
    }

    @Test
    void usageErrorsExitTwo() {
        assertThat(run(Map.of(), "keys")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("create, list or revoke").contains("usage: interlace keys");
        assertThat(keys("rotate")).isEqualTo(Main.USAGE);
        assertThat(keys("create", "--scope", "read")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("--name");
        assertThat(keys("create", "--name", "x")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("--scope");
        assertThat(keys("create", "--name", "x", "--scope", "write")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("unknown scope \"write\"");
        assertThat(keys("create", "--name", "x", "--scope", "read:orders")).isEqualTo(Main.USAGE);
        assertThat(keys("create", "--name", "x", "--scope", "read", "--quota", "-1")).isEqualTo(Main.USAGE);
        assertThat(keys("create", "--name", "x", "--scope", "read", "--quota", "lots")).isEqualTo(Main.USAGE);
        assertThat(keys("create", "--name", "has space", "--scope", "read")).isEqualTo(Main.USAGE);
        assertThat(keys("create", "--name", "x", "--scope", "read", "--secret", "s")).isEqualTo(Main.USAGE);
        assertThat(keys("revoke")).isEqualTo(Main.USAGE);
        assertThat(keys("list", "extra")).isEqualTo(Main.USAGE);
        assertThat(KeyFile.file(dataDirectory)).doesNotExist();
    }

    @Test
    void theDataDirectoryComesFromTheEnvironmentWithoutAFlag() {
        Path fromEnvironment = dataDirectory.resolve("from-env");
        assertThat(run(Map.of("INTERLACE_DATA_DIR", fromEnvironment.toString()), "keys", "create", "--name", "a",
                "--scope", "read")).as(stderr()).isZero();
        assertThat(KeyFile.file(fromEnvironment)).exists();
        assertThat(run(Map.of("INTERLACE_DATA_DIR", fromEnvironment.toString()), "keys", "list", "--data-dir",
                dataDirectory.toString())).isZero();
        assertThat(stdout()).contains("(0 keys, 0 live");
    }

    @Test
    void keysCanBeManagedWhileAServerRunsOnTheDataDirectory() throws Exception {
        try (Interlace server = CliHarness.start(dataDirectory, List.of())) {
            assertThat(server.uri()).isNotNull();
            assertThat(keys("create", "--name", "ingest", "--scope", "publish")).as(stderr()).isZero();
            String secret = createdSecret();
            try (KeyFile view = KeyFile.open(dataDirectory)) {
                assertThat(view.authenticate(secret)).isPresent();
            }
            assertThat(keys("revoke", "ingest")).as(stderr()).isZero();
        }
    }
}
