package dev.interlace.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.client.testing.RecordingServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * On a cluster a publish answer names the stream's sequencer ({@code Interlace-Sequencer}); the client sends the
 * stream's next publishes there, and back to its base URI as soon as that node fails or stops sequencing. The two
 * stand-in servers play the node the client was given and the node that sequences the stream.
 */
class SequencerRoutingTest {

    private static final String STORED = "{\"accepted\":1,\"deduplicated\":0,\"quarantined\":0,\"last_offset\":1}";
    private static final String NOT_HERE = "{\"error\":\"no_sequencer\",\"message\":\"this node no longer sequences"
            + " orders\"}";

    @Test
    void publishesGoToTheNamedSequencerAfterTheFirstAndBackToTheBaseWhenItFails() throws Exception {
        try (RecordingServer given = RecordingServer.http(200, STORED);
                RecordingServer sequencer = RecordingServer.http(200, STORED)) {
            given.header(InterlaceClient.SEQUENCER_HEADER, sequencer.uri().toString());
            sequencer.header(InterlaceClient.SEQUENCER_HEADER, sequencer.uri().toString());
            InterlaceClient client = InterlaceClient.builder(given.uri()).apiKey("ilk_secret").build();

            for (int i = 0; i < 3; i++) {
                assertThat(client.publish("orders", Map.of("id", i)).accepted()).isEqualTo(1);
            }
            assertThat(given.paths()).as("the first publish, forwarded by the given node").hasSize(1);
            assertThat(sequencer.paths()).as("the next ones, straight to the sequencer").hasSize(2);
            assertThat(sequencer.authorizations()).containsOnly("Bearer ilk_secret");
            assertThat(client.publish("clicks", Map.of("id", 1)).accepted()).as("another stream").isEqualTo(1);
            assertThat(given.paths()).as("a stream's sequencer is learned per stream").hasSize(2);

            // The sequencer hands the stream over: its 503 sends the request to the given node at once (no
            // back-off), whose answer names the new holder, itself.
            sequencer.answer(503, NOT_HERE);
            given.header(InterlaceClient.SEQUENCER_HEADER, given.uri().toString());
            assertThat(client.publish("orders", Map.of("id", 4)).accepted()).isEqualTo(1);
            assertThat(client.publish("orders", Map.of("id", 5)).accepted()).isEqualTo(1);
            assertThat(sequencer.paths()).as("tried once more, then forgotten").hasSize(3);
            assertThat(given.paths()).hasSize(4);
        }
    }

    @Test
    void theSequencersFollowedAreKeptForABoundedNumberOfStreams() throws Exception {
        try (RecordingServer given = RecordingServer.http(200, STORED);
                RecordingServer sequencer = RecordingServer.http(200, STORED)) {
            given.header(InterlaceClient.SEQUENCER_HEADER, sequencer.uri().toString());
            InterlaceClient client = InterlaceClient.builder(given.uri()).build();
            for (int i = 0; i < SequencerRouter.MAPS_AT_MOST + 20; i++) {
                assertThat(client.publish("s" + i, Map.of("id", i)).accepted()).isEqualTo(1);
            }
            java.lang.reflect.Field followed = InterlaceClient.class.getDeclaredField("sequencers");
            followed.setAccessible(true);
            assertThat((Map<?, ?>) followed.get(client)).hasSize(SequencerRouter.MAPS_AT_MOST);
            // The most recent streams are still followed: the next publish of the last goes to its sequencer.
            int before = sequencer.paths().size();
            client.publish("s" + (SequencerRouter.MAPS_AT_MOST + 19), Map.of("id", 1));
            assertThat(sequencer.paths()).hasSize(before + 1);
        }
    }

    @Test
    void aSequencerThatCannotBeReachedIsForgottenAndNotFollowedAgainForAWhile() throws Exception {
        try (RecordingServer given = RecordingServer.http(200, STORED);
                ServerSocket dropping = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            // A node the answers name that closes every connection at once: the request is broken there.
            AtomicInteger connections = new AtomicInteger();
            Thread acceptor = new Thread(() -> {
                while (!dropping.isClosed()) {
                    try (Socket socket = dropping.accept()) {
                        connections.incrementAndGet();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "dropping-node");
            acceptor.start();
            given.header(InterlaceClient.SEQUENCER_HEADER, "http://127.0.0.1:" + dropping.getLocalPort());
            InterlaceClient client = InterlaceClient.builder(given.uri()).build();

            for (int i = 0; i < 12; i++) {
                assertThat(client.publish("orders", Map.of("id", i)).accepted()).isEqualTo(1);
            }
            assertThat(connections.get()).as("the broken node tried once, then avoided although still named")
                    .isEqualTo(1);
            assertThat(given.paths()).hasSize(12);
        }
    }

    @Test
    void aClientFollowsOnlyAUrlOfItsOwnSchemeAndNotAtAllWhenToldNotTo() throws Exception {
        try (RecordingServer given = RecordingServer.http(200, STORED);
                RecordingServer sequencer = RecordingServer.http(200, STORED)) {
            given.header(InterlaceClient.SEQUENCER_HEADER, sequencer.uri().toString().replace("http:", "https:"));
            InterlaceClient client = InterlaceClient.builder(given.uri()).build();
            client.publish("orders", Map.of("id", 1));
            client.publish("orders", Map.of("id", 2));
            assertThat(given.paths()).as("a URL of another scheme is not followed").hasSize(2);
            assertThat(sequencer.paths()).isEmpty();

            given.header(InterlaceClient.SEQUENCER_HEADER, sequencer.uri().toString());
            InterlaceClient pinned = InterlaceClient.builder(given.uri()).followSequencer(false).build();
            pinned.publish("orders", Map.of("id", 3));
            pinned.publish("orders", Map.of("id", 4));
            assertThat(given.paths()).hasSize(4);
            assertThat(sequencer.paths()).isEmpty();
        }
    }
}
