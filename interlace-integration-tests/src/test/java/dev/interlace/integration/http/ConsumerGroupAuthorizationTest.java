package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import dev.interlace.runtime.testing.Eventually;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may act on a consumer group, over real HTTP on real SQLite: a group belongs to the key that created it (and
 * to the keys an admin grants it to); any other consume key gets {@code 403 group_forbidden} on every route that
 * acts on the group (lease, commit, release) whatever its body says, while positions stay readable; an admin key
 * acts on any group; no listing shows a token; a token is an unguessable secret whose fencing epoch still
 * increases; and a group made while the server was open belongs to the first key that leases it once keys exist.
 */
class ConsumerGroupAuthorizationTest {

    private static final Pattern TOKEN = Pattern.compile("[1-9][0-9]*\\.[A-Za-z0-9_-]{22}");
    private static final String BILLING = "/streams/orders/consumers/billing";
    private static final String SHIPPING = "/streams/orders/consumers/shipping";

    @TempDir
    Path dataDirectory;

    @Test
    void everyGroupRouteAgainstTheOwningKeyAnotherConsumeKeyAReadKeyAndAnAdminKey() {
        try (TestServer api = TestServer.start(dataDirectory); KeyFile cli = KeyFile.open(dataDirectory)) {
            KeyFile.CreatedKey aliceKey = cli.create("alice", List.of(Scope.parse("consume")), 0);
            KeyFile.CreatedKey bobKey = cli.create("bob", List.of(Scope.parse("consume:orders")), 0);
            String reader = cli.create("reader", List.of(Scope.parse("read")), 0).secret();
            String admin = cli.create("admin", List.of(Scope.parse("admin")), 0).secret();
            String alice = aliceKey.secret();
            String bob = bobKey.secret();
            awaitKey(api, admin);
            StringBuilder events = new StringBuilder("[");
            for (int i = 0; i < 500; i++) {
                events.append(i == 0 ? "" : ",").append("{\"order_id\":\"o-").append(i).append("\"}");
            }
            assertThat(post(api, admin, "/streams/orders", events.append(']').toString()).status()).isEqualTo(200);

            TestServer.Response leased = post(api, alice, BILLING + "/lease", "{\"owner\":\"a1\",\"ttl_ms\":60000}");
            assertThat(leased.status()).isEqualTo(200);
            String token = leased.body().get("token").asText();
            assertThat(leased.body().get("token").isTextual()).as("the token is a string").isTrue();
            assertThat(token).as("<epoch>.<128 random bits, base64url>").matches(TOKEN);
            assertThat(post(api, alice, BILLING + "/commit", commit(token, 30)).status()).isEqualTo(200);

            // Another consume key: 403 on every group route, whatever the body says, and nothing changes.
            for (String body : List.of("{\"owner\":\"a1\"}", "{\"owner\":\"b1\"}")) {
                assertGroupForbidden(post(api, bob, BILLING + "/lease", body), "bob leasing with " + body);
            }
            assertGroupForbidden(post(api, bob, BILLING + "/commit", commit(token, 400)), "bob committing");
            assertGroupForbidden(post(api, bob, BILLING + "/commit", "{\"offset\":400}"), "bob without a token");
            assertGroupForbidden(post(api, bob, BILLING + "/release", "{\"token\":\"" + token + "\"}"),
                    "bob releasing");
            TestServer.Response bobReads = get(api, bob, BILLING);
            assertThat(bobReads.status()).as("positions are readable by every read or consume key").isEqualTo(200);
            assertThat(bobReads.body().has("token")).isFalse();
            assertThat(get(api, alice, BILLING).body().get("committed_offset").asLong())
                    .as("the owner's position did not move").isEqualTo(30);

            // A read key (no consume scope) is refused by scope, before any group is looked at.
            TestServer.Response readerLease = post(api, reader, BILLING + "/lease", "{\"owner\":\"r\"}");
            assertError(readerLease, 403, ErrorCode.FORBIDDEN);

            // Bob's own group is his; alice is refused on it.
            TestServer.Response bobsLease = post(api, bob, SHIPPING + "/lease", "{\"owner\":\"b1\"}");
            assertThat(bobsLease.status()).isEqualTo(200);
            assertGroupForbidden(post(api, alice, SHIPPING + "/lease", "{\"owner\":\"b1\"}"), "alice on shipping");

            // The owner with a wrong or an old-style token: stale, and nothing moves.
            long epoch = Long.parseLong(token.substring(0, token.indexOf('.')));
            for (String forged : List.of("\"" + epoch + ".AAAAAAAAAAAAAAAAAAAAAA\"", String.valueOf(epoch),
                    "\"" + epoch + "\"", "\"" + token + "x\"")) {
                TestServer.Response stale = post(api, alice, BILLING + "/commit",
                        "{\"token\":" + forged + ",\"offset\":400}");
                assertThat(stale.status()).as("commit with %s", forged).isEqualTo(409);
                assertThat(stale.body().get("error").asText()).isEqualTo("stale_token");
            }
            assertThat(get(api, alice, BILLING).body().get("committed_offset").asLong()).isEqualTo(30);

            // No listing shows a token, to anyone; each shows the keys a group belongs to.
            for (String caller : List.of(alice, bob, reader, admin)) {
                TestServer.Response listing = get(api, caller, "/streams/orders/consumers");
                assertThat(listing.status()).isEqualTo(200);
                assertThat(listing.body().toString()).doesNotContain(token.substring(token.indexOf('.') + 1))
                        .doesNotContain(bobsLease.body().get("token").asText().split("\\.")[1]);
                for (JsonNode group : listing.body().get("consumers")) {
                    assertThat(group.has("token")).as("a token in the listing").isFalse();
                }
                JsonNode billing = group(listing.body(), "billing");
                assertThat(billing.get("epoch").asLong()).isEqualTo(epoch);
                assertThat(billing.get("keys")).extracting(JsonNode::asText).containsExactly(aliceKey.key().id());
                assertThat(billing.get("holder").asText()).isEqualTo("a1");
                assertThat(billing.get("committed_offset").asLong()).isEqualTo(30);
            }
            JsonNode position = get(api, alice, BILLING).body();
            assertThat(position.has("token")).isFalse();
            assertThat(position.get("lag").asLong()).isEqualTo(470);

            // An admin key acts on any group: the lease stays exclusive, the token still fences.
            TestServer.Response adminLease = post(api, admin, BILLING + "/lease", "{\"owner\":\"ops\"}");
            assertError(adminLease, 409, ErrorCode.LEASE_HELD);
            assertThat(adminLease.body().has("token")).isFalse();
            TestServer.Response adminAsHolder = post(api, admin, BILLING + "/lease", "{\"owner\":\"a1\"}");
            assertThat(adminAsHolder.status()).as("the holder's owner string, from an admin key").isEqualTo(409);
            assertThat(adminAsHolder.body().get("error").asText()).isEqualTo("lease_held");
            assertThat(adminAsHolder.body().has("token")).isFalse();
            assertThat(post(api, admin, BILLING + "/commit", commit(token, 31)).status()).isEqualTo(200);
            assertThat(get(api, admin, BILLING).body().get("committed_offset").asLong()).isEqualTo(31);

            // Granting is for admin keys only; once granted, bob may use billing (and is fenced like anyone).
            String grant = "{\"key\":\"" + bobKey.key().id() + "\"}";
            TestServer.Response bobGrants = post(api, bob, BILLING + "/grant", grant);
            assertError(bobGrants, 403, ErrorCode.FORBIDDEN);
            TestServer.Response unknownKey = post(api, admin, BILLING + "/grant", "{\"key\":\"key_nope\"}");
            assertError(unknownKey, 404, ErrorCode.UNKNOWN_KEY);
            TestServer.Response granted = post(api, admin, BILLING + "/grant", grant);
            assertThat(granted.status()).isEqualTo(200);
            assertThat(granted.body().get("keys")).extracting(JsonNode::asText)
                    .containsExactly(aliceKey.key().id(), bobKey.key().id());
            TestServer.Response bobHeld = post(api, bob, BILLING + "/lease", "{\"owner\":\"a1-not-me\"}");
            assertError(bobHeld, 409, ErrorCode.LEASE_HELD);
            TestServer.Response bobAsHolder = post(api, bob, BILLING + "/lease", "{\"owner\":\"a1\"}");
            assertThat(bobAsHolder.status()).as("the holder's owner string, from a granted key").isEqualTo(409);
            assertThat(bobAsHolder.body().get("error").asText()).isEqualTo("lease_held");
            assertThat(bobAsHolder.body().has("token")).isFalse();
            TestServer.Response aliceRenews = post(api, alice, BILLING + "/lease", "{\"owner\":\"a1\"}");
            assertThat(aliceRenews.status()).isEqualTo(200);
            assertThat(aliceRenews.body().get("token").asText()).as("the holder's own key renews").isEqualTo(token);
            assertThat(post(api, alice, BILLING + "/release", "{\"token\":\"" + token + "\"}").status())
                    .isEqualTo(200);
            TestServer.Response bobTakes = post(api, bob, BILLING + "/lease", "{\"owner\":\"b2\"}");
            assertThat(bobTakes.status()).isEqualTo(200);
            String bobToken = bobTakes.body().get("token").asText();
            assertThat(bobToken).matches(TOKEN);
            assertThat(Long.parseLong(bobToken.split("\\.")[0])).as("the fencing epoch increases").isGreaterThan(epoch);
            assertThat(bobTakes.body().get("committed_offset").asLong()).isEqualTo(31);
            TestServer.Response aliceStale = post(api, alice, BILLING + "/commit", commit(token, 400));
            assertError(aliceStale, 409, ErrorCode.STALE_TOKEN);
            assertThat(post(api, bob, BILLING + "/commit", commit(bobToken, 40)).status()).isEqualTo(200);

            // An admin may create a group for a key by granting it before anyone leased it.
            assertThat(post(api, admin, "/streams/orders/consumers/reports/grant", grant).status()).isEqualTo(200);
            assertGroupForbidden(post(api, alice, "/streams/orders/consumers/reports/lease", "{\"owner\":\"a\"}"),
                    "alice on a group granted to bob");
            assertThat(post(api, bob, "/streams/orders/consumers/reports/lease", "{\"owner\":\"b\"}").status())
                    .isEqualTo(200);
            assertThat(get(api, bob, "/streams/orders/consumers/nope").status()).isEqualTo(404);
        }
    }

