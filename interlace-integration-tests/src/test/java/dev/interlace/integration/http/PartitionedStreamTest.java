package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import dev.interlace.annotations.Materialise;
import dev.interlace.client.ErrorCode;
import dev.interlace.integration.ClicksStream;
import dev.interlace.integration.OrdersStream;
import dev.interlace.integration.decoding.EvolvingStream;
import dev.interlace.runtime.model.ModelDefinition;
import dev.interlace.runtime.model.SqlModelFiles;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.StreamPartitions;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.FaultModules;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream with several partitions on the SQLite log, end to end over HTTP: each event goes to the partition its key
 * hashes to, each partition has dense offsets of its own, a retry is deduplicated partition by partition, every event
 * lands in {@code streams.<name>} once with its {@code _partition}, a model over the stream sees every event once,
 * and a changed partition count stops start-up.
 */
class PartitionedStreamTest {

    private static final int PARTITIONS = 4;

    private static String payments(int partitions) {
        return """
                package partitioned.v%d;

                import dev.interlace.annotations.Stream;

                @Stream(name = "payments",
                        schema = {"payment_id string not null", "amount bigint"},
                        idempotencyKey = "payment_id",
                        partitions = %d)
                public final class Payments {}
                """.formatted(partitions, partitions);
    }

    private static final String READINGS = """
            package partitioned.readings;

            import dev.interlace.annotations.Stream;

            @Stream(name = "readings", schema = {"sensor string not null", "value double"},
                    partitions = 3, partitionKey = "sensor")
            public final class Readings {}
            """;

    private static final String TICKS = """
            package partitioned.ticks;

            import dev.interlace.annotations.Stream;

            @Stream(name = "ticks", schema = {"n bigint"}, partitions = 3)
            public final class Ticks {}
            """;

    private static StreamCatalog catalog(StreamDescriptor... extra) {
        List<StreamDescriptor> streams = new ArrayList<>(List.of(OrdersStream.DESCRIPTOR, ClicksStream.DESCRIPTOR,
                EvolvingStream.DESCRIPTOR));
        streams.addAll(List.of(extra));
        return StreamCatalog.of(streams);
    }

    /** The examples' SQL models, and {@code extra}. */
    private static AbstractModule models(ModelDefinition... extra) {
        return new AbstractModule() {
            @Provides
            List<ModelDefinition> definitions() {
                List<ModelDefinition> all = new ArrayList<>(SqlModelFiles.load(getClass().getClassLoader()));
                all.addAll(List.of(extra));
                return all;
            }
        };
    }

    private static String batch(int from, int to) {
        StringBuilder body = new StringBuilder();
        for (int i = from; i < to; i++) {
            body.append("{\"payment_id\":\"p-").append(i).append("\",\"amount\":").append(i).append("}\n");
        }
        return body.toString();
    }

