package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk: publishes are refused {@code 503 log_unavailable} with {@code Retry-After}, {@code /health/ready} says
 * why, nothing acknowledged is lost, nothing refused is stored, and the log writes again by itself once there is
 * room — no restart.
 */
class DiskFullTest {

    /** About 1 KiB per event, so that a small cap or a small file system fills within a few hundred requests. */
    private static final String PADDING = "x".repeat(1000);
    private static final int EVENTS_PER_REQUEST = 10;
    private static final int MAX_REQUESTS = 5_000;

    @TempDir
    Path dataDirectory;

    private int nextOrder;

    @Test
    void aLogThatCannotGrowRefusesWith503AndWritesAgainOnceThereIsRoomWithoutARestart() throws SQLException {
        try (PageLimitedLog log = PageLimitedLog.install(dataDirectory);
                TestServer api = TestServer.start(dataDirectory)) {
            Map<String, Boolean> acknowledged = new HashMap<>();
            assertThat(publish(api, acknowledged).status()).isEqualTo(200);
            log.limit(log.pageCount() + 40);

            Refusal refusal = publishUntilRefused(api, acknowledged);
            assertLogUnavailable(refusal.response());
            assertThat(refusal.response().body().get("message").asText()).contains("full");
            JsonNode ready = api.get("/health/ready").body();
            assertThat(ready.get("status").asText()).isEqualTo("not_ready");
            assertThat(ready.get("reasons").toString()).contains("log_unavailable: the disk holding the log is full");
            assertThat(api.get("/health/live").status()).isEqualTo(200);
            assertThat(api.postJson("/streams/orders", refusal.body()).status()).isEqualTo(503);

            log.limit(Integer.MAX_VALUE);
            assertThat(awaitReady(api)).isTrue();
            retryAndPublishAgain(api, refusal, acknowledged);

            assertEachPresentOnce(api, acknowledged.keySet());
            assertThat(api.awaitFlushed("orders").get("pending").asLong()).isZero();
            JsonNode warehouse = api.post("/sql", "text/plain",
                    "SELECT count(*), count(DISTINCT order_id) FROM streams.orders").body().get("rows").get(0);
            assertThat(warehouse.get(0).asLong()).isEqualTo(acknowledged.size());
            assertThat(warehouse.get(1).asLong()).isEqualTo(acknowledged.size());
        }
    }

    @Test
    void aFullFileSystemRefusesWith503AndWritesAgainOnceSpaceIsFreedWithoutARestart() throws IOException {
        try (SmallFileSystem disk = SmallFileSystem.mount(dataDirectory.resolve("disk"), "24m")) {
            Path data = disk.root().resolve("data");
            Map<String, Boolean> acknowledged = new HashMap<>();
            try (TestServer api = TestServer.start(data, "--min-free-disk-bytes", "0")) {
                assertThat(publish(api, acknowledged).status()).isEqualTo(200);
                Path filler = disk.root().resolve("filler");
                disk.fill(filler, 0);

                Refusal refusal = publishUntilRefused(api, acknowledged);
                assertLogUnavailable(refusal.response());
                JsonNode ready = api.get("/health/ready").body();
                assertThat(ready.get("status").asText()).isEqualTo("not_ready");
                assertThat(ready.get("reasons").toString()).contains("log_unavailable: the disk holding the log is full");
                assertThat(api.get("/health/live").status()).isEqualTo(200);

                Files.delete(filler);
                assertThat(awaitReady(api)).isTrue();
                retryAndPublishAgain(api, refusal, acknowledged);

                assertEachPresentOnce(api, acknowledged.keySet());
            }
            // Restarted on the same file system: the log holds exactly what was acknowledged.
            try (TestServer api = TestServer.start(data, "--min-free-disk-bytes", "0")) {
                assertEachPresentOnce(api, acknowledged.keySet());
            }
        }
    }

    @Test
    void belowTheDiskFloorPublishesAreRefusedBeforeTheLogFillsAndAcceptedOnceSpaceIsFreed() throws IOException {
        long floor = 4L << 20;
        try (SmallFileSystem disk = SmallFileSystem.mount(dataDirectory.resolve("disk"), "24m")) {
            Path data = disk.root().resolve("data");
            try (TestServer api = TestServer.start(data, "--min-free-disk-bytes", Long.toString(floor))) {
                Map<String, Boolean> acknowledged = new HashMap<>();
                assertThat(publish(api, acknowledged).status()).isEqualTo(200);
                Path filler = disk.root().resolve("filler");
                disk.fill(filler, floor / 2);

                List<String> keys = new ArrayList<>();
                TestServer.Response refused = api.postJson("/streams/orders", batch(keys));
                assertLogUnavailable(refused);
                assertThat(refused.body().get("message").asText()).contains("below the floor");
                JsonNode ready = api.get("/health/ready").body();
                assertThat(ready.get("reasons").toString()).contains("disk_below_floor");
                assertThat(ready.get("reasons").toString()).doesNotContain("log_unavailable");

                Files.delete(filler);
                assertThat(api.get("/health/ready").status()).isEqualTo(200);
                TestServer.Response accepted = api.postJson("/streams/orders", batch(new ArrayList<>()));
                assertThat(accepted.status()).as("%s", accepted.body()).isEqualTo(200);
                assertThat(eventKeys(api)).doesNotContainAnyElementsOf(keys).doesNotHaveDuplicates();
            }
        }
    }

    private record Refusal(TestServer.Response response, String body, List<String> keys) {}