    @Test
    void withoutKeysOnLoopbackEveryGroupWorksAsBeforeAndTheFirstKeyToLeaseAfterwardsTakesIt() {
        try (TestServer api = TestServer.start(dataDirectory); KeyFile cli = KeyFile.open(dataDirectory)) {
            api.postJson("/streams/orders", "[{\"order_id\":\"a\"},{\"order_id\":\"b\"},{\"order_id\":\"c\"}]");
            TestServer.Response leased = api.postJson(BILLING + "/lease", "{\"owner\":\"w1\"}");
            assertThat(leased.status()).isEqualTo(200);
            String token = leased.body().get("token").asText();
            assertThat(token).matches(TOKEN);
            assertThat(api.postJson(BILLING + "/commit", commit(token, 2)).status()).isEqualTo(200);
            JsonNode listing = api.get("/streams/orders/consumers").body();
            assertThat(group(listing, "billing").has("token")).isFalse();
            assertThat(group(listing, "billing").get("keys")).as("made in open mode: no key").isEmpty();

            String alice = cli.create("alice", List.of(Scope.parse("consume")), 0).secret();
            String bob = cli.create("bob", List.of(Scope.parse("consume")), 0).secret();
            awaitKey(api, bob);
            // Leasing as the open-mode holder fences the open-mode lease (its token was never a credential).
            TestServer.Response claimed = post(api, alice, BILLING + "/lease", "{\"owner\":\"w1\"}");
            assertThat(claimed.status()).isEqualTo(200);
            String claimedToken = claimed.body().get("token").asText();
            assertThat(Long.parseLong(claimedToken.split("\\.")[0]))
                    .isGreaterThan(Long.parseLong(token.split("\\.")[0]));
            assertThat(claimed.body().get("committed_offset").asLong()).isEqualTo(2);
            assertThat(post(api, alice, BILLING + "/commit", commit(token, 3)).status()).isEqualTo(409);
            assertGroupForbidden(post(api, bob, BILLING + "/lease", "{\"owner\":\"w1\"}"), "bob after alice took it");
            assertGroupForbidden(post(api, bob, BILLING + "/commit", commit(claimedToken, 3)), "bob committing");
            assertThat(post(api, alice, BILLING + "/commit", commit(claimedToken, 3)).status()).isEqualTo(200);
        }
    }