    @Test
    void eventsGoToTheirKeysPartitionWithDenseOffsetsAndAreMaterialisedOnce(@TempDir Path data,
            @TempDir Path build) {
        StreamDescriptor payments = RebuiltStream.compile(build, "partitioned.v4", "Payments", payments(PARTITIONS));
        assertThat(payments.partitions()).isEqualTo(PARTITIONS);
        ModelDefinition totals = ModelDefinition.sql("payment_totals", "main", Materialise.TABLE, null,
                "SELECT count(*) AS events, count(DISTINCT payment_id) AS payments, sum(amount) AS amount"
                        + " FROM streams.payments", "test");
        try (TestServer server = TestServer.startWith(data, catalog(payments), List.of(models(totals)))) {
            Map<String, int[]> stored = new HashMap<>(); // key -> {partition, offset}
            for (int from = 0; from < 200; from += 40) {
                TestServer.Response published = server.post("/streams/payments?verbose=true",
                        "application/x-ndjson", batch(from, from + 40));
                assertThat(published.status()).isEqualTo(200);
                JsonNode body = published.body();
                assertThat(body.get("accepted").asLong()).isEqualTo(40);
                assertThat(body.get("last_offset").isNull()).as("offsets of several partitions").isTrue();
                for (int i = 0; i < 40; i++) {
                    JsonNode result = body.get("results").get(i);
                    String key = "p-" + (from + i);
                    assertThat(result.get("partition").asInt()).as(key)
                            .isEqualTo(StreamPartitions.partitionOfKey(key, PARTITIONS));
                    stored.put(key, new int[] {result.get("partition").asInt(), result.get("offset").asInt()});
                }
                Map<Integer, Long> lastByPartition = new TreeMap<>();
                for (int i = 0; i < 40; i++) {
                    JsonNode result = body.get("results").get(i);
                    lastByPartition.merge(result.get("partition").asInt(), result.get("offset").asLong(), Math::max);
                }
                List<String> positions = new ArrayList<>();
                for (JsonNode part : body.get("partitions")) {
                    int p = part.get("partition").asInt();
                    assertThat(part.get("last_offset").asLong()).isEqualTo(lastByPartition.get(p));
                    positions.add(part.get("position").asText());
                }
                assertThat(lastByPartition.keySet()).hasSize(body.get("partitions").size());
                assertThat(body.get("position").asText()).isEqualTo(String.join(",", positions));
            }
            // Dense offsets per partition: 1..n in each.
            Map<Integer, TreeSet<Integer>> offsets = new TreeMap<>();
            stored.values().forEach(at -> offsets.computeIfAbsent(at[0], p -> new TreeSet<>()).add(at[1]));
            assertThat(offsets.keySet()).as("200 keys spread over every partition").hasSize(PARTITIONS);
            for (TreeSet<Integer> partition : offsets.values()) {
                assertThat(partition.first()).isEqualTo(1);
                assertThat(partition.last()).isEqualTo(partition.size());
            }

            // A retry of a whole batch is deduplicated in every partition, to the offsets first given.
            TestServer.Response retried = server.post("/streams/payments?verbose=true", "application/x-ndjson",
                    batch(40, 80));
            assertThat(retried.status()).isEqualTo(200);
            assertThat(retried.body().get("accepted").asLong()).isZero();
            assertThat(retried.body().get("deduplicated").asLong()).isEqualTo(40);
            for (int i = 0; i < 40; i++) {
                JsonNode result = retried.body().get("results").get(i);
                int[] first = stored.get("p-" + (40 + i));
                assertThat(result.get("status").asText()).isEqualTo("duplicate");
                assertThat(new int[] {result.get("partition").asInt(), result.get("offset").asInt()})
                        .isEqualTo(first);
            }
            // Half old, half new: the new ones are accepted, the old ones deduplicated, in whichever partition.
            TestServer.Response mixed = server.post("/streams/payments", "application/x-ndjson", batch(180, 220));
            assertThat(mixed.body().get("accepted").asLong()).isEqualTo(20);
            assertThat(mixed.body().get("deduplicated").asLong()).isEqualTo(20);

            // Read-your-writes over every partition the answer named.
            TestServer.Response after = server.send(server.request("/sql").header("Content-Type", "text/plain")
                    .header("Interlace-After", mixed.body().get("position").asText())
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                            "SELECT count(*) FROM streams.payments WHERE CAST(substr(payment_id, 3) AS INTEGER) >= 200")).build());
            assertThat(after.status()).isEqualTo(200);
            assertThat(after.body().get("rows").get(0).get(0).asLong()).isEqualTo(20);

            JsonNode description = server.await("payments", stream -> {
                for (JsonNode partition : stream.get("by_partition")) {
                    if (partition.get("pending").asLong() != 0) {
                        return false;
                    }
                }
                return true;
            });
            assertThat(description.get("partitions").asInt()).isEqualTo(PARTITIONS);
            assertThat(description.get("by_partition")).hasSize(PARTITIONS);
            long heads = 0;
            for (JsonNode partition : description.get("by_partition")) {
                heads += partition.get("head").asLong();
                assertThat(partition.get("watermark").asLong()).isEqualTo(partition.get("head").asLong());
            }
            assertThat(heads).isEqualTo(220);
            List<String> listed = new ArrayList<>();
            server.get("/streams").body().get("streams").forEach(stream -> listed.add(stream.get("name").asText()));
            assertThat(listed).as("partitions are not streams of their own").containsExactly("clicks", "decoding_evolving",
                    "orders", "payments");

