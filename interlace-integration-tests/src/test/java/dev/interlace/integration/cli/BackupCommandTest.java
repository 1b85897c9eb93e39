package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.config.ConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code interlace backup} against a real server, and {@code interlace restore} of what it wrote. */
class BackupCommandTest {

    @TempDir
    Path temp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        out.reset();
        err.reset();
        return CliHarness.main(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(args);
    }

    @Test
    void backsUpARunningServerAndRestoresIntoANewDataDirectoryThatServes() throws Exception {
        Path backup = temp.resolve("backup");
        try (Interlace server = serve(temp.resolve("data"))) {
            HttpClient.newHttpClient().send(HttpRequest.newBuilder(server.uri().resolve("/streams/orders"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"o1\",\"total\":49.5}")).build(),
                    HttpResponse.BodyHandlers.discarding());
            server.instance(dev.interlace.runtime.flush.Flusher.class).drain(Duration.ofSeconds(60));

            assertThat(run("backup", "--to", backup.toString(), "--server", server.uri().toString())).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("backup in " + backup + ": ")
                    .contains("(log: sqlite)").contains("  orders: log head 1, flushed 1");

            // Relative to the server's --backup-root; nowhere outside it.
            assertThat(run("backup", "--to", "nightly/1", "--server", server.uri().toString())).isZero();
            assertThat(temp.resolve("nightly/1/manifest.json")).exists();
            assertThat(run("backup", "--to", "../outside", "--server", server.uri().toString())).isEqualTo(1);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("backup_outside_root")
                    .contains("--backup-root");
            assertThat(temp.resolveSibling("outside")).doesNotExist();
            assertThat(run("backup", "--server", server.uri().toString())).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("backup needs --to DIR");
        }

        Path restored = temp.resolve("restored");
        assertThat(run("restore", backup.toString(), "--data-dir", restored.toString())).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("every checksum verified")
                .contains("start it with: interlace serve --data-dir " + restored);
        try (Interlace server = serve(restored)) {
            assertThat(run("sql", "SELECT order_id FROM streams.orders", "--server", server.uri().toString(),
                    "--json")).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"rows\" : [ [ \"o1\" ] ]");
        }

        assertThat(run("restore", backup.toString(), "--data-dir", restored.toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("is not empty");
        byte[] log = Files.readAllBytes(backup.resolve("log.sqlite"));
        log[log.length - 1] ^= 0x20;
        Files.write(backup.resolve("log.sqlite"), log);
        assertThat(run("restore", backup.toString(), "--data-dir", temp.resolve("other").toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("interlace restore: the backup in " + backup
                + " is damaged: log.sqlite has SHA-256");
        assertThat(temp.resolve("other")).doesNotExist();
        assertThat(run("restore", backup.toString())).isEqualTo(2);
    }

    @Test
    void aBackupNeedsAnAdminKeyAndHoldsTheKeyFileOwnerOnlyWithHashesNotSecrets() throws Exception {
        Path data = temp.resolve("data");
        String admin = createKey(data, "ops", "admin");
        String reader = createKey(data, "dashboard", "read");
        Path backup = temp.resolve("backup");
        try (Interlace server = serve(data)) {
            HttpResponse<String> refused = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    server.uri().resolve("/admin/backup")).header("Authorization", "Bearer " + reader)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"to\": \"" + backup + "\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
            assertThat(backup).doesNotExist();

            int exit = CliHarness.main(() -> System.in, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), Map.of("INTERLACE_API_KEY", admin), false)
                    .run(new String[] {"backup", "--to", backup.toString(), "--server", server.uri().toString()});
            assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        }
        String keyFile = Files.readString(backup.resolve("keys.json"));
        assertThat(keyFile).contains("dashboard").doesNotContain(admin).doesNotContain(reader);
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(backup.resolve("keys.json")))).isEqualTo("rw-------");

        Path restored = temp.resolve("restored");
        assertThat(run("restore", backup.toString(), "--data-dir", restored.toString())).isZero();
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(restored.resolve("keys.json")))).isEqualTo("rw-------");
        try (Interlace server = serve(restored)) {
            HttpResponse<String> streams = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    server.uri().resolve("/streams")).header("Authorization", "Bearer " + reader).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(streams.statusCode()).as("the restored server accepts the same keys").isEqualTo(200);
        }
    }

    /** Creates a key in {@code data}'s key file with the CLI; returns its secret. */
    private String createKey(Path data, String name, String scope) {
        assertThat(run("keys", "create", "--name", name, "--scope", scope, "--data-dir", data.toString()))
                .as(err.toString(StandardCharsets.UTF_8)).isZero();
        java.util.regex.Matcher secret = java.util.regex.Pattern.compile("ilk_[A-Za-z0-9_-]{43}")
                .matcher(out.toString(StandardCharsets.UTF_8));
        assertThat(secret.find()).as(out.toString(StandardCharsets.UTF_8)).isTrue();
        return secret.group();
    }

    private static Interlace serve(Path dataDirectory) {
        return Interlace.builder().config(ConfigLoader.load(new String[] {"--port", "0", "--data-dir",
                dataDirectory.toString(), "--backup-root", dataDirectory.getParent().toString()}, Map.of()).config())
                .start();
    }
}