    private static void assertGroupForbidden(TestServer.Response response, String what) {
        assertThat(response.status()).as(what).isEqualTo(403);
        assertThat(response.body().get("error").asText()).as(what).isEqualTo("group_forbidden");
        assertThat(response.body().has("token")).as(what).isFalse();
        assertThat(response.body().has("holder")).as(what).isFalse();
    }

    private static JsonNode group(JsonNode listing, String name) {
        for (JsonNode group : listing.get("consumers")) {
            if (group.get("group").asText().equals(name)) {
                return group;
            }
        }
        throw new AssertionError("no group " + name + " in " + listing);
    }

    private static String commit(String token, long offset) {
        return "{\"token\":\"" + token + "\",\"offset\":" + offset + "}";
    }

    private static TestServer.Response post(TestServer api, String secret, String path, String body) {
        return api.send(api.request(path).header("Authorization", "Bearer " + secret)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private static TestServer.Response get(TestServer api, String secret, String path) {
        return api.send(api.request(path).header("Authorization", "Bearer " + secret).GET().build());
    }

    /** Waits (up to 2 s: the key file is re-read every 250 ms) until the server accepts {@code secret}. */
    private static void awaitKey(TestServer api, String secret) {
        Eventually.until("the server accepts the new key", Duration.ofSeconds(2),
                () -> get(api, secret, "/streams/orders/consumers").status() != 401);
        assertThat(get(api, secret, "/streams/orders/consumers").status()).as("the key was accepted").isNotEqualTo(401);
    }
}
