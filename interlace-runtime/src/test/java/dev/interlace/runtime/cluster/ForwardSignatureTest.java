package dev.interlace.runtime.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.config.ClusterSecret;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ForwardSignatureTest {

    private static final ClusterSecret SECRET = ClusterSecret.of("0123456789abcdef0123456789abcdef"
            .getBytes(StandardCharsets.US_ASCII));
    private static final Instant NOW = Instant.parse("2026-12-01T20:00:00Z");
    private static final byte[] BODY = "{\"order_id\": \"a\"}".getBytes(StandardCharsets.UTF_8);
    private static final Peers.Request PUBLISH = new Peers.Request("POST", "/streams/orders?verbose=true",
            "application/json", BODY, "req-1", "k_123", "ingest", "gzip", "text/csv",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "vendor=opaque", "orders:17, models");

    private final ForwardSignature signer = new ForwardSignature(SECRET, Clock.fixed(NOW, ZoneOffset.UTC));

    private static ForwardSignature.Verdict verify(ForwardSignature verifier, Map<String, String> headers,
            byte[] body) {
        Map<String, String> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        byName.putAll(headers);
        return verifier.verify(byName::get, body);
    }

    private static ForwardSignature at(Instant now) {
        return new ForwardSignature(SECRET, Clock.fixed(now, ZoneOffset.UTC));
    }

    @Test
    void aSignedRequestIsVerifiedAsTheSameRequest() {
        ForwardSignature.Verdict verdict = verify(signer, signer.headers(PUBLISH), BODY);
        assertThat(verdict).isInstanceOf(ForwardSignature.Verdict.Valid.class);
        Peers.Request received = ((ForwardSignature.Verdict.Valid) verdict).request();
        assertThat(received).usingRecursiveComparison().isEqualTo(PUBLISH);
    }

    @Test
    void aRequestWithoutCallerOrOptionalHeadersIsVerifiedToo() {
        Peers.Request own = new Peers.Request("POST", "/streams/orders/consumers/__flusher/lease", null,
                new byte[0], "req-2", null);
        ForwardSignature.Verdict verdict = verify(signer, signer.headers(own), new byte[0]);
        assertThat(((ForwardSignature.Verdict.Valid) verdict).request()).usingRecursiveComparison().isEqualTo(own);
    }

    @Test
    void anyChangedHeaderOrBodyBreaksTheSignature() {
        for (String header : new String[] {ForwardSignature.METHOD, ForwardSignature.TARGET,
                ForwardSignature.CONTENT_TYPE, ForwardSignature.CONTENT_ENCODING, ForwardSignature.ACCEPT,
                ForwardSignature.REQUEST_ID, ForwardSignature.CALLER_KEY_ID, ForwardSignature.CALLER_KEY_NAME,
                ForwardSignature.TRACEPARENT, ForwardSignature.TRACESTATE, ForwardSignature.AFTER,
                ForwardSignature.TIMESTAMP}) {
            Map<String, String> headers = new TreeMap<>(signer.headers(PUBLISH));
            headers.put(header, headers.get(header) + "x");
            assertThat(verify(signer, headers, BODY)).as(header).isInstanceOf(ForwardSignature.Verdict.Refused.class);
            headers.remove(header);
            assertThat(verify(signer, headers, BODY)).as(header).isInstanceOf(ForwardSignature.Verdict.Refused.class);
        }
        assertThat(verify(signer, signer.headers(PUBLISH), "{\"order_id\": \"b\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(ForwardSignature.Verdict.Refused.class);
    }

    @Test
    void anotherSecretOrNoSignatureIsRefused() {
        ForwardSignature other = new ForwardSignature(ClusterSecret.of("another secret of thirty-two bytes!"
                .getBytes(StandardCharsets.US_ASCII)), Clock.fixed(NOW, ZoneOffset.UTC));
        assertThat(verify(other, signer.headers(PUBLISH), BODY)).isEqualTo(new ForwardSignature.Verdict.Refused(
                "the cluster signature does not match the request (another secret, or the request was altered)"));
        Map<String, String> unsigned = new TreeMap<>(signer.headers(PUBLISH));
        unsigned.remove(ForwardSignature.SIGNATURE);
        assertThat(verify(signer, unsigned, BODY).toString()).contains("carries no cluster signature");
        Map<String, String> garbled = new TreeMap<>(signer.headers(PUBLISH));
        garbled.put(ForwardSignature.SIGNATURE, "not hex");
        assertThat(verify(signer, garbled, BODY).toString()).contains("not hexadecimal");
    }

    @Test
    void aSignatureIsFreshForThirtySecondsEitherWay() {
        Map<String, String> headers = signer.headers(PUBLISH);
        Duration window = ForwardSignature.FRESHNESS;
        assertThat(verify(at(NOW.plus(window)), headers, BODY)).isInstanceOf(ForwardSignature.Verdict.Valid.class);
        assertThat(verify(at(NOW.minus(window)), headers, BODY)).isInstanceOf(ForwardSignature.Verdict.Valid.class);
        assertThat(verify(at(NOW.plus(window).plusMillis(1)), headers, BODY).toString())
                .contains("signed 30001 ms away from this node's clock");
        assertThat(verify(at(NOW.minus(window).minusMillis(1)), headers, BODY))
                .isInstanceOf(ForwardSignature.Verdict.Refused.class);
    }

    @Test
    void theSecretNeverShowsInItsDescription() {
        assertThat(SECRET.toString()).isEqualTo("ClusterSecret[32 bytes]");
    }
}
