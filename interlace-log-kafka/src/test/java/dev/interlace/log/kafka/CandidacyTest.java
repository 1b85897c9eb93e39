package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node far behind a keyed stream (its deduplication segments lack many keys) does not take the stream from a live
 * node: it becomes a candidate for it once its standby segments are caught up, and a node that is caught up gets its
 * share of the streams; but when no other node is left, the node far behind takes the streams over at once, and every
 * key stored before is still a duplicate with its original offset.
 */
class CandidacyTest {

    /** Keys a recent table holds: small, so that a few hundred keys leave a node that never sealed far behind. */
    private static final int RECENT_KEYS = 20;
    private static final int KEYS = 400;
    private static final List<String> STREAMS = List.of("orders", "payments");

    @TempDir
    Path directory;

    private final String prefix = "candidacy-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    /** The offset each key was accepted at, by stream. */
    private final Map<String, Map<String, Long>> stored = new HashMap<>();

    @Test
    void aNodeFarBehindTakesNoStreamFromALiveNodeButTakesThemOverWhenItIsTheOnlyOneLeft() throws Exception {
        try (Nodes nodes = new Nodes()) {
            KafkaStreamLog first = nodes.add(open("first", Duration.ofSeconds(5)));
            for (String stream : STREAMS) {
                first.register(keyed(stream));
                store(first, stream, KEYS);
            }

            // Its standby never runs: it stays far behind both streams, which the first node holds.
            KafkaStreamLog behind = nodes.add(open("behind", Duration.ofHours(1)));
            for (String stream : STREAMS) {
                behind.register(keyed(stream));
            }

            // A node whose standby catches up becomes a candidate, and the group gives it one of the two streams.
            KafkaStreamLog caughtUp = nodes.add(open("caught-up", Duration.ofSeconds(1)));
            for (String stream : STREAMS) {
                caughtUp.register(keyed(stream));
            }
            Eventually.until("the caught-up node holds one stream", Duration.ofSeconds(60),
                    () -> held(first, "http://caught-up.test") == 1 && held(first, "http://first.test") == 1);
            assertThat(first.sequencerGroupMembers()).as("far behind: no candidate")
                    .doesNotContain("http://behind.test");
            assertThat(behind.candidacyWaiting()).isEqualTo(STREAMS);
            for (String stream : STREAMS) {
                store(holderOf(stream, first, caughtUp), stream, 5);
            }

            // The first node leaves: the caught-up node takes its stream, the node far behind still none.
            first.close();
            Eventually.until("the caught-up node holds both streams", Duration.ofSeconds(60),
                    () -> held(caughtUp, "http://caught-up.test") == 2);
            assertThat(behind.candidacyWaiting()).isEqualTo(STREAMS);
            for (String stream : STREAMS) {
                assertRetriesAreDuplicates(caughtUp, stream);
            }

            // The last caught-up node leaves: the node far behind is the only one, and takes both streams at once.
            caughtUp.close();
            for (String stream : STREAMS) {
                assertRetriesAreDuplicates(behind, stream);
                store(behind, stream, 1);
            }
            assertThat(behind.candidacyWaiting()).isEmpty();
        }
    }

