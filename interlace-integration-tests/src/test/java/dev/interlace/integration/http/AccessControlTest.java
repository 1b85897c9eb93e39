package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * API keys and scopes over real HTTP: every route against no key, an unknown key, a revoked key, a key without the
 * route's scope, a key with it and an admin key; per-stream scopes; open mode; keys created and revoked while the
 * server runs; quotas; and that no secret ever reaches a record, a log, a metric or an answer.
 */
class AccessControlTest {

    /** How long a key change made by another process may take to be seen (the key file is re-read every 250 ms). */
    private static final long KEY_CHANGE_SEEN_WITHIN_MS = 2_000;

    @TempDir
    Path dataDirectory;

    /** One request per route, and the scopes that grant it (besides admin). */
    private record Call(String method, String path, String body, Set<String> grantedBy) {}

    private static final List<Call> ROUTES = List.of(
            new Call("POST", "/streams/orders", "{\"order_id\":\"m-1\"}", Set.of("publish", "publish:orders")),
            new Call("GET", "/streams", null, Set.of("read")),
            new Call("GET", "/streams/orders", null, Set.of("read")),
            new Call("POST", "/sql", "SELECT 1", Set.of("read")),
            new Call("GET", "/streams/orders/events?after=0", null, Set.of("read", "consume", "consume:orders")),
            new Call("GET", "/streams/orders/consumers", null, Set.of("read", "consume", "consume:orders")),
            new Call("POST", "/streams/orders/consumers/g1/lease", "{\"owner\":\"w\"}",
                    Set.of("consume", "consume:orders")),
            new Call("POST", "/streams/orders/consumers/g1/commit", "{\"token\":\"1.x\",\"offset\":0}",
                    Set.of("consume", "consume:orders")),
            new Call("POST", "/streams/orders/consumers/g1/release", "{\"token\":\"1.x\"}",
                    Set.of("consume", "consume:orders")),
            new Call("GET", "/streams/clicks/quarantine", null, Set.of("read")),
            new Call("POST", "/streams/clicks/quarantine/replay", "{\"seqs\":[1]}", Set.of("operate")),
            new Call("GET", "/runs", null, Set.of("read")),
            new Call("GET", "/runs/run-nope", null, Set.of("read")),
            new Call("GET", "/models", null, Set.of("read")),
            new Call("POST", "/models/nope/run", null, Set.of("operate")),
            new Call("GET", "/correlate?request_id=nope", null, Set.of("read")),
            new Call("GET", "/logs/api", null, Set.of("read")),
            new Call("GET", "/logs/sys", null, Set.of("read")),
            new Call("GET", "/metrics", null, Set.of("metrics")));

    private static final List<String> SCOPES = List.of("publish", "publish:orders", "publish:clicks", "read",
            "consume", "consume:orders", "consume:clicks", "operate", "metrics");

