package dev.interlace.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code routeToSequencers}: stand-in nodes play a cluster whose stream {@code orders} has two partitions, each
 * sequenced by another node than the one the client is given. Each share goes to its partition's sequencer, the
 * answers merge, a share's refusal names the parts stored and the events as in the whole request, and a sequencer
 * that is gone sends its share to the given node and the map to be read again.
 */
class PartitionRoutingClientTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final List<Node> nodes = new ArrayList<>();

    /** A stand-in node: records each request ({@code METHOD path?query body}) and answers as told. */
    private final class Node {
        final HttpServer server;
        final List<String> requests = new CopyOnWriteArrayList<>();
        volatile int status = 200;
        volatile String refusal;

        Node() throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/", exchange -> {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                String target = exchange.getRequestURI().toString();
                requests.add(exchange.getRequestMethod() + " " + target + " " + body);
                String answer;
                int code = 200;
                if (exchange.getRequestMethod().equals("GET")) {
                    answer = map(target.substring("/streams/".length()));
                } else if (status != 200) {
                    code = status;
                    answer = refusal;
                } else {
                    int partition = target.endsWith("partition=1") ? 1 : 0;
                    long events = body.lines().count();
                    answer = "{\"accepted\":" + events + ",\"deduplicated\":0,\"quarantined\":0,\"last_offset\":"
                            + events + ",\"position\":\"orders" + (partition == 1 ? "__p1" : "") + ":" + events
                            + "\",\"partitions\":[{\"partition\":" + partition + ",\"last_offset\":" + events
                            + "}],\"request_id\":\"r-" + partition + "\"}";
                    exchange.getResponseHeaders().add(InterlaceClient.SEQUENCER_HEADER, uri().toString());
                }
                byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(code, bytes.length);
                exchange.getResponseBody().write(bytes);
                exchange.close();
            });
            server.start();
            nodes.add(this);
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        }

        List<String> publishes() {
            return requests.stream().filter(request -> request.startsWith("POST")).toList();
        }
    }

    private Node given;
    private Node first;
    private Node second;

    /** The map the given node describes: partition 0 on {@code first}, partition 1 on {@code second}. */
    private String map(String stream) {
        return "{\"name\":\"" + stream + "\",\"schema\":{\"id\":\"string not null\",\"n\":\"bigint\"},"
                + "\"idempotency_key\":" + (stream.startsWith("loose") ? "null" : "\"id\"")
                + ",\"partitions\":2,\"partition_key\":null,\"sequencer\":\""
                + first.uri() + "\",\"by_partition\":[{\"partition\":0,\"sequencer\":\"" + first.uri()
                + "\"},{\"partition\":1,\"sequencer\":\"" + second.uri() + "\"}]}";
    }

    /** The client under test, given {@link #given}. */
    private InterlaceClient client;

    @BeforeEach
    void start() throws IOException {
        given = new Node();
        first = new Node();
        second = new Node();
        client = InterlaceClient.builder(given.uri()).routeToSequencers(true).build();
    }

    @AfterEach
    void stop() {
        nodes.forEach(node -> node.server.stop(0));
    }

    @Test
    void eachShareGoesToItsSequencerAndTheAnswersMerge() throws Exception {
        List<Map<String, Object>> events = events(20);
        PublishResult result = client.publish("orders", events);

        assertThat(result.accepted()).isEqualTo(20);
        assertThat(result.partitions()).extracting(PartitionResult::partition).containsExactly(0, 1);
        assertThat(result.requestIds()).containsExactly("r-0", "r-1");
        assertThat(result.position()).isEqualTo("orders:" + count(events, 0) + ",orders__p1:" + count(events, 1));
        assertThat(given.publishes()).as("nothing through the given node").isEmpty();
        for (int partition = 0; partition < 2; partition++) {
            Node node = partition == 0 ? first : second;
            assertThat(node.publishes()).hasSize(1);
            String request = node.publishes().get(0);
            assertThat(request).startsWith("POST /streams/orders?partition=" + partition + " ");
            for (Map<String, Object> event : events) {
                String key = (String) event.get("id");
                assertThat(request.contains("\"" + key + "\"")).as(key)
                        .isEqualTo(Partitioning.partitionOf(key, 2) == partition);
            }
        }

        // A share refused after the other was stored: the refusal names both, and its event as in the request.
        second.status = 422;
        second.refusal = "{\"error\":\"schema_violation\",\"message\":\"1 field error(s)\",\"errors\":[{\"index\":0,"
                + "\"line\":1,\"field\":\"n\",\"reason\":\"no\"}],\"request_id\":\"r-x\"}";
        int firstOfSecond = 0;
        while (Partitioning.partitionOf("k" + firstOfSecond, 2) != 1) {
            firstOfSecond++;
        }
        StringBuilder body = new StringBuilder();
        events.forEach(event -> body.append("{\"id\":\"").append(event.get("id")).append("\",\"n\":")
                .append(event.get("n")).append("}\n"));
        int expectedIndex = firstOfSecond;
        assertThatThrownBy(() -> client.publishRequest("orders", "application/x-ndjson",
                body.toString().getBytes(StandardCharsets.UTF_8))).isInstanceOfSatisfying(ServerException.class,
                        refused -> {
                            JsonNode json = refused.json();
                            assertThat(refused.status()).isEqualTo(422);
                            assertThat(json.get("errors").get(0).get("index").asInt()).isEqualTo(expectedIndex);
                            assertThat(json.get("errors").get(0).get("line").asInt()).isEqualTo(expectedIndex + 1);
                            assertThat(json.get("stored_partitions").get(0).get("partition").asInt()).isZero();
                            assertThat(json.get("not_stored_partitions").toString()).isEqualTo("[1]");
                        });
        assertThatThrownBy(() -> client.publish("orders", events)).isInstanceOfSatisfying(PublishException.class,
                refused -> {
                    assertThat(refused.storedPartitions()).extracting(PartitionResult::partition).containsExactly(0);
                    assertThat(refused.notStoredPartitions()).containsExactly(1);
                });

        // The second sequencer is gone: its share goes to the given node (which would forward it), and the map is
        // read again for the next request.
        second.server.stop(0);
        long mapsRead = given.requests.stream().filter(request -> request.startsWith("GET")).count();
        assertThat(client.publish("orders", events).accepted()).isEqualTo(20);
        assertThat(given.publishes()).hasSize(1).allMatch(request -> request.startsWith(
                "POST /streams/orders?partition=1 "));
        client.publish("orders", events);
        assertThat(given.requests.stream().filter(request -> request.startsWith("GET")).count())
                .as("the map read again").isEqualTo(mapsRead + 1);
    }

    @Test
    void theEventsOfAKeylessRequestGoTogetherToOnePartitionRoundRobin() throws Exception {
        List<Map<String, Object>> events = events(10);
        assertThat(client.publish("loose", events).requestIds()).as("one share").hasSize(1);
        assertThat(client.publish("loose", events).requestIds()).hasSize(1);
        assertThat(first.publishes()).hasSize(1);
        assertThat(second.publishes()).hasSize(1);
        assertThat(first.publishes().get(0).lines().count() + second.publishes().get(0).lines().count())
                .as("every event of both requests").isEqualTo(20);
    }

    @Test
    void mapsAreKeptForABoundedNumberOfStreams() throws Exception {
        for (int i = 0; i < SequencerRouter.MAPS_AT_MOST + 20; i++) {
            client.publish("s" + i, Map.of("id", "k", "n", 1));
        }
        java.lang.reflect.Field router = InterlaceClient.class.getDeclaredField("router");
        router.setAccessible(true);
        assertThat(((SequencerRouter) router.get(client)).mapsKept()).isEqualTo(SequencerRouter.MAPS_AT_MOST);
    }

    /** {@code count} events keyed {@code k0}, {@code k1}, ... with {@code n} their number. */
    private static List<Map<String, Object>> events(int count) {
        List<Map<String, Object>> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(Map.of("id", "k" + i, "n", i));
        }
        return events;
    }

    private static long count(List<Map<String, Object>> events, int partition) {
        return events.stream().filter(event -> Partitioning.partitionOf((String) event.get("id"), 2) == partition)
                .count();
    }
}
