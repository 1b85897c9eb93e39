package dev.interlace.runtime.log.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.Backpressure;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.log.ReplayRequest;
import dev.interlace.runtime.log.ReplayResult;
import dev.interlace.runtime.log.ReplayResult.EntryResult;
import dev.interlace.runtime.log.ReplayResult.Status;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite of {@link dev.interlace.runtime.log.QuarantineStore}: replaying quarantined entries.
 *
 * <p>It specifies that a replay appends like a publish (offsets, deduplication, backpressure, a publish record) and
 * marks each entry replayed with its offset in the same atomic step; that an entry is never replayed twice, also
 * under concurrent replays; that a dry run writes nothing; that unknown entries are reported; and that the marks are
 * durable and found again by the replay's request id.
 *
 * <p>Run it through {@link StreamLogContract}, which a backend extends; it is abstract so that it runs only
 * there.
 */
public abstract class QuarantineStoreContract extends LogContractSupport {

    private final AtomicInteger replayIds = new AtomicInteger();

    @Test
    void moreQuarantinedEntriesThanAReaderKeepsExactPositionsForAreAllPagedThroughInOrder() throws Exception {
        StreamLog log = open();
        int perRequest = 1_000;
        int total = 12_000; // past the 8 192 newest entries a Kafka node knows the exact place of
        for (int first = 1; first <= total; first += perRequest) {
            List<AppendRequest.Entry> entries = new ArrayList<>();
            for (int n = first; n < first + perRequest; n++) {
                entries.add(quarantined("q-" + n));
            }
            append(log, request(ORDERS, entries.toArray(AppendRequest.Entry[]::new)));
        }

        List<Long> seen = new ArrayList<>();
        long after = 0;
        while (true) {
            List<QuarantineEntry> page = log.readQuarantine(ORDERS.name(), after, 700);
            if (page.isEmpty()) {
                break;
            }
            for (QuarantineEntry entry : page) {
                assertThat(text(entry.payload())).as("entry %d", entry.seq()).contains("\"q-" + entry.seq() + "\"");
                seen.add(entry.seq());
            }
            after = page.get(page.size() - 1).seq();
        }
        assertThat(seen).hasSize(total);
        assertThat(seen).isSorted().doesNotHaveDuplicates();
        // An old entry asked for directly, without a read that ended just before it.
        assertThat(log.readQuarantine(ORDERS.name(), 500, 3)).extracting(QuarantineEntry::seq)
                .containsExactly(501L, 502L, 503L);
    }

    @Test
    void aReplayAppendsTheEntriesAfterTheHeadAndMarksThemReplayedWithTheirOffsets() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"), quarantined("q1"), quarantined("q2"));
        ReplayRequest replay = replay(ORDERS, false, entry(log, ORDERS, 1, "k1"), entry(log, ORDERS, 2, "k2"));

        ReplayResult.Replayed result = replayed(log, replay);

        assertThat(result.entries()).containsExactly(new EntryResult(1, Status.ACCEPTED, 2),
                new EntryResult(2, Status.ACCEPTED, 3));
        assertThat(result.dryRun()).isFalse();
        List<LogEntry> events = log.read(ORDERS.name(), 1, 10, Duration.ZERO);
        assertThat(events).extracting(LogEntry::offset).containsExactly(2L, 3L);
        assertThat(events).extracting(LogEntry::requestId).containsOnly(replay.requestId());
        assertThat(text(events.get(0).payload())).as("the event as first sent")
                .isEqualTo(text(log.readQuarantine(ORDERS.name(), 0, 1).get(0).payload()));
        assertThat(head(log, ORDERS).head()).isEqualTo(3);
        assertThat(head(log, ORDERS).quarantineHead()).as("entries stay in the quarantine").isEqualTo(2);

        List<QuarantineEntry> entries = log.readQuarantine(ORDERS.name(), 0, 10);
        assertThat(entries).extracting(entry -> entry.replay().offset()).containsExactly(2L, 3L);
        assertThat(entries).extracting(entry -> entry.replay().requestId()).containsOnly(replay.requestId());
        assertThat(entries.get(0).replay().atMicros()).isEqualTo(clock.micros());