    @Test
    void everyRouteAgainstNoUnknownRevokedWrongRightAndAdminKeys() throws IOException {
        List<String> secrets = new ArrayList<>();
        try (TestServer api = TestServer.start(dataDirectory); KeyFile cli = KeyFile.open(dataDirectory)) {
            String admin = remember(secrets, cli.create("admin", List.of(Scope.parse("admin")), 0).secret());
            List<String> scoped = new ArrayList<>();
            for (String scope : SCOPES) {
                scoped.add(remember(secrets, cli.create("k-" + scope.replace(':', '-'),
                        List.of(Scope.parse(scope)), 0).secret()));
            }
            String revoked = remember(secrets, cli.create("revoked", List.of(Scope.parse("admin")), 0).secret());
            cli.revoke("revoked");
            // The last key created before "revoked": once it is known, so are all before it (each write rewrites the
            // file), whereas waiting for the first one let a read between two creations through.
            awaitKeyChange(api, scoped.get(scoped.size() - 1));
            long revokedAt = System.nanoTime(); // the server may have read the file between the create and the revoke
            Eventually.until("the server sees the key change", keyChangeWindow(revokedAt),
                    () -> send(api, new Call("GET", "/logs/sys", null, Set.of()), revoked).status() == 401);

            for (Call call : ROUTES) {
                String what = call.method() + " " + call.path();
                TestServer.Response none = send(api, call, null);
                assertThat(none.status()).as("%s without a key", what).isEqualTo(401);
                assertThat(none.body().get("error").asText()).isEqualTo("unauthorized");
                assertThat(none.header("WWW-Authenticate")).as(what).startsWith("Bearer");
                assertThat(send(api, call, "ilk_" + "A".repeat(43)).status()).as("%s unknown key", what)
                        .isEqualTo(401);
                assertThat(send(api, call, revoked).status()).as("%s revoked key", what).isEqualTo(401);
                assertThat(send(api, call, "Basic dXNlcjpwYXNz", true).status()).as("%s Basic", what)
                        .isEqualTo(401);
                for (int i = 0; i < SCOPES.size(); i++) {
                    TestServer.Response response = send(api, call, scoped.get(i));
                    if (call.grantedBy().contains(SCOPES.get(i))) {
                        // The scope admitted it; g1 belongs to the first consume key that leased it, so the other
                        // consume keys are refused by the group (ConsumerGroupAuthorizationTest), not by scope.
                        if (!"group_forbidden".equals(response.body().path("error").asText())) {
                            assertThat(response.status()).as("%s with %s", what, SCOPES.get(i)).isNotIn(401, 403);
                        }
                    } else {
                        assertThat(response.status()).as("%s with %s", what, SCOPES.get(i)).isEqualTo(403);
                        assertThat(response.body().get("error").asText()).isEqualTo("forbidden");
                        assertThat(response.body().get("message").asText()).as(what)
                                .contains(call.grantedBy().stream().sorted().findFirst().orElseThrow()
                                        .split(":")[0]);
                    }
                }
                assertThat(send(api, call, admin).status()).as("%s as admin", what).isNotIn(401, 403);
            }
            for (String health : List.of("/health/live", "/health/ready")) {
                assertThat(api.get(health).status()).as(health + " needs no key").isIn(200, 503);
            }

            JsonNode refusals = api.send(api.request("/logs/api?status=403&limit=1")
                    .header("Authorization", "Bearer " + admin).GET().build()).body();
            JsonNode refusal = refusals.get("requests").get(0);
            assertThat(refusal.get("status").asInt()).isEqualTo(403);
            assertNoSecretAnywhere(api, admin, secrets);
        }
    }

    @Test
    void perStreamScopesReachOnlyTheirStream() {
        try (TestServer api = TestServer.start(dataDirectory); KeyFile cli = KeyFile.open(dataDirectory)) {
            String orders = cli.create("orders-only", List.of(Scope.parse("publish:orders"),
                    Scope.parse("consume:orders")), 0).secret();
            awaitKeyChange(api, orders);
            assertThat(send(api, new Call("POST", "/streams/orders", "{\"order_id\":\"p-1\"}", Set.of()), orders)
                    .status()).isEqualTo(200);
            TestServer.Response clicks = send(api, new Call("POST", "/streams/clicks",
                    "{\"url\":\"/\",\"at\":\"2026-12-01T00:00:00Z\"}", Set.of()), orders);
            assertThat(clicks.status()).isEqualTo(403);
            assertThat(clicks.body().get("message").asText()).contains("publish:clicks");
            assertThat(send(api, new Call("POST", "/streams/clicks/consumers/g/lease", "{\"owner\":\"w\"}",
                    Set.of()), orders).status()).isEqualTo(403);
            assertThat(send(api, new Call("POST", "/streams/orders/consumers/g/lease", "{\"owner\":\"w\"}",
                    Set.of()), orders).status()).isEqualTo(200);
        }
    }