    @Test
    void aNodeFarBehindTakesTheStreamsOverAtOnceWhenTheSequencerGroupIsGone() throws Exception {
        try (KafkaStreamLog first = open("first", Duration.ofSeconds(5))) {
            first.register(keyed("orders"));
            store(first, "orders", KEYS);
        }
        // A group without members is dropped by its coordinator in time; the node must not wait for one.
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                Map.of("bootstrap.servers", KafkaCluster.shared().bootstrap()))) {
            admin.deleteConsumerGroups(List.of(prefix + "sequencers")).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaStreamLog behind = open("behind", Duration.ofHours(1))) {
            behind.register(keyed("orders"));
            assertRetriesAreDuplicates(behind, "orders");
            assertThat(behind.candidacyWaiting()).isEmpty();
        }
    }

    /** Appends {@code count} new keys to {@code stream} on its holder {@code log}, 20 a request, all accepted. */
    private void store(KafkaStreamLog log, String stream, int count) throws Exception {
        Map<String, Long> offsets = stored.computeIfAbsent(stream, name -> new HashMap<>());
        for (int done = 0; done < count; done += 20) {
            List<String> keys = new ArrayList<>();
            for (int i = done; i < Math.min(count, done + 20); i++) {
                keys.add(stream + "-" + offsets.size() + "-" + i);
            }
            AppendResult result = appendUntilServed(log, stream, keys);
            List<AppendResult.EntryResult> entries = ((AppendResult.Committed) result).entries();
            for (int i = 0; i < keys.size(); i++) {
                assertThat(entries.get(i).status()).isEqualTo(AppendResult.Status.ACCEPTED);
                offsets.put(keys.get(i), entries.get(i).offset());
            }
        }
    }

    private void assertRetriesAreDuplicates(KafkaStreamLog log, String stream) throws Exception {
        int i = 0;
        for (Map.Entry<String, Long> key : stored.get(stream).entrySet()) {
            if (i++ % 37 != 0) {
                continue;
            }
            AppendResult result = appendUntilServed(log, stream, List.of(key.getKey()));
            AppendResult.EntryResult entry = ((AppendResult.Committed) result).entries().get(0);
            assertThat(entry.status()).as(key.getKey()).isEqualTo(AppendResult.Status.DUPLICATE);
            assertThat(entry.offset()).as(key.getKey()).isEqualTo(key.getValue());
        }
    }

    /** How many of the streams {@code node} holds, as {@code log} learns from the sequencer group. */
    private static long held(KafkaStreamLog log, String node) {
        return STREAMS.stream().filter(stream -> holder(log, stream).equals(Optional.of(node))).count();
    }

    private static Optional<String> holder(KafkaStreamLog log, String stream) {
        return log.holder(stream); // this node's URL once its own sequencer is active
    }

    /** The node the sequencer group assigns {@code stream} to, as the first of {@code logs} learns it. */
    private static KafkaStreamLog holderOf(String stream, KafkaStreamLog... logs) {
        Optional<String> holder = logs[0].holder(stream);
        for (KafkaStreamLog log : logs) {
            if (holder.equals(Optional.of(log.nodeUrl()))) {
                return log;
            }
        }
        throw new AssertionError("no node holds " + stream + " (" + holder + ")");
    }

    private KafkaStreamLog open(String node, Duration standbyPeriod) {
        return new KafkaStreamLog(new KafkaLogSettings(KafkaCluster.shared().bootstrap(), prefix, 1, 1,
                "http://" + node + ".test", Duration.ofSeconds(6), Duration.ofSeconds(20), directory.resolve(node)),
                LogSettings.defaults(100_000).withDedup(new DedupIndex.Settings(RECENT_KEYS, 2)),
                KeyedOrders.EVERYTHING_FLUSHED, Clock.systemUTC(), standbyPeriod);
    }

    private static StreamDescriptor keyed(String stream) {
        return KeyedOrders.keyed(stream, 1, CandidacyTest.class);
    }

    /** Appends once the node sequences the stream (a takeover under way fails the append with no_sequencer). */
    private static AppendResult appendUntilServed(KafkaStreamLog log, String stream, List<String> keys)
            throws Exception {
        return Eventually.retrying("the node sequences " + stream, Duration.ofSeconds(90), ExecutionException.class,
                () -> log.append(request(stream, keys)).get(30, TimeUnit.SECONDS));
    }

    private static AppendRequest request(String stream, List<String> keys) {
        List<AppendRequest.Entry> events = new ArrayList<>();
        for (String key : keys) {
            events.add(new AppendRequest.Event(("{\"id\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8), key));
        }
        return new AppendRequest(stream, "req-" + UUID.randomUUID(), System.currentTimeMillis() * 1_000, "v1",
                events);
    }
}