            // Every event once in the warehouse, in the partition its key hashes to, at the offset it was given.
            JsonNode rows = sql(server, "SELECT payment_id, _partition, _offset FROM streams.payments");
            assertEachKeyOnceInItsPartition(rows, 220, PARTITIONS);
            for (JsonNode row : rows) {
                if (stored.containsKey(row.get(0).asText())) {
                    assertThat(row.get(2).asInt()).isEqualTo(stored.get(row.get(0).asText())[1]);
                }
            }
            JsonNode perPartition = sql(server, "SELECT _partition, count(*), min(_offset), max(_offset)"
                    + " FROM streams.payments GROUP BY _partition ORDER BY _partition");
            for (JsonNode row : perPartition) {
                assertThat(row.get(2).asLong()).isEqualTo(1);
                assertThat(row.get(3).asLong()).as("dense in partition " + row.get(0)).isEqualTo(row.get(1).asLong());
            }

            // The model over the stream holds every event once, once every partition's flush has run it.
            JsonNode model = Eventually.get("the model has every partition's events", Duration.ofSeconds(20),
                    () -> sql(server, "SELECT events, payments, amount FROM main.payment_totals"),
                    result -> result.size() == 1 && result.get(0).get(0).asLong() == 220);
            assertThat(model.get(0).get(1).asLong()).isEqualTo(220);
            assertThat(model.get(0).get(2).asLong()).isEqualTo(219 * 220 / 2);