        PublishRecord record = log.publishes(new PublishRecord.Filter(ORDERS.name(), replay.requestId(), null, null,
                10)).records().get(0);
        assertThat(List.of(record.accepted(), record.deduplicated(), record.quarantined()))
                .containsExactly(2L, 0L, 0L);
        assertThat(List.of(record.firstOffset(), record.lastOffset())).containsExactly(2L, 3L);
        assertThat(record.keyName()).isEqualTo("operator");
    }

    @Test
    void anEntryIsNeverReplayedTwice() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, quarantined("q1"), quarantined("q2"));
        replayed(log, replay(CLICKS, false, keylessEntry(log, CLICKS, 1)));

        ReplayResult.Replayed again = replayed(log, replay(CLICKS, false, keylessEntry(log, CLICKS, 1),
                keylessEntry(log, CLICKS, 2), keylessEntry(log, CLICKS, 2)));

        assertThat(again.entries()).as("the repeat in one request is answered like the first")
                .containsExactly(new EntryResult(1, Status.ALREADY_REPLAYED, 1),
                        new EntryResult(2, Status.ACCEPTED, 2), new EntryResult(2, Status.ALREADY_REPLAYED, 2));
        assertThat(log.read(CLICKS.name(), 0, 10, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(1L, 2L);
        assertThat(reopen(log).readQuarantine(CLICKS.name(), 0, 10)).as("durable")
                .extracting(entry -> entry.replay().offset()).containsExactly(1L, 2L);
    }

    @Test
    void concurrentReplaysOfTheSameEntriesAppendEachExactlyOnce() throws Exception {
        StreamLog log = open();
        int entries = 20;
        AppendRequest.Entry[] quarantined = new AppendRequest.Entry[entries];
        for (int i = 0; i < entries; i++) {
            quarantined[i] = quarantined("q" + i);
        }
        append(log, CLICKS, quarantined);
        int replayers = 8;
        CyclicBarrier start = new CyclicBarrier(replayers);
        ExecutorService pool = Executors.newFixedThreadPool(replayers);
        try {
            List<Future<ReplayResult.Replayed>> results = new ArrayList<>();
            for (int r = 0; r < replayers; r++) {
                results.add(pool.submit(() -> {
                    List<ReplayRequest.Entry> all = new ArrayList<>();
                    for (int seq = 1; seq <= entries; seq++) {
                        all.add(keylessEntry(log, CLICKS, seq));
                    }
                    start.await();
                    return replayed(log, replay(CLICKS, false, all.toArray(ReplayRequest.Entry[]::new)));
                }));
            }
            long accepted = 0;
            for (Future<ReplayResult.Replayed> result : results) {
                ReplayResult.Replayed replayed = result.get();
                accepted += replayed.count(Status.ACCEPTED);
                assertThat(replayed.count(Status.ACCEPTED) + replayed.count(Status.ALREADY_REPLAYED))
                        .isEqualTo(entries);
            }
            assertThat(accepted).isEqualTo(entries);
        } finally {
            pool.shutdownNow();
        }
        assertThat(log.read(CLICKS.name(), 0, 1000, Duration.ZERO)).hasSize(entries);
        assertThat(head(log, CLICKS).head()).isEqualTo(entries);
    }

    @Test
    void anEntryWhoseKeyIsAlreadyInTheLogIsADuplicateMarkedWithTheOriginalOffset() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, quarantined("q1"));
        append(log, ORDERS, event("k1"));

        ReplayResult.Replayed result = replayed(log, replay(ORDERS, false, entry(log, ORDERS, 1, "k1")));

        assertThat(result.entries()).containsExactly(new EntryResult(1, Status.DUPLICATE, 1));
        assertThat(head(log, ORDERS).head()).isEqualTo(1);
        assertThat(log.readQuarantine(ORDERS.name(), 0, 1).get(0).replay().offset()).isEqualTo(1);
        assertThat(replayed(log, replay(ORDERS, false, entry(log, ORDERS, 1, "k1"))).entries())
                .containsExactly(new EntryResult(1, Status.ALREADY_REPLAYED, 1));
    }

    @Test
    void aDryRunDecidesLikeAReplayAndWritesNothing() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, quarantined("q1"), quarantined("q2"), event("k2"));
        long publishesBefore = log.publishes(new PublishRecord.Filter(null, null, null, null, 10)).total();

        ReplayResult.Replayed dry = replayed(log, replay(ORDERS, true, entry(log, ORDERS, 1, "k1"),
                entry(log, ORDERS, 2, "k2")));

        assertThat(dry.dryRun()).isTrue();
        assertThat(dry.entries()).containsExactly(new EntryResult(1, Status.ACCEPTED, 2),
                new EntryResult(2, Status.DUPLICATE, 1));
        assertThat(head(log, ORDERS).head()).isEqualTo(1);
        assertThat(log.readQuarantine(ORDERS.name(), 0, 10)).extracting(QuarantineEntry::replay).containsOnlyNulls();
        assertThat(log.publishes(new PublishRecord.Filter(null, null, null, null, 10)).total())
                .isEqualTo(publishesBefore);

        ReplayResult.Replayed real = replayed(log, replay(ORDERS, false, entry(log, ORDERS, 1, "k1"),
                entry(log, ORDERS, 2, "k2")));
        assertThat(real.entries()).as("what the dry run said").isEqualTo(dry.entries());
        assertThat(offsets(append(log, ORDERS, event("k3")))).as("a dry run takes no offset").containsExactly(3L);
    }

    @Test
    void entriesTheQuarantineDoesNotHoldAreReportedUnknown() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, quarantined("q1"));
        ReplayRequest.Entry missing = new ReplayRequest.Entry(7, keyless("x"));

        ReplayResult.Replayed result = replayed(log, replay(CLICKS, false, missing, keylessEntry(log, CLICKS, 1)));

        assertThat(result.entries()).containsExactly(new EntryResult(7, Status.UNKNOWN, 0),
                new EntryResult(1, Status.ACCEPTED, 1));
        assertThat(head(log, CLICKS).head()).isEqualTo(1);
    }

    @Test
    void aReplayOverTheBacklogLimitIsRefusedWholeAndWritesNothing() throws Exception {
        StreamLog log = open(LogSettings.defaults(3));
        append(log, CLICKS, keyless("a"), quarantined("q1"), quarantined("q2"));

        ReplayResult result = await(log.replay(replay(CLICKS, false, keylessEntry(log, CLICKS, 1),
                keylessEntry(log, CLICKS, 2))));

        assertThat(result).isEqualTo(new Backpressure(3, 2, 3));
        assertThat(head(log, CLICKS).head()).isEqualTo(1);
        assertThat(log.readQuarantine(CLICKS.name(), 0, 10)).extracting(QuarantineEntry::replay).containsOnlyNulls();

        watermarks.set(CLICKS.name(), 1, 2);
        assertThat(replayed(log, replay(CLICKS, false, keylessEntry(log, CLICKS, 1), keylessEntry(log, CLICKS, 2)))
                .count(Status.ACCEPTED)).as("once the backlog is materialised").isEqualTo(2);
    }

    @Test
    void replayedByFindsTheEntriesOneReplayMoved() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, quarantined("q1"), quarantined("q2"), quarantined("q3"));
        ReplayRequest first = replay(CLICKS, false, keylessEntry(log, CLICKS, 3), keylessEntry(log, CLICKS, 1));
        replayed(log, first);
        ReplayRequest second = replay(CLICKS, false, keylessEntry(log, CLICKS, 2));
        replayed(log, second);

        assertThat(log.replayedBy(CLICKS.name(), first.requestId(), 10)).extracting(QuarantineEntry::seq)
                .containsExactly(1L, 3L);
        assertThat(log.replayedBy(CLICKS.name(), second.requestId(), 10)).extracting(QuarantineEntry::seq)
                .containsExactly(2L);
        assertThat(log.replayedBy(CLICKS.name(), first.requestId(), 1)).hasSize(1);
        assertThat(log.replayedBy(ORDERS.name(), first.requestId(), 10)).isEmpty();
        assertThat(log.replayedBy(CLICKS.name(), "never-sent", 10)).isEmpty();
    }

    @Test
    void aReplayIntoAnotherPartitionAppendsThereDeduplicatedAndMarksThePartition() throws Exception {
        StreamLog log = open();
        // A stream of two partitions: its quarantine is partition 0's, the events go to partition 1.
        StreamDescriptor payments = StreamDescriptor.builder("payments")
                .column(dev.interlace.runtime.stream.Column.of("id", dev.interlace.runtime.stream.ColumnType.STRING,
                        true)).schemaVersion("v1-payments").declaredBy(getClass().getName()).idempotencyKey("id")
                .partitions(2).decoder(parser -> {
                    throw new UnsupportedOperationException("a log never decodes");
                }).build();
        StreamDescriptor partitionOne = payments.logStream(1);
        log.register(payments);
        log.register(partitionOne);
        append(log, payments, quarantined("q1"), quarantined("q2"));
        append(log, partitionOne, event("first"));
        ReplayRequest replay = new ReplayRequest(payments.name(), partitionOne.name(), "replay-into-p1",
                clock.micros(), payments.schemaVersion(), List.of(entry(log, payments, 1, "new"),
                        entry(log, payments, 2, "first")), "k_operator", "operator", false);

        ReplayResult.Replayed result = replayed(log, replay);

        assertThat(result.entries()).as("appended after partition 1's head, deduplicated against its keys")
                .containsExactly(new EntryResult(1, Status.ACCEPTED, 2), new EntryResult(2, Status.DUPLICATE, 1));
        assertThat(log.read(partitionOne.name(), 0, 10, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(1L, 2L);
        assertThat(head(log, payments).head()).as("nothing appended to the quarantine's partition").isZero();
        List<QuarantineEntry> entries = log.readQuarantine(payments.name(), 0, 10);
        assertThat(entries).extracting(entry -> entry.replay().partition()).containsExactly(1, 1);
        assertThat(entries).extracting(entry -> entry.replay().offset()).containsExactly(2L, 1L);
        assertThat(replayed(log, replay).entries()).as("never twice").extracting(EntryResult::status)
                .containsOnly(Status.ALREADY_REPLAYED);
        assertThat(log.read(partitionOne.name(), 0, 10, Duration.ZERO)).hasSize(2);
    }

    // ================================================================== helpers

    /** A replay request of {@code stream} sent by a key named {@code operator}, arriving now by the clock. */
    private ReplayRequest replay(StreamDescriptor stream, boolean dryRun, ReplayRequest.Entry... entries) {
        return new ReplayRequest(stream.name(), "replay-" + replayIds.incrementAndGet(), clock.micros(),
                stream.schemaVersion(), List.of(entries), "k_operator", "operator", dryRun);
    }

    /** The quarantined entry {@code seq}, its payload as stored, replayed with the idempotency key {@code key}. */
    private static ReplayRequest.Entry entry(StreamLog log, StreamDescriptor stream, long seq, String key) {
        QuarantineEntry stored = log.readQuarantine(stream.name(), seq - 1, 1).get(0);
        return new ReplayRequest.Entry(seq, new AppendRequest.Event(stored.payload(), key));
    }

    /** The quarantined entry {@code seq} of a stream without an idempotency key. */
    private static ReplayRequest.Entry keylessEntry(StreamLog log, StreamDescriptor stream, long seq) {
        return entry(log, stream, seq, null);
    }

    private static ReplayResult.Replayed replayed(StreamLog log, ReplayRequest request) throws Exception {
        CompletableFuture<ReplayResult> result = log.replay(request);
        ReplayResult done = await(result);
        assertThat(done).isInstanceOf(ReplayResult.Replayed.class);
        return (ReplayResult.Replayed) done;
    }
}