    /** Publishes batches of new events until one is refused; remembers the keys of every acknowledged one. */
    private Refusal publishUntilRefused(TestServer api, Map<String, Boolean> acknowledged) {
        for (int i = 0; i < MAX_REQUESTS; i++) {
            List<String> keys = new ArrayList<>();
            String body = batch(keys);
            TestServer.Response response = api.postJson("/streams/orders", body);
            if (response.status() != 200) {
                return new Refusal(response, body, keys);
            }
            keys.forEach(key -> acknowledged.put(key, true));
        }
        throw new AssertionError("the log never filled in " + MAX_REQUESTS + " requests");
    }

    private TestServer.Response publish(TestServer api, Map<String, Boolean> acknowledged) {
        List<String> keys = new ArrayList<>();
        TestServer.Response response = api.postJson("/streams/orders", batch(keys));
        if (response.status() == 200) {
            keys.forEach(key -> acknowledged.put(key, true));
        }
        return response;
    }

    private String batch(List<String> keys) {
        StringBuilder body = new StringBuilder("[");
        for (int i = 0; i < EVENTS_PER_REQUEST; i++) {
            String key = "o" + nextOrder++;
            keys.add(key);
            body.append(i == 0 ? "" : ",").append("{\"order_id\":\"").append(key)
                    .append("\",\"total\":1.50,\"meta\":{\"padding\":\"").append(PADDING).append("\"}}");
        }
        return body.append("]").toString();
    }

    /** Once the log writes again: the refused request retried is accepted whole, and a new one is too. */
    private void retryAndPublishAgain(TestServer api, Refusal refusal, Map<String, Boolean> acknowledged) {
        TestServer.Response retried = api.postJson("/streams/orders", refusal.body());
        assertThat(retried.status()).isEqualTo(200);
        assertThat(retried.body().get("accepted").asInt()).isEqualTo(EVENTS_PER_REQUEST);
        refusal.keys().forEach(key -> acknowledged.put(key, true));
        assertThat(publish(api, acknowledged).status()).isEqualTo(200);
    }

    private static void assertLogUnavailable(TestServer.Response response) {
        assertError(response, 503, ErrorCode.LOG_UNAVAILABLE);
        assertThat(response.header("Retry-After")).matches("[1-9][0-9]*");
        // A full disk fails the write before anything is committed: the client is told so.
        assertThat(response.body().get("may_be_stored").asBoolean()).as("%s", response.body()).isFalse();
        assertThat(response.body().get("message").asText()).contains("nothing was stored");
    }

    /** Every acknowledged event is in the log exactly once, and nothing else is. */
    private static void assertEachPresentOnce(TestServer api, java.util.Set<String> acknowledged) {
        List<String> stored = eventKeys(api);
        assertThat(stored).doesNotHaveDuplicates();
        assertThat(stored).containsExactlyInAnyOrderElementsOf(acknowledged);
    }

    private static List<String> eventKeys(TestServer api) {
        List<String> keys = new ArrayList<>();
        long after = 0;
        while (true) {
            JsonNode page = api.get("/streams/orders/events?after=" + after + "&limit=1000").body();
            for (JsonNode item : page.get("events")) {
                keys.add(item.get("event").get("order_id").asText());
            }
            if (page.get("count").asInt() == 0) {
                return keys;
            }
            after = page.get("next_after").asLong();
        }
    }

    /** Waits (up to 30 s) for {@code /health/ready} to answer 200; the log notices room by itself. */
    private static boolean awaitReady(TestServer api) {
        return await(() -> api.get("/health/ready").status() == 200);
    }

    private static boolean await(java.util.function.BooleanSupplier condition) {
        try {
            Eventually.until("the condition holds", Duration.ofSeconds(30), condition::getAsBoolean);
            return true;
        } catch (AssertionError timedOut) {
            return false;
        }
    }

    /** A tmpfs of a fixed size mounted for one test; the test is skipped where mounting is not possible. */
    private record SmallFileSystem(Path root) implements AutoCloseable {

        static SmallFileSystem mount(Path root, String size) throws IOException {
            assumeTrue("root".equals(System.getProperty("user.name")),
                    "skipped: mounting a small tmpfs to fill needs root; the max_page_count test covers SQLITE_FULL");
            Files.createDirectories(root);
            int exit = run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", root.toString());
            assumeTrue(exit == 0, "skipped: mount -t tmpfs failed here (exit " + exit
                    + "); the max_page_count test covers SQLITE_FULL");
            return new SmallFileSystem(root);
        }

        /** Writes {@code filler} until the file system has at most {@code leaveBytes} free. */
        void fill(Path filler, long leaveBytes) throws IOException {
            byte[] chunk = new byte[64 * 1024];
            try (OutputStream out = Files.newOutputStream(filler)) {
                while (Files.getFileStore(root).getUsableSpace() > leaveBytes) {
                    long room = Files.getFileStore(root).getUsableSpace() - leaveBytes;
                    out.write(chunk, 0, (int) Math.min(chunk.length, Math.max(1, room)));
                    out.flush();
                }
            } catch (IOException e) {
                if (leaveBytes > 0 || !String.valueOf(e.getMessage()).contains("No space left")) {
                    throw e;
                }
            }
        }

        @Override
        public void close() {
            run("umount", "-l", root.toString());
        }

        private static int run(String... command) {
            try {
                Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
                process.getInputStream().transferTo(OutputStream.nullOutputStream());
                return process.waitFor();
            } catch (IOException e) {
                return -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }
    }
}
