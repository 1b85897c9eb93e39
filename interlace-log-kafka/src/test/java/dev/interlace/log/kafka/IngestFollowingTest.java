package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.PayloadAllowance;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node without a warehouse ({@code --role ingest}) reads the events of the partitions it sequences only: two such
 * nodes share {@code orders}' two partitions; 3 000 events stored in the second node's partition cost the first node's
 * tailer no read of them, yet the first node names the partition's head, reads its events (a page from the start, one
 * from the middle, a long poll woken by a new event) as the second does; and when the second node stops, the first
 * takes the partition over (reading its newest records from then on) and deduplicates a retry of its first key.
 */
class IngestFollowingTest {

    private static final StreamDescriptor ORDERS = StreamDescriptor.builder("orders")
            .column(Column.of("id", ColumnType.STRING, true)).idempotencyKey("id").schemaVersion("v1")
            .partitions(2).declaredBy(IngestFollowingTest.class.getName())
            .decoder(parser -> {
                throw new UnsupportedOperationException("a log never decodes");
            }).build();
    private static final int EVENTS = 3_000;

    @TempDir
    Path directory;

    private final String prefix = "follow-" + UUID.randomUUID().toString().substring(0, 8) + ".";

    @Test
    void anIngestNodeReadsOnlyItsOwnPartitionsEventsYetAnswersForTheOthers() throws Exception {
        KafkaStreamLog first = open("first");
        KafkaStreamLog second = open("second");
        try {
            ORDERS.logStreams().forEach(first::register);
            ORDERS.logStreams().forEach(second::register);
            List<String> partitions = ORDERS.logStreams().stream().map(StreamDescriptor::name).toList();
            Eventually.until("each node sequences one partition of orders", Duration.ofSeconds(90), () ->
                    partitions.stream().filter(p -> own(first, p)).count() == 1
                            && partitions.stream().filter(p -> own(second, p)).count() == 1);
            String mine = partitions.stream().filter(p -> own(first, p)).findFirst().orElseThrow();
            String theirs = partitions.stream().filter(p -> own(second, p)).findFirst().orElseThrow();
            Eventually.until("the first node reads its partition's events only", Duration.ofSeconds(30),
                    () -> first.follows(mine) && !first.follows(theirs) && second.follows(theirs));

            long readBefore = first.tailerReads()[0];
            append(second, theirs, 0, EVENTS);

            // A head question the cluster does not answer within 2 s leaves the head known before (as a tailer's
            // would be on a slow cluster): on a loaded machine the first answers may lag, then name the head.
            Eventually.until("the first node names the other partition's head", Duration.ofSeconds(60),
                    () -> first.heads().get(theirs).head() == EVENTS);
            assertThat(second.heads().get(theirs).head()).isEqualTo(EVENTS);
            List<LogEntry> all = read(first, theirs, 0, EVENTS + 10);
            assertThat(all).hasSize(EVENTS);
            for (int i = 0; i < EVENTS; i++) {
                assertThat(all.get(i).offset()).isEqualTo(i + 1);
                assertThat(new String(all.get(i).payload(), StandardCharsets.UTF_8))
                        .isEqualTo("{\"id\":\"key-" + i + "\"}");
            }
            List<LogEntry> middle = read(first, theirs, 1_500, 10);
            assertThat(middle).extracting(LogEntry::offset).containsExactly(1_501L, 1_502L, 1_503L, 1_504L, 1_505L,
                    1_506L, 1_507L, 1_508L, 1_509L, 1_510L);
            assertThat(new String(middle.get(0).payload(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"key-1500\"}");

            CompletableFuture<List<LogEntry>> poll = CompletableFuture.supplyAsync(() -> {
                try {
                    return first.read(theirs, EVENTS, 10, Long.MAX_VALUE, Duration.ofSeconds(60));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            append(second, theirs, EVENTS, 1);
            assertThat(poll.get(60, TimeUnit.SECONDS)).extracting(LogEntry::offset).containsExactly(EVENTS + 1L);

            assertThat(first.tailerReads()[0] - readBefore)
                    .as("records the first node's tailer read while the other partition took " + (EVENTS + 1)
                            + " events")
                    .isLessThan(EVENTS / 10);

            second.close();
            Eventually.until("the first node sequences both partitions and reads both",
                    Duration.ofSeconds(90), () -> own(first, theirs) && first.follows(theirs));
            AppendResult.EntryResult retry = append(first, theirs, 0, 1).get(0);
            assertThat(retry.status()).as("a retry of key-0 on the new holder").isEqualTo(
                    AppendResult.Status.DUPLICATE);
            assertThat(retry.offset()).isEqualTo(1);
            AppendResult.EntryResult fresh = append(first, theirs, EVENTS + 1, 1).get(0);
            assertThat(fresh.status()).isEqualTo(AppendResult.Status.ACCEPTED);
            assertThat(fresh.offset()).isEqualTo(EVENTS + 2L);
            assertThat(first.heads().get(theirs).head()).isEqualTo(EVENTS + 2L);
        } finally {
            first.close();
            second.close();
        }
    }

    private static boolean own(KafkaStreamLog node, String logStream) {
        return node.holder(logStream).filter(node.nodeUrl()::equals).isPresent();
    }

    /** Appends keys {@code key-from} … through {@code node}, 500 a request; the result of each. */
    private static List<AppendResult.EntryResult> append(KafkaStreamLog node, String logStream, int from, int count)
            throws Exception {
        List<AppendResult.EntryResult> results = new ArrayList<>();
        for (int start = from; start < from + count; start += 500) {
            List<AppendRequest.Entry> events = new ArrayList<>();
            for (int i = start; i < Math.min(from + count, start + 500); i++) {
                events.add(new AppendRequest.Event(("{\"id\":\"key-" + i + "\"}").getBytes(StandardCharsets.UTF_8),
                        "key-" + i));
            }
            AppendResult result = Eventually.retrying("the node sequences " + logStream, Duration.ofSeconds(60),
                    ExecutionException.class, () -> node.append(new AppendRequest(logStream, "req-"
                            + UUID.randomUUID(), System.currentTimeMillis() * 1_000, "v1", events))
                            .get(30, TimeUnit.SECONDS));
            results.addAll(((AppendResult.Committed) result).entries());
        }
        return results;
    }

    private static List<LogEntry> read(KafkaStreamLog node, String logStream, long after, int limit) {
        return node.read(logStream, after, limit, Long.MAX_VALUE, PayloadAllowance.UNLIMITED);
    }

    private KafkaStreamLog open(String node) {
        KafkaLogSettings settings = new KafkaLogSettings(KafkaCluster.shared().bootstrap(), prefix, 1, 1,
                "http://" + node + ".test", Duration.ofSeconds(6), Duration.ofSeconds(20), true, false,
                directory.resolve(node));
        return new KafkaStreamLog(settings, LogSettings.defaults(100_000).withDedup(new DedupIndex.Settings(1_000, 2)),
                KeyedOrders.EVERYTHING_FLUSHED, Clock.systemUTC(), Duration.ofSeconds(1));
    }
}
