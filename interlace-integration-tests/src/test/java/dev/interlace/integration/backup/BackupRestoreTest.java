package dev.interlace.integration.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.integration.crash.ChildClassPath;
import dev.interlace.integration.crash.Ledger;
import dev.interlace.integration.crash.Load;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.backup.BackupException;
import dev.interlace.runtime.backup.BackupManifest;
import dev.interlace.runtime.backup.Restore;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Online backup ({@code POST /admin/backup}) and offline restore on the SQLite log, against real servers on
 * ephemeral ports: under publish load, with a damaged backup, into a non-empty directory, and with the server killed
 * in the middle of a backup.
 */
class BackupRestoreTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration DRAIN = Duration.ofSeconds(120);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path temp;

    /** A server on an ephemeral port whose flushes wait {@code flushDelayMillis}, so the log runs ahead. */
    private static Interlace serve(Path dataDirectory, long flushDelayMillis) {
        return Interlace.builder().config(ConfigLoader.load(new String[] {"--port", "0", "--data-dir",
                dataDirectory.toString(), "--max-pending", "10000000", "--flush-delay-ms",
                Long.toString(flushDelayMillis), "--backup-root", dataDirectory.getParent().toString()}, Map.of())
                .config()).start();
    }

    private static HttpResponse<String> backup(URI server, String body) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(server.resolve("/admin/backup")).timeout(Duration.ofMinutes(5))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String to(Path directory) {
        return JSON.createObjectNode().put("to", directory.toString()).toString();
    }

    private static JsonNode stream(URI server) throws IOException, InterruptedException {
        return JSON.readTree(HTTP.send(HttpRequest.newBuilder(server.resolve("/streams/orders")).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    @Test
    void aBackupTakenUnderLoadRestoresEveryEventAcknowledgedBeforeItExactlyOnce() throws Exception {
        Path original = temp.resolve("original");
        Path backupDirectory = temp.resolve("backup");
        Path restored = temp.resolve("restored");
        Ledger ledger = new Ledger();
        Set<String> acknowledgedBefore;
        Set<String> acknowledgedAtEnd;
        Set<String> mayHold;
        BackupManifest.Positions positions;
        try (Interlace server = serve(original, 1_000)) {
            Load load = Load.start(server.uri(), ledger, "b", Duration.ofMinutes(5), 39);
            assertThat(load.awaitAcknowledged(3_000, DRAIN)).as("the load got going").isTrue();
            // The warehouse's copy should hold rows too before the backup.
            Eventually.get("a watermark above 0", DRAIN, () -> stream(server.uri()).path("watermark").asLong(),
                    watermark -> watermark > 0);
            acknowledgedBefore = ledger.acknowledged().keySet();

            HttpResponse<String> answer = backup(server.uri(), to(backupDirectory));

            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            JsonNode manifest = JSON.readTree(answer.body());
            assertThat(manifest.path("files").findValuesAsText("name"))
                    .contains("warehouse.duckdb", "log.sqlite", "records.sqlite");
            positions = BackupManifest.readFrom(backupDirectory).streams().get("orders");
            // Publishing went on: keys acknowledged after the backup are the negative control below.
            long afterBackup = load.acknowledgedEvents();
            assertThat(load.awaitAcknowledged(afterBackup + 1_000, DRAIN)).as("the load went on").isTrue();
            load.stop();
            assertThat(load.awaitEnd(DRAIN)).isTrue();
            acknowledgedAtEnd = ledger.acknowledged().keySet();
            mayHold = BackupOracle.acknowledgedOrInDoubt(ledger);
            assertThat(ledger.anomalies()).isEmpty();
        }
        assertThat(positions.flushed()).as("the warehouse's copy holds rows: " + positions).isPositive();

        Restore.restore(backupDirectory, restored);
        List<String> republished = acknowledgedBefore.stream().sorted().limit(200).toList();
        try (Interlace server = serve(restored, 50)) {
            // The backup has no deduplication segments: the restored server finds the keys in its log.
            JsonNode again = JSON.readTree(publishBody(server.uri(), Load.batch(republished)).body());
            assertThat(again.path("deduplicated").asInt()).as(again.toString()).isEqualTo(republished.size());
            publish(server.uri(), "after-restore", 10);
            mayHold.addAll(java.util.stream.IntStream.range(0, 10).mapToObj(n -> "after-restore-" + n).toList());
            assertThat(server.instance(Flusher.class).drain(DRAIN)).isTrue();
            JsonNode stream = stream(server.uri());
            assertThat(stream.path("pending").asLong()).as(stream.toString()).isZero();
        }
        Map<String, Long> stored = BackupOracle.storedKeys(restored);
        assertThat(stored).as("publishes after the restore are materialised").containsKeys("after-restore-0",
                "after-restore-9");

        List<String> problems = BackupOracle.problems(acknowledgedBefore, mayHold, stored);
        assertThat(problems).as(BackupOracle.summary(problems)).isEmpty();
        assertThat(stored.size()).as("the restored log held events the backup's warehouse had not flushed")
                .isGreaterThan((int) positions.flushed());
        // Negative control: the same oracle, asked for the keys acknowledged after the backup too, must find them
        // missing — the restore is the data as of the backup, and the oracle sees a missing key.
        assertThat(BackupOracle.problems(acknowledgedAtEnd, mayHold, stored))
                .anyMatch(problem -> problem.startsWith("acknowledged before the backup, missing"));
    }

    @Test
    void aDamagedOrIncompleteBackupIsRefusedAtRestoreNamingTheFile() throws Exception {
        Path backupDirectory = temp.resolve("backup");
        try (Interlace server = serve(temp.resolve("original"), 50)) {
            publish(server.uri(), "order", 200);
            assertThat(server.instance(Flusher.class).drain(DRAIN)).isTrue();
            assertThat(backup(server.uri(), to(backupDirectory)).statusCode()).isEqualTo(200);
        }
        for (String name : List.of("warehouse.duckdb", "log.sqlite", "records.sqlite")) {
            Path damaged = copyOf(backupDirectory, temp.resolve("damaged-" + name));
            byte[] bytes = Files.readAllBytes(damaged.resolve(name));
            bytes[bytes.length / 2] ^= 0x01;
            Files.write(damaged.resolve(name), bytes);
            Path target = temp.resolve("restored-" + name);

            assertThatThrownBy(() -> Restore.restore(damaged, target)).isInstanceOf(BackupException.class)
                    .hasMessageContaining(name + " has SHA-256").hasMessageContaining("nothing was restored");
            assertThat(target).doesNotExist();
        }
        Path incomplete = copyOf(backupDirectory, temp.resolve("incomplete"));
        Files.delete(incomplete.resolve("log.sqlite"));
        assertThatThrownBy(() -> Restore.restore(incomplete, temp.resolve("restored-incomplete")))
                .hasMessageContaining("log.sqlite, listed in its manifest, is missing");
        Files.delete(incomplete.resolve(BackupManifest.FILE_NAME));
        assertThatThrownBy(() -> Restore.restore(incomplete, temp.resolve("restored-unfinished")))
                .hasMessageContaining("no manifest.json").hasMessageContaining("did not finish");
        assertThat(temp.resolve("restored-incomplete")).doesNotExist();

        Path restored = temp.resolve("restored");
        Restore.restore(backupDirectory, restored);
        assertThat(BackupOracle.storedKeys(restored)).hasSize(200);
    }

    @Test
    void aRestoreIntoANonEmptyDirectoryIsRefusedAndLeavesItAsItWas() throws Exception {
        Path backupDirectory = temp.resolve("backup");
        try (Interlace server = serve(temp.resolve("original"), 50)) {
            publish(server.uri(), "order", 10);
            assertThat(backup(server.uri(), to(backupDirectory)).statusCode()).isEqualTo(200);
        }
        Path occupied = Files.createDirectories(temp.resolve("occupied"));
        Files.writeString(occupied.resolve("notes.txt"), "mine");

        assertThatThrownBy(() -> Restore.restore(backupDirectory, occupied)).isInstanceOf(BackupException.class)
                .hasMessageContaining("is not empty");
        try (var files = Files.list(occupied)) {
            assertThat(files.map(file -> file.getFileName().toString()).toList()).containsExactly("notes.txt");
        }
    }

    @Test
    void theRouteRefusesANonEmptyDirectoryTheDataDirectoryAndABodyWithoutATarget() throws Exception {
        Path occupied = Files.createDirectories(temp.resolve("occupied"));
        Files.writeString(occupied.resolve("notes.txt"), "mine");
        try (Interlace server = serve(temp.resolve("original"), 50)) {
            HttpResponse<String> nonEmpty = backup(server.uri(), to(occupied));
            HttpResponse<String> missing = backup(server.uri(), "{}");
            HttpResponse<String> inside = backup(server.uri(), to(temp.resolve("original").resolve("backup")));

            for (HttpResponse<String> answer : List.of(nonEmpty, missing, inside)) {
                assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
                assertThat(JSON.readTree(answer.body()).path("error").asText()).isEqualTo("invalid_backup");
            }
            assertThat(nonEmpty.body()).contains("not an empty directory");
            assertThat(inside.body()).contains("inside the data directory");
            assertThat(temp.resolve("original").resolve("backup")).doesNotExist();
        }
    }

    @Test
    void theRouteWritesOnlyUnderTheBackupRootByDefaultTheDataDirectorysBackups() throws Exception {
        Path data = temp.resolve("data");
        Path elsewhere = temp.resolve("elsewhere");
        try (Interlace server = Interlace.builder().config(ConfigLoader.load(new String[] {"--port", "0",
                "--data-dir", data.toString()}, Map.of()).config()).start()) {
            HttpResponse<String> outside = backup(server.uri(), to(elsewhere));
            HttpResponse<String> escaping = backup(server.uri(), "{\"to\": \"../../elsewhere\"}");
            HttpResponse<String> root = backup(server.uri(), to(data.resolve("backups")));
            for (HttpResponse<String> answer : List.of(outside, escaping, root)) {
                assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
                assertThat(JSON.readTree(answer.body()).path("error").asText()).isEqualTo("backup_outside_root");
                assertThat(answer.body()).contains("--backup-root");
            }
            assertThat(elsewhere).doesNotExist();

            HttpResponse<String> relative = backup(server.uri(), "{\"to\": \"nightly-1\"}");
            HttpResponse<String> absolute = backup(server.uri(), to(data.resolve("backups").resolve("nightly-2")));
            for (HttpResponse<String> answer : List.of(relative, absolute)) {
                assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            }
            assertThat(JSON.readTree(relative.body()).path("directory").asText())
                    .isEqualTo(data.toAbsolutePath().resolve("backups").resolve("nightly-1").toString());
            assertThat(data.resolve("backups").resolve("nightly-1").resolve("manifest.json")).exists();
            assertThat(data.resolve("backups").resolve("nightly-2").resolve("manifest.json")).exists();
        }
    }

    @Test
    void aServerKilledInTheMiddleOfABackupRestartsWithEveryAcknowledgedEvent() throws Exception {
        Path dataDirectory = temp.resolve("data");
        Path backupDirectory = temp.resolve("backup");
        String classPath = ChildClassPath.snapshot(temp.resolve("classpath"));
        Path scratch = Files.createDirectories(temp.resolve("scratch"));
        Ledger ledger = new Ledger();
        try (BackupChild child = BackupChild.spawn(dataDirectory, BackupServerMain.HALT_IN_BACKUP,
                temp.resolve("child.err"), classPath, scratch)) {
            URI server = child.awaitListening();
            Load load = Load.start(server, ledger, "k", Duration.ofMinutes(5), 7);
            assertThat(load.awaitAcknowledged(3_000, DRAIN)).as("the load got going").isTrue();

            CompletableFuture<HttpResponse<String>> answer = HTTP.sendAsync(
                    HttpRequest.newBuilder(server.resolve("/admin/backup")).timeout(Duration.ofMinutes(5))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(to(backupDirectory))).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(child.faultMarker()).as("the child halted in the backup" + child.diagnostics()).isNotNull();
            assertThat(child.awaitExit(Duration.ofSeconds(30))).isTrue();
            load.stop();
            assertThat(load.awaitEnd(DRAIN)).isTrue();
            assertThat(answer).failsWithin(Duration.ofSeconds(30));
        }
        assertThat(backupDirectory.resolve("log.sqlite")).as("the crash came after the log's copy").exists();
        assertThatThrownBy(() -> Restore.restore(backupDirectory, temp.resolve("restored")))
                .hasMessageContaining("no manifest.json");

        Set<String> acknowledged = ledger.acknowledged().keySet();
        Set<String> mayHold = BackupOracle.acknowledgedOrInDoubt(ledger);
        try (Interlace server = serve(dataDirectory, 50)) {
            assertThat(server.instance(Flusher.class).drain(DRAIN)).isTrue();
            assertThat(stream(server.uri()).path("pending").asLong()).isZero();
            // It serves: a publish after the restart is acknowledged.
            publish(server.uri(), "after-restart", 1);
            mayHold.add("after-restart-0");
            assertThat(server.instance(Flusher.class).drain(DRAIN)).isTrue();
        }
        Map<String, Long> stored = BackupOracle.storedKeys(dataDirectory);
        List<String> problems = BackupOracle.problems(acknowledged, mayHold, stored);
        assertThat(problems).as(BackupOracle.summary(problems)).isEmpty();
        assertThat(stored).containsKey("after-restart-0");
    }

    /** Publishes {@code count} orders keyed {@code <prefix>-<n>} in one request; asserts the 200. */
    private static void publish(URI server, String prefix, int count) throws IOException, InterruptedException {
        List<String> keys = java.util.stream.IntStream.range(0, count).mapToObj(n -> prefix + "-" + n).toList();
        publishBody(server, Load.batch(keys));
    }

    /** Publishes a body to {@code orders}; asserts the 200. */
    private static HttpResponse<String> publishBody(URI server, String body) throws IOException, InterruptedException {
        HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(server.resolve("/streams/orders"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return answer;
    }

    private static Path copyOf(Path directory, Path target) throws IOException {
        Files.createDirectories(target);
        try (var files = Files.list(directory)) {
            for (Path file : files.toList()) {
                Files.copy(file, target.resolve(file.getFileName()));
            }
        }
        return target;
    }
}
