package dev.interlace.integration.consumercrash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.client.InterlaceClient;
import dev.interlace.client.PublishResult;
import dev.interlace.integration.consumercrash.ConsumerOracle.Op;
import dev.interlace.integration.consumercrash.ConsumerOracle.Processed;
import dev.interlace.integration.crash.ChildClassPath;
import dev.interlace.integration.crash.Halt;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.Pause;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer groups under crashes and competition, with real consumers in child JVMs (issue 6): a consumer killed
 * between processing and commit makes its successor re-read from the committed offset (at least once, nothing
 * skipped); two consumers competing for a group never both commit; a stale holder's commit is refused after a
 * takeover. Each consumer's side effect is a file of the offsets it processed; its group operations are recorded by a
 * proxy in front of the server ({@link RecordingProxy}). A negative control (commit before processing) must make the
 * crash oracle report skipped offsets.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsumerCrashTest {

    private static final int EVENTS = 300;
    private static final int BATCH = 20;
    private static final int HALT_AT_BATCH = 5;
    private static final Duration EXIT = Duration.ofSeconds(40);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path shared;

    private static String childClassPath;

    /** Kept when a test fails: the consumers' files (offsets, group operations, stderr) are the post-mortem. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path temp;

    private final List<ConsumerChild> children = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private Interlace server;

    @BeforeAll
    static void copyTheClassPath() throws Exception {
        childClassPath = ChildClassPath.snapshot(shared.resolve("classpath"));
    }

    @AfterEach
    void stopEverything() {
        children.forEach(ConsumerChild::close);
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aConsumerHaltedBetweenProcessingAndCommitIsFollowedByOneThatRereadsFromTheCommittedOffset()
            throws Exception {
        startServer();
        publish(1, EVENTS);

        ConsumerChild first = spawn("c1", "stream", "g", HALT_AT_BATCH, 3000);
        assertThat(first.awaitExit(EXIT)).as("c1 halts at batch %d%s", HALT_AT_BATCH, first.diagnostics()).isTrue();
        assertThat(first.exitStatus()).as("c1 halted at its fault point%s", first.diagnostics())
                .isEqualTo(Halt.STATUS);
        JsonNode atCrash = group("g");
        long committedAtCrash = atCrash.get("committed_offset").asLong();
        List<Op> firstOps = ConsumerOracle.ops("c1", first.ops);
        long firstToken = firstOps.stream().filter(Op::grantedLease).mapToLong(Op::token).max().orElseThrow();
        assertThat(committedAtCrash).as("c1 committed its first %d batches", HALT_AT_BATCH - 1)
                .isEqualTo((long) (HALT_AT_BATCH - 1) * BATCH);
        assertThat(first.haltLine()).isEqualTo(ConsumerMain.HALTING + HALT_AT_BATCH + " offsets "
                + (committedAtCrash + 1) + ".." + (committedAtCrash + BATCH));

        ConsumerChild second = spawn("c2", "stream", "g", 0, 3000);
        assertThat(second.awaitExit(EXIT)).as("c2 runs to offset %d%s", EVENTS, second.diagnostics()).isTrue();
        assertThat(second.exitStatus()).as("c2 exit%s", second.diagnostics()).isZero();

        List<Processed> firstProcessed = ConsumerOracle.processed(first.out);
        List<Processed> secondProcessed = ConsumerOracle.processed(second.out);
        List<String> violations = ConsumerOracle.crashViolations(EVENTS, firstProcessed, secondProcessed,
                committedAtCrash);
        assertThat(violations).as("crash oracle%s%s", first.diagnostics(), second.diagnostics()).isEmpty();

        List<Op> secondOps = ConsumerOracle.ops("c2", second.ops);
        Op takeover = secondOps.stream().filter(Op::grantedLease).findFirst().orElseThrow();
        assertThat(takeover.token()).as("c2's token fences c1's").isGreaterThan(firstToken);
        assertThat(takeover.value()).as("c2 leased at the committed offset").isEqualTo(committedAtCrash);
        List<Op> all = new ArrayList<>(firstOps);
        all.addAll(secondOps);
        assertThat(ConsumerOracle.commitOrderViolations(all)).isEmpty();

        JsonNode end = group("g");
        assertThat(end.get("committed_offset").asLong()).isEqualTo(EVENTS);
        assertThat(end.get("lag").asLong()).isZero();
        assertThat(end.get("holder").isNull()).as("c2 released the lease: %s", end).isTrue();
        long waitedMillis = (takeover.receivedMicros() - firstOps.get(firstOps.size() - 1).receivedMicros()) / 1000;
        System.out.printf("[consumer-crash] crash: c1 processed %d offsets, halted in batch %d (offsets %d..%d) with"
                + " the group at %d (holder at crash: %s); c2 got token %d > %d after %d lease_held answers (~%d ms"
                + " after c1's last operation), processed %d offsets from %d; redelivered %d; final %s; %s%n",
                firstProcessed.size(), HALT_AT_BATCH, committedAtCrash + 1, committedAtCrash + BATCH,
                committedAtCrash, atCrash.get("holder"), takeover.token(), firstToken,
                secondOps.stream().filter(op -> op.op().equals("lease") && op.status() == 409).count(), waitedMillis,
                secondProcessed.size(), secondProcessed.get(0).offset(),
                firstProcessed.size() + secondProcessed.size() - EVENTS, end, ConsumerOracle.figures(all));
    }

    @Test
    void negativeControlCommittingBeforeProcessingIsCaughtAsSkippedOffsets() throws Exception {
        startServer();
        publish(1, EVENTS);

        ConsumerChild broken = spawn("bad", "commit-first", "g", HALT_AT_BATCH, 3000);
        assertThat(broken.awaitExit(EXIT)).as("bad halts%s", broken.diagnostics()).isTrue();
        assertThat(broken.exitStatus()).as("bad halted at its fault point%s", broken.diagnostics())
                .isEqualTo(Halt.STATUS);
        long committedAtCrash = group("g").get("committed_offset").asLong();
        assertThat(committedAtCrash).as("the broken consumer committed the batch it never processed")
                .isEqualTo((long) HALT_AT_BATCH * BATCH);

        ConsumerChild second = spawn("c2", "stream", "g", 0, 3000);
        assertThat(second.awaitExit(EXIT)).as("c2 runs to the end%s", second.diagnostics()).isTrue();
        assertThat(second.exitStatus()).isZero();

        List<String> violations = ConsumerOracle.crashViolations(EVENTS, ConsumerOracle.processed(broken.out),
                ConsumerOracle.processed(second.out), committedAtCrash);
        long lost = committedAtCrash - BATCH + 1;
        assertThat(violations).as("the oracle catches the skipped batch").contains(
                "skipped offsets (never processed by anyone): " + lost + ".." + committedAtCrash);
        System.out.println("[consumer-crash] negative control (commit before processing, halted in batch "
                + HALT_AT_BATCH + "): the oracle reports\n[consumer-crash]   " + String.join("\n[consumer-crash]   ",
                violations));
    }

    @Test
    void twoConsumersCompetingForAGroupNeverBothCommitWhileEventsKeepArriving() throws Exception {
        startServer();
        int total = 400;
        // Leases of 1 s; each consumer stalls 1.6 s in its handler on every 3rd batch (3 times at most), so the
        // other takes over and the staller's commit after the stall must be refused.
        List<String> race = List.of("ttl=1000", "poll=200", "stallEvery=3", "stallMs=1600", "maxStalls=3");
        ConsumerChild a = spawn("a", "stream", "race", 0, 1000, race);
        ConsumerChild b = spawn("b", "stream", "race", 0, 1000, race);
        a.awaitStarted(EXIT);
        b.awaitStarted(EXIT);
        CompletableFuture<Void> publisher = CompletableFuture.runAsync(() -> {
            for (int from = 1; from <= total; from += 10) {
                publish(from, from + 9);
                Pause.uninterrupted(100); // events keep arriving, ten every 100 ms
            }
        });
        publisher.get(60, TimeUnit.SECONDS);
        Eventually.until("the group commits offset " + total, Duration.ofSeconds(40),
                () -> group("race").get("committed_offset").asLong() >= total);
        assertThat(group("race").get("committed_offset").asLong()).as("the group caught up%s%s", a.diagnostics(),
                b.diagnostics()).isEqualTo(total);
        a.stop();
        b.stop();
        assertThat(a.awaitExit(EXIT) && b.awaitExit(EXIT)).as("both stop%s%s", a.diagnostics(), b.diagnostics())
                .isTrue();
        assertThat(List.of(a.exitStatus(), b.exitStatus())).containsExactly(0, 0);

        List<Op> ops = new ArrayList<>(ConsumerOracle.ops("a", a.ops));
        ops.addAll(ConsumerOracle.ops("b", b.ops));
        List<List<Processed>> files = List.of(ConsumerOracle.processed(a.out), ConsumerOracle.processed(b.out));
        List<String> violations = new ArrayList<>(ConsumerOracle.commitOrderViolations(ops));
        violations.addAll(ConsumerOracle.coverageViolations(total, ConsumerOracle.counts(files)));
        violations.addAll(ConsumerOracle.payloadViolations(files));
        assertThat(violations).as("fencing oracle%s%s", a.diagnostics(), b.diagnostics()).isEmpty();

        Map<String, Object> figures = ConsumerOracle.figures(ops);
        @SuppressWarnings("unchecked")
        Map<String, Integer> accepted = (Map<String, Integer>) figures.get("accepted commits");
        @SuppressWarnings("unchecked")
        Map<String, Integer> refused = (Map<String, Integer>) figures.get("refused commits");
        assertThat(accepted).as("both consumers committed at some point: %s", figures).containsKeys("a", "b");
        assertThat((Integer) figures.get("handovers between owners")).as("the group changed hands: %s", figures)
                .isGreaterThanOrEqualTo(2);
        assertThat(refused.getOrDefault("stale_token", 0)).as("a stalled holder was fenced off: %s", figures)
                .isPositive();
        long maxToken = ops.stream().filter(op -> op.grantedLease() || op.acceptedCommit()).mapToLong(Op::token)
                .max().orElseThrow();
        JsonNode end = group("race");
        assertThat(end.get("epoch").asLong()).isGreaterThanOrEqualTo(maxToken);
        long duplicates = files.stream().mapToLong(List::size).sum() - total;
        System.out.println("[consumer-crash] race over " + total + " events: " + figures + "; processed twice: "
                + duplicates + "; final " + end);
    }

    @Test
    void aStaleHoldersCommitIsRefusedAfterATakeover() throws Exception {
        startServer();
        publish(1, 30);
        String group = "/streams/orders/consumers/fence";
        JsonNode a = post(group + "/lease", "{\"owner\":\"A\",\"ttl_ms\":1000}", 200);
        String t1 = a.get("token").toString(); // quoted: "<epoch>.<secret>"
        post(group + "/commit", "{\"token\":" + t1 + ",\"offset\":10}", 200);
        assertThat(post(group + "/lease", "{\"owner\":\"A\",\"ttl_ms\":1000}", 200).get("token").toString())
                .as("renewing keeps the token").isEqualTo(t1);
        assertThat(post(group + "/lease", "{\"owner\":\"B\",\"ttl_ms\":1000}", 409).get("error").asText())
                .isEqualTo("lease_held");

        // B asks until A's lease (1 s from its renewal) has expired: refused as held until then, then granted.
        JsonNode b = Eventually.get("B is granted the lease once A's expired", Duration.ofSeconds(10), () -> {
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(server.uri().resolve(group + "/lease"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"owner\":\"B\",\"ttl_ms\":30000}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() == 409) {
                assertThat(JSON.readTree(answer.body()).get("error").asText()).isEqualTo("lease_held");
                return null;
            }
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            return JSON.readTree(answer.body());
        }, java.util.Objects::nonNull);
        String t2 = b.get("token").toString();
        assertThat(epoch(t2)).isGreaterThan(epoch(t1));
        assertThat(b.get("committed_offset").asLong()).isEqualTo(10);

        JsonNode stale = post(group + "/commit", "{\"token\":" + t1 + ",\"offset\":20}", 409);
        assertThat(stale.get("error").asText()).isEqualTo("stale_token");
        assertThat(post(group + "/release", "{\"token\":" + t1 + "}", 409).get("error").asText())
                .isEqualTo("stale_token");
        JsonNode again = post(group + "/lease", "{\"owner\":\"A\",\"ttl_ms\":1000}", 409);
        assertThat(again.get("holder").asText()).isEqualTo("B");
        assertThat(group("fence").get("committed_offset").asLong()).as("A's refused commit changed nothing")
                .isEqualTo(10);

        assertThat(post(group + "/commit", "{\"token\":" + t2 + ",\"offset\":20}", 200).get("committed_offset")
                .asLong()).isEqualTo(20);
        JsonNode end = group("fence");
        assertThat(end.get("holder").asText()).isEqualTo("B");
        assertThat(end.get("epoch").asLong()).isEqualTo(epoch(t2));
        System.out.println("[consumer-crash] fencing: A token " + t1 + " expired, B token " + t2
                + ", A's commit -> 409 " + stale.get("error").asText() + ", B's commit -> 200; group " + end);
    }

    /** The fencing epoch of a quoted {@code "<epoch>.<secret>"} token. */
    private static long epoch(String quotedToken) {
        return Long.parseLong(quotedToken.substring(1, quotedToken.indexOf('.')));
    }

    /** The fencing oracle itself must catch a stale holder's late commit and interleaved holders. */
    @Test
    void theFencingOracleCatchesInterleavedHolders() {
        List<Op> ops = List.of(
                new Op("A", "lease", 200, 1, 0, "-", 0, 1),
                new Op("A", "commit", 200, 1, 20, "-", 2, 3),
                new Op("B", "lease", 200, 2, 20, "-", 4, 5),
                new Op("B", "commit", 200, 2, 40, "-", 6, 7),
                new Op("A", "commit", 200, 1, 60, "-", 8, 9), // a stale commit the server wrongly accepted
                new Op("B", "commit", 200, 1, 80, "-", 10, 11)); // B using A's token
        List<String> violations = ConsumerOracle.commitOrderViolations(ops);
        assertThat(violations).anyMatch(v -> v.startsWith("token 1 was used by several owners"));
        assertThat(violations).anyMatch(v -> v.startsWith("a lower token committed after a higher one"));
        assertThat(violations).anyMatch(v -> v.contains("was accepted although it was sent after token 2"));
        assertThat(ConsumerOracle.commitOrderViolations(ops.subList(0, 4))).isEmpty();
    }

    // ------------------------------------------------------------------ helpers

    private void startServer() {
        Path data = temp.resolve("data");
        server = Interlace.builder().config(ConfigLoader.load(new String[] {"--port", "0", "--data-dir",
                data.toString()}, Map.of()).config()).start();
    }

    private void publish(int from, int to) {
        InterlaceClient client = InterlaceClient.builder(server.uri()).retryDeadline(Duration.ofSeconds(30)).build();
        List<Map<String, String>> events = IntStream.rangeClosed(from, to).mapToObj(i -> Map.of("order_id", "o" + i))
                .toList();
        PublishResult result = client.publish("orders", events);
        assertThat(result.accepted()).isEqualTo(to - from + 1);
        assertThat(result.lastOffset()).isEqualTo((long) to);
    }

    private ConsumerChild spawn(String owner, String mode, String group, int haltAtBatch, long ttl)
            throws IOException {
        return spawn(owner, mode, group, haltAtBatch, ttl, List.of("ttl=" + ttl, "poll=500", "stopAt=" + EVENTS));
    }

    private ConsumerChild spawn(String owner, String mode, String group, int haltAtBatch, long ttl,
            List<String> extra) throws IOException {
        List<String> options = new ArrayList<>(List.of("mode=" + mode, "server=" + server.uri(), "group=" + group,
                "batch=" + BATCH, "haltAtBatch=" + haltAtBatch));
        options.addAll(extra);
        ConsumerChild child = ConsumerChild.spawn(childClassPath, temp, owner, options);
        children.add(child);
        return child;
    }

    private JsonNode group(String name) throws Exception {
        JsonNode consumers = send(HttpRequest.newBuilder(server.uri().resolve("/streams/orders/consumers")).GET()
                .build(), 200);
        for (JsonNode group : consumers.get("consumers")) {
            if (group.get("group").asText().equals(name)) {
                return group;
            }
        }
        throw new AssertionError("no group " + name + " in " + consumers);
    }

    private JsonNode post(String path, String body, int expectedStatus) throws Exception {
        return send(HttpRequest.newBuilder(server.uri().resolve(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), expectedStatus);
    }

    private JsonNode send(HttpRequest request, int expectedStatus) throws Exception {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s %s -> %s", request.method(), request.uri(), response.body())
                .isEqualTo(expectedStatus);
        return JSON.readTree(response.body());
    }

}
