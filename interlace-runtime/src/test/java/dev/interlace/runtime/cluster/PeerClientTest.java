package dev.interlace.runtime.cluster;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.runtime.config.ClusterSecret;
import dev.interlace.runtime.config.InterlaceConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PeerClientTest {

    private static final Peers.Request PUBLISH = new Peers.Request("POST", "/streams/orders", "application/json",
            "{}".getBytes(StandardCharsets.UTF_8), "req-1", null);

    private static PeerClient withSecret() {
        return new PeerClient(InterlaceConfig.defaults(), Optional.of(new ForwardSignature(ClusterSecret.of(
                "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII)), Clock.systemUTC())));
    }

    @Test
    void plainHttpToAHostThatIsNotLoopbackIsRefusedBeforeAnythingIsSent() {
        assertThatThrownBy(() -> withSecret().send("http://10.0.0.5:8000", PUBLISH)).isInstanceOf(IOException.class)
                .hasMessage("refusing to send a request to http://10.0.0.5:8000 over plain http: it is not on loopback"
                        + " (the node must serve TLS and advertise https://)");
        assertThatThrownBy(() -> withSecret().send("http://node1.example:8000", PUBLISH))
                .isInstanceOf(IOException.class).hasMessageContaining("over plain http");
        assertThatThrownBy(() -> withSecret().send("ftp://127.0.0.1:8000", PUBLISH)).isInstanceOf(IOException.class)
                .hasMessageContaining("is not http(s)://host[:port]");
    }

    @Test
    void aNodeWithoutAClusterSecretSendsNothing() {
        assertThatThrownBy(() -> new PeerClient(InterlaceConfig.defaults(), Optional.empty())
                .send("http://127.0.0.1:8000", PUBLISH)).isInstanceOf(IOException.class)
                .hasMessageContaining("no cluster secret (--cluster-secret-file)");
    }
}