    @Test
    void openModeLastsWhileThereIsNoKeyAndKeysTakeEffectWithinASecond() {
        try (TestServer api = TestServer.start(dataDirectory); KeyFile cli = KeyFile.open(dataDirectory)) {
            assertThat(api.get("/streams").status()).as("open mode: no key, loopback").isEqualTo(200);
            assertThat(api.postJson("/streams/orders", "{\"order_id\":\"open-1\"}").status()).isEqualTo(200);

            String secret = cli.create("ops", List.of(Scope.parse("read")), 0).secret();
            long created = System.nanoTime();
            Eventually.until("the server sees the key change", keyChangeWindow(created),
                    () -> api.get("/streams").status() == 401);
            assertThat(api.get("/streams").status()).as("a key exists: no more open mode").isEqualTo(401);
            assertThat(send(api, new Call("GET", "/streams", null, Set.of()), secret).status()).isEqualTo(200);

            KeyFile.RevokedKey revoked = cli.revoke("ops");
            assertThat(revoked.noLiveKeyLeft()).isTrue();
            long revokedAt = System.nanoTime();
            Eventually.until("the server sees the key change", keyChangeWindow(revokedAt),
                    () -> send(api, new Call("GET", "/streams", null, Set.of()), secret).status() == 401);
            assertThat(send(api, new Call("GET", "/streams", null, Set.of()), secret).status())
                    .as("a revoked key stops working").isEqualTo(401);
            assertThat(api.get("/streams").status()).as("the last key revoked: open again on loopback")
                    .isEqualTo(200);
        }
    }

    @Test
    void aKeyOverItsQuotaIs429RateLimitedAndNothingIsStored() {
        try (TestServer api = TestServer.start(dataDirectory); KeyFile cli = KeyFile.open(dataDirectory)) {
            String limited = cli.create("slow", List.of(Scope.parse("publish"), Scope.parse("read")), 5).secret();
            awaitKeyChange(api, limited);
            StringBuilder five = new StringBuilder("[");
            for (int i = 0; i < 5; i++) {
                five.append(i == 0 ? "" : ",").append("{\"order_id\":\"q-").append(i).append("\"}");
            }
            String batch = five.append(']').toString();
            assertThat(send(api, new Call("POST", "/streams/orders", batch, Set.of()), limited).status())
                    .isEqualTo(200);
            TestServer.Response over = send(api, new Call("POST", "/streams/orders",
                    "[{\"order_id\":\"q-5\"},{\"order_id\":\"q-6\"},{\"order_id\":\"q-7\"}]", Set.of()), limited);
            assertError(over, 429, ErrorCode.RATE_LIMITED);
            assertThat(Integer.parseInt(over.header("Retry-After"))).isBetween(1, 2);
            JsonNode orders = api.send(api.request("/streams/orders").header("Authorization", "Bearer " + limited)
                    .GET().build()).body();
            assertThat(orders.get("head").asLong()).as("nothing of the refused request stored").isEqualTo(5);
        }
    }

    @Test
    void theKeyIsRecordedWithPublishesAndRefusalsButNeverItsSecret() {
        try (TestServer api = TestServer.start(dataDirectory); KeyFile cli = KeyFile.open(dataDirectory)) {
            KeyFile.CreatedKey shop = cli.create("shop", List.of(Scope.parse("publish:orders")), 0);
            String reader = cli.create("auditor", List.of(Scope.parse("read")), 0).secret();
            awaitKeyChange(api, reader);
            TestServer.Response published = api.send(api.request("/streams/orders")
                    .header("Authorization", "Bearer " + shop.secret()).header("X-Request-Id", "keyed-1")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"k-1\"}")).build());
            assertThat(published.status()).isEqualTo(200);
            TestServer.Response refused = api.send(api.request("/sql")
                    .header("Authorization", "Bearer " + shop.secret()).header("X-Request-Id", "keyed-2")
                    .POST(HttpRequest.BodyPublishers.ofString("SELECT 1")).build());
            assertThat(refused.status()).isEqualTo(403);