            // The Java client's result covers every partition its requests fell in, for read-your-writes.
            dev.interlace.client.InterlaceClient client = dev.interlace.client.InterlaceClient
                    .builder(server.server.uri()).maxEventsPerRequest(3).build();
            List<Map<String, Object>> more = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                more.add(Map.of("payment_id", "q-" + i, "amount", i));
            }
            dev.interlace.client.PublishResult viaClient = client.publish("payments", more);
            assertThat(viaClient.accepted()).isEqualTo(12);
            assertThat(viaClient.lastOffset()).isNull();
            Set<String> namedPartitions = new TreeSet<>();
            for (String position : viaClient.position().split(",")) {
                namedPartitions.add(position.substring(0, position.indexOf(':')));
            }
            Set<String> expectedPartitions = new TreeSet<>();
            for (int i = 0; i < 12; i++) {
                expectedPartitions.add(StreamPartitions.logStream("payments",
                        StreamPartitions.partitionOfKey("q-" + i, PARTITIONS)));
            }
            assertThat(namedPartitions).isEqualTo(expectedPartitions);
            assertThat(client.sql("SELECT count(*) AS n FROM streams.payments WHERE payment_id LIKE 'q-%'",
                    viaClient.position()).get("rows").get(0).get(0).asLong()).isEqualTo(12);

            // Reads of one partition's log.
            TestServer.Response events = server.get("/streams/payments/events?partition=2&limit=1000");
            assertThat(events.status()).isEqualTo(200);
            long viaClientInTwo = more.stream().filter(event -> StreamPartitions.partitionOfKey(
                    (String) event.get("payment_id"), PARTITIONS) == 2).count();
            assertThat(events.body().get("events")).hasSize(offsets.get(2).size() + countNew(2)
                    + (int) viaClientInTwo);
            for (JsonNode event : events.body().get("events")) {
                String key = event.get("event").get("payment_id").asText();
                assertThat(StreamPartitions.partitionOfKey(key, PARTITIONS)).isEqualTo(2);
            }
            assertThat(server.get("/streams/payments/events").body().get("error").asText())
                    .isEqualTo("partition_required");
            assertThat(server.get("/streams/payments/events?partition=4").body().get("error").asText())
                    .isEqualTo("invalid_parameter");
            assertThat(server.get("/streams/orders/events?partition=0").status()).isEqualTo(200);

            // Where is my event: the key's partition is found.
            JsonNode correlated = server.get("/correlate?stream=payments&key=p-7").body();
            assertThat(correlated.toString()).contains(StreamPartitions.logStream("payments",
                    StreamPartitions.partitionOfKey("p-7", PARTITIONS)));
            assertThat(correlated.toString()).contains(server.get("/streams/payments").body().get("name").asText());

            // A request in several partitions: its story covers each, with the position its publish answered.
            TestServer.Response spread = server.send(server.request("/streams/payments")
                    .header("Content-Type", "application/x-ndjson").header("X-Request-Id", "spread-1")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(batch(300, 312))).build());
            JsonNode story = server.get("/correlate?request_id=spread-1").body();
            assertThat(story.get("position").asText()).isEqualTo(spread.body().get("position").asText());
            assertThat(story.get("events").get("count").asLong()).isEqualTo(12);
            assertThat(story.get("events").get("partitions")).hasSize(spread.body().get("partitions").size());
            TestServer.Response waited = server.send(server.request("/correlate?request_id=spread-1")
                    .header("Interlace-After", story.get("position").asText() + ", models").GET().build());
            assertThat(waited.status()).isEqualTo(200);
            assertThat(waited.body().get("events").get("materialised").asLong()).isEqualTo(12);
            for (JsonNode part : waited.body().get("events").get("partitions")) {
                assertThat(part.get("stream").asText()).isEqualTo(StreamPartitions.logStream("payments",
                        part.get("partition").asInt()));
                assertThat(part.get("pending").asLong()).isZero();
            }

        }
    }

    /** How many of p-200..p-219 (the new keys of the mixed batch) hash to {@code partition}. */
    private static int countNew(int partition) {
        int count = 0;
        for (int i = 200; i < 220; i++) {
            if (StreamPartitions.partitionOfKey("p-" + i, PARTITIONS) == partition) {
                count++;
            }
        }
        return count;
    }

    /** {@code count} keys of the form {@code k-<i>} that fall in {@code partition}, from {@code k-<from>} on. */
    private static List<String> keysIn(int partition, int count, int from) {
        List<String> keys = new ArrayList<>();
        for (int i = from; keys.size() < count; i++) {
            if (StreamPartitions.partitionOfKey("k-" + i, PARTITIONS) == partition) {
                keys.add("k-" + i);
            }
        }
        return keys;
    }

    private static String events(List<String> keys) {
        StringBuilder body = new StringBuilder();
        keys.forEach(key -> body.append("{\"payment_id\":\"").append(key).append("\",\"amount\":1}\n"));
        return body.toString();
    }

    private static String visits(String version, boolean referrer) {
        return """
                package partitioned.%s;

                import dev.interlace.annotations.SchemaDrift;
                import dev.interlace.annotations.Stream;

                @Stream(name = "visits", schema = {"visit_id string not null", "page string"%s},
                        idempotencyKey = "visit_id", partitions = 4, onSchemaDrift = SchemaDrift.QUARANTINE)
                public final class Visits {}
                """.formatted(version, referrer ? ", \"referrer string\"" : "");
    }

    @Test
    void aReplayPutsEachQuarantinedEventInItsKeysPartitionDeduplicatedLikeAPublish(@TempDir Path data,
            @TempDir Path build) {
        StreamDescriptor before = RebuiltStream.compile(build.resolve("v1"), "partitioned.visits1", "Visits",
                visits("visits1", false));
        Map<String, long[]> original;
        try (TestServer server = TestServer.startWith(data, catalog(before))) {
            original = QuarantinedVisits.positions(server.post("/streams/visits?verbose=true",
                    "application/x-ndjson", QuarantinedVisits.stored()).body());
            assertThat(server.post("/streams/visits", "application/x-ndjson", QuarantinedVisits.quarantined()).body()
                    .get("quarantined").asLong()).isEqualTo(QuarantinedVisits.QUARANTINED);
        }
        StreamDescriptor after = RebuiltStream.compile(build.resolve("v2"), "partitioned.visits2", "Visits",
                visits("visits2", true));
        try (TestServer server = TestServer.startWith(data, catalog(after))) {
            JsonNode heads = server.get("/streams/visits").body().get("by_partition");
            TestServer.Response dry = server.postJson("/streams/visits/quarantine/replay",
                    "{\"all\": true, \"dry_run\": true}");
            assertThat(dry.status()).as(dry.body().toString()).isEqualTo(200);
            assertThat(dry.body().get("accepted").asLong()).isEqualTo(20);
            assertThat(dry.body().get("deduplicated").asLong()).isEqualTo(2);
            assertThat(server.get("/streams/visits").body().get("by_partition")).as("a dry run writes nothing")
                    .isEqualTo(heads);

            TestServer.Response replay = server.postJson("/streams/visits/quarantine/replay", "{\"all\": true}");
            assertThat(replay.status()).as(replay.body().toString()).isEqualTo(200);
            assertThat(replay.body().get("accepted").asLong()).isEqualTo(20);
            assertThat(replay.body().get("deduplicated").asLong()).isEqualTo(2);
            Map<Long, String> placed = QuarantinedVisits.assertReplayed(replay.body().get("results"), heads,
                    original, 4);

            // Replayed again: nothing moves; the listing says where each entry went.
            JsonNode again = server.postJson("/streams/visits/quarantine/replay", "{\"seqs\": [1, 21]}").body();
            for (JsonNode result : again.get("results")) {
                assertThat(result.get("status").asText()).isEqualTo("already_replayed");
                assertThat(result.get("partition").asInt() + ":" + result.get("offset").asInt())
                        .isEqualTo(placed.get(result.get("seq").asLong()));
            }
            for (JsonNode item : server.get("/streams/visits/quarantine?limit=100").body().get("items")) {
                assertThat(item.get("replayed_partition").asInt() + ":" + item.get("replayed_offset").asInt())
                        .isEqualTo(placed.get(item.get("seq").asLong()));
            }

            // The warehouse holds every event once, in its key's partition, the replayed ones with their referrer.
            server.await("visits", stream -> {
                for (JsonNode partition : stream.get("by_partition")) {
                    if (partition.get("pending").asLong() != 0) {
                        return false;
                    }
                }
                return true;
            });
            JsonNode rows = sql(server, "SELECT visit_id, _partition, referrer FROM streams.visits");
            assertEachKeyOnceInItsPartition(rows, 32, 4);
            for (JsonNode row : rows) {
                String key = row.get(0).asText();
                assertThat(row.get(2).isNull()).as(key).isEqualTo(key.startsWith("ok-"));
            }
        }
    }

    @Test
    void aRequestWhosePartitionsAreStoredInPartSaysWhichAndItsRetryIsDeduplicatedPartByPart(@TempDir Path data,
            @TempDir Path build) {
        StreamDescriptor payments = RebuiltStream.compile(build, "partitioned.v4", "Payments", payments(PARTITIONS));
        // Nothing is materialised (the warehouse fails every commit): each partition's backlog only grows.
        try (TestServer server = TestServer.startWith(data, catalog(payments),
                List.of(FaultModules.failingWarehouse()), "--max-pending", "6")) {
            List<String> first = new ArrayList<>(keysIn(1, 4, 0));
            first.addAll(keysIn(3, 1, 0));
            assertThat(server.post("/streams/payments", "application/x-ndjson", events(first)).status())
                    .isEqualTo(200);
            // Partition 1 would hold 7 pending entries, partition 3 only 3: the share of 3 is stored, not that of 1.
            List<String> second = new ArrayList<>(keysIn(1, 3, 1000));
            second.addAll(keysIn(3, 2, 1000));
            TestServer.Response partly = server.post("/streams/payments", "application/x-ndjson", events(second));
            assertError(partly, 429, ErrorCode.BACKPRESSURE);
            assertThat(partly.header("Retry-After")).isNotNull();
            assertThat(partly.body().get("message").asText()).contains("partitions [3] are stored")
                    .contains("partitions [1] are not");
            assertThat(partly.body().get("stored_partitions")).hasSize(1);
            assertThat(partly.body().get("stored_partitions").get(0).get("partition").asInt()).isEqualTo(3);
            assertThat(partly.body().get("stored_partitions").get(0).get("last_offset").asLong()).isEqualTo(3);
            assertThat(partly.body().get("not_stored_partitions").toString()).isEqualTo("[1]");
            JsonNode heads = server.get("/streams/payments").body().get("by_partition");
            assertThat(heads.get(1).get("head").asLong()).isEqualTo(4);
            assertThat(heads.get(3).get("head").asLong()).isEqualTo(3);

            // The retry: partition 3's share is deduplicated (nothing new there), partition 1's still refused.
            TestServer.Response retried = server.post("/streams/payments", "application/x-ndjson", events(second));
            assertThat(retried.status()).isEqualTo(429);
            assertThat(retried.body().get("stored_partitions").get(0).get("last_offset").asLong()).isEqualTo(3);
            assertThat(server.get("/streams/payments").body().get("by_partition").get(3).get("head").asLong())
                    .as("deduplicated, not stored again").isEqualTo(3);
        }
    }

    @Test
    void retentionTrimsEachPartitionOnItsOwn(@TempDir Path data, @TempDir Path build) {
        StreamDescriptor payments = RebuiltStream.compile(build, "partitioned.retained", "Payments",
                payments(PARTITIONS).replace("package partitioned.v4;", "package partitioned.retained;")
                        .replace("partitions = 4)", "partitions = 4, retention = \"1d\")"));
        java.util.concurrent.atomic.AtomicReference<java.time.Instant> now =
                new java.util.concurrent.atomic.AtomicReference<>(java.time.Instant.parse("2026-12-01T00:00:00Z"));
        java.time.Clock clock = new java.time.Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public java.time.Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public java.time.Instant instant() {
                return now.get();
            }
        };
        AbstractModule clockModule = new AbstractModule() {
            @Override
            protected void configure() {
                bind(java.time.Clock.class).toInstance(clock);
            }
        };
        try (TestServer server = TestServer.startWith(data, catalog(payments), List.of(clockModule))) {
            assertThat(server.post("/streams/payments", "application/x-ndjson", batch(0, 40)).status())
                    .isEqualTo(200);
            JsonNode flushed = server.await("payments", stream -> {
                for (JsonNode partition : stream.get("by_partition")) {
                    if (partition.get("pending").asLong() != 0) {
                        return false;
                    }
                }
                return true;
            });
            now.set(now.get().plus(Duration.ofDays(2)));
            Map<String, Long> trimmed = server.server.instance(dev.interlace.runtime.log.RetentionSweep.class)
                    .sweep();
            Map<String, Long> expected = new TreeMap<>();
            for (JsonNode partition : flushed.get("by_partition")) {
                if (partition.get("head").asLong() > 0) {
                    expected.put(partition.get("log_stream").asText(), partition.get("head").asLong());
                }
            }
            assertThat(new TreeMap<>(trimmed)).as("each partition trimmed, named by its log stream")
                    .isEqualTo(expected);
            for (JsonNode partition : server.get("/streams/payments").body().get("by_partition")) {
                assertThat(partition.get("earliest").asLong()).isEqualTo(partition.get("head").asLong() + 1);
            }
            // Past the window a key is accepted again, at the next offset of its own partition.
            TestServer.Response again = server.post("/streams/payments?verbose=true", "application/x-ndjson",
                    batch(7, 8));
            JsonNode result = again.body().get("results").get(0);
            assertThat(result.get("status").asText()).isEqualTo("accepted");
            int partition = StreamPartitions.partitionOfKey("p-7", PARTITIONS);
            assertThat(result.get("partition").asInt()).isEqualTo(partition);
            assertThat(result.get("offset").asLong())
                    .isEqualTo(flushed.get("by_partition").get(partition).get("head").asLong() + 1);
        }
    }

    @Test
    void aKeylessStreamIsPartitionedByItsPartitionKeyElseRoundRobin(@TempDir Path data, @TempDir Path build) {
        StreamDescriptor readings = RebuiltStream.compile(build.resolve("r"), "partitioned.readings", "Readings",
                READINGS);
        StreamDescriptor ticks = RebuiltStream.compile(build.resolve("t"), "partitioned.ticks", "Ticks", TICKS);
        try (TestServer server = TestServer.startWith(data, catalog(readings, ticks))) {
            StringBuilder body = new StringBuilder();
            for (int i = 0; i < 30; i++) {
                body.append("{\"sensor\":\"s").append(i % 5).append("\",\"value\":").append(i).append("}\n");
            }
            assertThat(server.post("/streams/readings", "application/x-ndjson", body.toString()).status())
                    .isEqualTo(200);
            StringBuilder numbers = new StringBuilder();
            for (int i = 0; i < 30; i++) {
                numbers.append("{\"n\":").append(i).append("}\n");
            }
            assertThat(server.post("/streams/ticks", "application/x-ndjson", numbers.toString()).status())
                    .isEqualTo(200);
            for (String stream : List.of("readings", "ticks")) {
                server.await(stream, description -> {
                    for (JsonNode partition : description.get("by_partition")) {
                        if (partition.get("pending").asLong() != 0) {
                            return false;
                        }
                    }
                    return true;
                });
            }
            JsonNode sensors = sql(server, "SELECT sensor, min(_partition), max(_partition), count(*)"
                    + " FROM streams.readings GROUP BY sensor ORDER BY sensor");
            assertThat(sensors).hasSize(5);
            for (JsonNode sensor : sensors) {
                int expected = StreamPartitions.partitionOfKey(sensor.get(0).asText(), 3);
                assertThat(sensor.get(1).asInt()).isEqualTo(expected);
                assertThat(sensor.get(2).asInt()).as("one sensor, one partition").isEqualTo(expected);
                assertThat(sensor.get(3).asLong()).isEqualTo(6);
            }
            JsonNode spread = sql(server, "SELECT _partition, count(*) FROM streams.ticks GROUP BY _partition"
                    + " ORDER BY _partition");
            assertThat(spread).hasSize(3);
            for (JsonNode partition : spread) {
                assertThat(partition.get(1).asLong()).as("round robin").isEqualTo(10);
            }
        }
    }

    @Test
    void aChangedPartitionCountIsRefusedAtStartUp(@TempDir Path data, @TempDir Path build) {
        StreamDescriptor four = RebuiltStream.compile(build.resolve("4"), "partitioned.v4", "Payments",
                payments(4));
        try (TestServer server = TestServer.startWith(data, catalog(four))) {
            assertThat(server.post("/streams/payments", "application/x-ndjson", batch(0, 10)).status())
                    .isEqualTo(200);
        }
        for (int count : List.of(2, 1, 8)) {
            StreamDescriptor changed = RebuiltStream.compile(build.resolve("v" + count), "partitioned.v" + count,
                    "Payments", payments(count));
            assertThatThrownBy(() -> TestServer.startWith(data, catalog(changed)).close())
                    .hasMessageContaining("[InterlacePartitionCount]")
                    .hasMessageContaining("declared with partitions = " + count)
                    .hasMessageContaining("its log has 4 partitions")
                    .hasMessageContaining("Declare partitions = 4 again");
        }
        // A stream that had one partition cannot get more either; declared as it was, it starts as it always did.
        StreamDescriptor.Builder orders = StreamDescriptor.builder("orders").partitions(3)
                .declaredBy("test").schemaVersion(OrdersStream.DESCRIPTOR.schemaVersion())
                .decoder(OrdersStream.DESCRIPTOR.decoder())
                .idempotencyKey(OrdersStream.DESCRIPTOR.idempotencyKey())
                .onSchemaDrift(OrdersStream.DESCRIPTOR.onSchemaDrift());
        OrdersStream.DESCRIPTOR.columns().forEach(orders::column);
        StreamDescriptor ordersInThree = orders.build();
        assertThatThrownBy(() -> TestServer.startWith(data, StreamCatalog.of(List.of(ordersInThree,
                ClicksStream.DESCRIPTOR, EvolvingStream.DESCRIPTOR, four))).close())
                .hasMessageContaining("stream \"orders\"").hasMessageContaining("its log has 1 partition.");
        try (TestServer server = TestServer.startWith(data, catalog(four))) {
            assertThat(server.post("/streams/payments", "application/x-ndjson", batch(0, 20)).body()
                    .get("deduplicated").asLong()).isEqualTo(10);
        }
    }

    @Test
    void anIncrementalModelOverAPartitionedStreamProcessesEveryEventOnce(@TempDir Path data, @TempDir Path build) {
        StreamDescriptor payments = RebuiltStream.compile(build, "partitioned.v4", "Payments", payments(PARTITIONS));
        ModelDefinition incremental = ModelDefinition.sql("payment_log", "main", Materialise.INCREMENTAL, null,
                "SELECT payment_id, _partition AS p, _offset AS o FROM streams.payments", "test");
        try (TestServer server = TestServer.startWith(data, catalog(payments), List.of(models(incremental)))) {
            // Many small requests: flushes of the four partitions and model runs interleave.
            publishThreeHundredInSmallRequestsAndRetryThem(server);
            assertTheModelHasEachPaymentOnceAsInTheStream(server, "main.payment_log", PARTITIONS);
        }
    }

    @Test
    void anIncrementalJavaModelOverAPartitionedStreamProcessesEveryEventOnce(@TempDir Path data,
            @TempDir Path build) {
        StreamDescriptor payments = RebuiltStream.compile(build, "partitioned.v2", "Payments", payments(2));
        java.util.Queue<String> conditions = new java.util.concurrent.ConcurrentLinkedQueue<>();
        ModelDefinition incremental = ModelDefinition.java("payment_rows", Materialise.INCREMENTAL, null,
                List.of("streams.payments"), context -> {
                    dev.interlace.runtime.model.ModelContext.Delta delta = context.deltas().get("payments");
                    conditions.add(delta.condition());
                    try (java.sql.Statement statement = context.connection().createStatement()) {
                        statement.execute("CREATE TABLE IF NOT EXISTS " + context.qualifiedTable()
                                + " (payment_id VARCHAR, p INTEGER, o BIGINT)");
                        return statement.executeUpdate("INSERT INTO " + context.qualifiedTable()
                                + " SELECT payment_id, _partition, _offset FROM streams.payments WHERE "
                                + delta.condition());
                    }
                }, "test");
        try (TestServer server = TestServer.startWith(data, catalog(payments), List.of(models(incremental)))) {
            // Many small requests: flushes of the two partitions and model runs interleave.
            publishThreeHundredInSmallRequestsAndRetryThem(server);
            assertTheModelHasEachPaymentOnceAsInTheStream(server, "main.payment_rows", 2);
            assertThat(conditions).as("each run's delta names both partitions")
                    .allSatisfy(condition -> assertThat(condition).contains("_partition = 0")
                            .contains("_partition = 1"));
        }
    }

    /** How many rows model {@code table} holds, -1 while its first run has not made it yet. */
    private static long rowsOnceMade(TestServer server, String table) {
        TestServer.Response answer = server.post("/sql", "text/plain", "SELECT count(*) FROM " + table);
        if (answer.status() == 400 && answer.body().path("message").asText().contains("does not exist")) {
            return -1;
        }
        assertThat(answer.status()).as(answer.body().toString()).isEqualTo(200);
        return answer.body().get("rows").get(0).get(0).asLong();
    }

    private static JsonNode sql(TestServer server, String query) {
        TestServer.Response answer = server.post("/sql", "text/plain", query);
        assertThat(answer.status()).as(answer.body().toString()).isEqualTo(200);
        return answer.body().get("rows");
    }

    /**
     * Requires {@code rows} (key, partition, ...) to be {@code count} keys, each once, in its key's partition of
     * {@code partitions}.
     */
    private static void assertEachKeyOnceInItsPartition(JsonNode rows, int count, int partitions) {
        assertThat(rows).hasSize(count);
        Set<String> seen = new HashSet<>();
        for (JsonNode row : rows) {
            String key = row.get(0).asText();
            assertThat(seen.add(key)).as(key + " once").isTrue();
            assertThat(row.get(1).asInt()).as(key).isEqualTo(StreamPartitions.partitionOfKey(key, partitions));
        }
    }

    /**
     * Once model {@code table} (payment_id, p, o) has the 300 payments: each once, in its key's partition of
     * {@code partitions}, with the partition and offset it has in the stream.
     */
    private static void assertTheModelHasEachPaymentOnceAsInTheStream(TestServer server, String table,
            int partitions) {
        Eventually.get(table + " has every event", Duration.ofSeconds(30), () -> rowsOnceMade(server, table),
                rows -> rows >= 300);
        assertEachKeyOnceInItsPartition(sql(server, "SELECT payment_id, p, o FROM " + table), 300, partitions);
        JsonNode sameAsTable = sql(server, "SELECT count(*) FROM " + table + " l JOIN streams.payments s"
                + " ON l.payment_id = s.payment_id AND l.p = s._partition AND l.o = s._offset");
        assertThat(sameAsTable.get(0).get(0).asLong()).isEqualTo(300);
    }

    /** Payments 0 to 299 in requests of ten, each answered 200, then all again in one request: all deduplicated. */
    private static void publishThreeHundredInSmallRequestsAndRetryThem(TestServer server) {
        for (int from = 0; from < 300; from += 10) {
            assertThat(server.post("/streams/payments", "application/x-ndjson", batch(from, from + 10)).status())
                    .isEqualTo(200);
        }
        assertThat(server.post("/streams/payments", "application/x-ndjson", batch(0, 300)).body()
                .get("deduplicated").asLong()).isEqualTo(300);
    }
}