            JsonNode correlate = api.send(api.request("/correlate?request_id=keyed-1")
                    .header("Authorization", "Bearer " + reader).GET().build()).body();
            assertThat(correlate.get("publish").get("key").get("name").asText()).isEqualTo("shop");
            assertThat(correlate.get("publish").get("key").get("id").asText()).isEqualTo(shop.key().id());
            JsonNode logged = api.send(api.request("/logs/api?request_id=keyed-2")
                    .header("Authorization", "Bearer " + reader).GET().build()).body();
            assertThat(logged.get("requests").get(0).get("key").get("name").asText()).isEqualTo("shop");
            JsonNode publishes = api.send(api.request("/logs/api?status=200")
                    .header("Authorization", "Bearer " + reader).GET().build()).body();
            assertThat(publishes.get("requests").get(0).get("key").get("id").asText()).isEqualTo(shop.key().id());
            String metrics = api.send(api.request("/metrics").header("Authorization", "Bearer " + reader).GET()
                    .build()).status() == 403 ? "" : "unexpected";
            assertThat(metrics).as("read does not grant metrics").isEmpty();
            assertThat(correlate.toString() + logged + publishes).doesNotContain(shop.secret());
        }
    }

    private static String remember(List<String> secrets, String secret) {
        secrets.add(secret);
        return secret;
    }

    /** Waits until the server accepts {@code secret} (the key file is re-read in the background). */
    private static void awaitKeyChange(TestServer api, String secret) {
        long started = System.nanoTime();
        Eventually.until("the server sees the key change", keyChangeWindow(started),
                () -> send(api, new Call("GET", "/health/live", null, Set.of()), secret).status() != 401);
        // /health/live never refuses: check a route that needs a key.
        Eventually.until("the server sees the key change", keyChangeWindow(started),
                () -> send(api, new Call("GET", "/logs/sys", null, Set.of()), secret).status() != 401);
        assertThat(elapsedMillis(started)).as("the new key was accepted in time").isLessThan(KEY_CHANGE_SEEN_WITHIN_MS);
    }

    private void assertNoSecretAnywhere(TestServer api, String admin, List<String> secrets) throws IOException {
        List<String> answers = new ArrayList<>();
        for (String path : List.of("/logs/api?limit=1000", "/logs/sys?limit=1000", "/metrics", "/streams")) {
            HttpRequest request = api.request(path).header("Authorization", "Bearer " + admin).GET().build();
            try {
                answers.add(api.client.send(request, java.net.http.HttpResponse.BodyHandlers.ofString()).body());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dataDirectory)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        for (String secret : secrets) {
            byte[] needle = secret.getBytes(StandardCharsets.UTF_8);
            for (String answer : answers) {
                assertThat(answer).doesNotContain(secret);
            }
            for (Path file : files) {
                assertThat(indexOf(Files.readAllBytes(file), needle)).as("secret in %s", file).isEqualTo(-1);
            }
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static TestServer.Response send(TestServer api, Call call, String secret) {
        return send(api, call, secret == null ? null : "Bearer " + secret, true);
    }

    private static TestServer.Response send(TestServer api, Call call, String authorization, boolean raw) {
        HttpRequest.Builder request = api.request(call.path());
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (call.body() == null) {
            request.method(call.method(), HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", call.path().equals("/sql") ? "text/plain" : "application/json")
                    .method(call.method(), HttpRequest.BodyPublishers.ofString(call.body()));
        }
        return api.send(request.build());
    }

    private static long elapsedMillis(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }

    /** What is left of the time a key change may take to be seen, counted from {@code startedNanos}. */
    private static Duration keyChangeWindow(long startedNanos) {
        return Duration.ofMillis(KEY_CHANGE_SEEN_WITHIN_MS - elapsedMillis(startedNanos));
    }
}
