package dev.interlace.runtime.log.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.AppendResult.EntryResult;
import dev.interlace.runtime.log.AppendResult.Status;
import dev.interlace.runtime.log.Backpressure;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.PayloadAllowance;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.testing.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite of {@link dev.interlace.runtime.log.EventLog}: appending, reading and trimming.
 *
 * <p>It specifies dense per-stream offsets from 1 that never rewind; atomic appends (all of a request's entries
 * or none, consecutive offsets, never half-visible to readers); backpressure; the deduplication window (a key
 * deduplicates exactly while its first acceptance is younger than the stream's retention, forever without
 * retention, and no longer once trimmed); reads and long polls; append listeners; heads; trim bounds; the offset
 * of a key; health and closing; and many concurrent appenders.
 *
 * <p>Run it through {@link StreamLogContract}, which a backend extends; it is abstract so that it runs only
 * there.
 */
public abstract class EventLogContract extends LogContractSupport {

    // ================================================================== dense offsets

    @Test
    void offsetsStartAtOneAndAreDensePerStream() throws Exception {
        StreamLog log = open();
        assertThat(offsets(append(log, ORDERS, event("a"), event("b")))).containsExactly(1L, 2L);
        assertThat(offsets(append(log, ORDERS, event("c")))).containsExactly(3L);
        assertThat(offsets(append(log, CLICKS, keyless("x"), keyless("y")))).containsExactly(1L, 2L);
        assertThat(offsets(append(log, ORDERS, event("d"), event("e"), event("f")))).containsExactly(4L, 5L, 6L);

        assertThat(log.read(ORDERS.name(), 0, 100, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        assertThat(log.read(CLICKS.name(), 0, 100, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(1L, 2L);
        assertThat(head(log, ORDERS).head()).isEqualTo(6);
        assertThat(head(log, CLICKS).head()).isEqualTo(2);
    }

    @Test
    void everyStoredEventKeepsItsPayloadRequestIdArrivalTimeAndSchemaVersion() throws Exception {
        StreamLog log = open();
        AppendRequest request = request(ORDERS, event("a"), event("b"));
        AppendResult.Committed committed = append(log, request);
        assertThat(committed.committedAtMicros()).isGreaterThanOrEqualTo(request.receivedAtMicros());

        List<LogEntry> entries = log.read(ORDERS.name(), 0, 10, Duration.ZERO);
        assertThat(entries).hasSize(2);
        for (int i = 0; i < 2; i++) {
            LogEntry entry = entries.get(i);
            assertThat(entry.stream()).isEqualTo(ORDERS.name());
            assertThat(entry.offset()).isEqualTo(i + 1);
            assertThat(entry.requestId()).isEqualTo(request.requestId());
            assertThat(entry.ingestedAtMicros()).isEqualTo(request.receivedAtMicros());
            assertThat(entry.schemaVersion()).isEqualTo(ORDERS.schemaVersion());
            assertThat(entry.payload()).isEqualTo(request.entries().get(i).payload());
        }
    }

    @Test
    void duplicatesAndQuarantinedEntriesConsumeNoOffsets() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"));
        AppendResult.Committed mixed = append(log, ORDERS,
                event("a"), quarantined("bad-1"), event("b"), quarantined("bad-2"), event("c"));
        assertThat(mixed.entries()).containsExactly(
                new EntryResult(Status.DUPLICATE, 1),
                new EntryResult(Status.QUARANTINED, 1),
                new EntryResult(Status.ACCEPTED, 2),
                new EntryResult(Status.QUARANTINED, 2),
                new EntryResult(Status.ACCEPTED, 3));
        assertThat(offsets(append(log, ORDERS, quarantined("bad-3"), event("d")))).containsExactly(3L, 4L);
        assertThat(log.read(ORDERS.name(), 0, 100, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(1L, 2L, 3L, 4L);
        assertThat(head(log, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 4, 3, 1));
    }

    @Test
    void eventsWithoutAKeyAreNeverDeduplicated() throws Exception {
        StreamLog log = open();
        AppendResult.Committed first = append(log, CLICKS, keyless("same"), keyless("same"));
        AppendResult.Committed second = append(log, CLICKS, keyless("same"));
        assertThat(first.entries()).extracting(EntryResult::status).containsOnly(Status.ACCEPTED);
        assertThat(second.entries()).containsExactly(new EntryResult(Status.ACCEPTED, 3));
        assertThat(head(log, CLICKS).head()).isEqualTo(3);
    }

    @Test
    void offsetsNeverRewindAfterATrimOrAReopen() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"), event("b"), event("c"));
        log.trim(ORDERS.name(), 3);
        assertThat(offsets(append(log, ORDERS, event("d")))).containsExactly(4L);
        log.trim(ORDERS.name(), 4);

        StreamLog reopened = reopen(log);
        assertThat(head(reopened, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 4, 0, 5));
        assertThat(offsets(append(reopened, ORDERS, event("e")))).containsExactly(5L);
        assertThat(reopened.read(ORDERS.name(), 0, 10, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(5L);
    }

    @Test
    void registeringAStreamAgainIsIdempotent() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"), quarantined("bad"));
        log.register(ORDERS);
        log.register(ORDERS);
        assertThat(head(log, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 1, 1, 1));
        assertThat(append(log, ORDERS, event("a"), event("b")).entries())
                .containsExactly(new EntryResult(Status.DUPLICATE, 1), new EntryResult(Status.ACCEPTED, 2));
    }

    // ================================================================== atomic appends

    @Test
    void aRequestRefusedByBackpressureWritesNoneOfItsEntries() throws Exception {
        StreamLog log = open(LogSettings.defaults(4));
        append(log, ORDERS, event("a"), event("b"));

        AppendResult refused = await(log.append(request(ORDERS,
                event("c"), quarantined("bad"), event("d"), event("a"))));
        assertThat(refused).isEqualTo(new Backpressure(2, 3, 4));

        assertThat(head(log, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 2, 0, 1));
        assertThat(log.read(ORDERS.name(), 0, 100, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(1L, 2L);
        assertThat(log.readQuarantine(ORDERS.name(), 0, 100)).isEmpty();
        // The refused request's keys were not recorded: they are new, and offsets continue densely.
        assertThat(append(log, ORDERS, event("c"), event("d")).entries())
                .containsExactly(new EntryResult(Status.ACCEPTED, 3), new EntryResult(Status.ACCEPTED, 4));
    }

    @Test
    void aRequestLargerThanTheBacklogLimitIsRefusedEvenOnAnEmptyLog() throws Exception {
        StreamLog log = open(LogSettings.defaults(2));
        AppendResult refused = await(log.append(request(ORDERS, event("a"), event("b"), event("c"))));
        assertThat(refused).isEqualTo(new Backpressure(0, 3, 2));
        assertThat(head(log, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 0, 0, 1));
        assertThat(log.read(ORDERS.name(), 0, 10, Duration.ZERO)).isEmpty();
    }

    @Test
    void backpressureCountsQuarantineAndOnlyNewEntriesAndFollowsTheWatermarks() throws Exception {
        StreamLog log = open(LogSettings.defaults(3));
        append(log, ORDERS, event("a"), quarantined("bad"), event("b"));
        // Pending is 3 = the limit: anything new is refused ...
        assertThat(await(log.append(request(ORDERS, event("c"))))).isEqualTo(new Backpressure(3, 1, 3));
        assertThat(await(log.append(request(ORDERS, quarantined("worse")))))
                .isEqualTo(new Backpressure(3, 1, 3));
        // ... but a request made only of duplicates adds nothing and is answered.
        assertThat(append(log, ORDERS, event("a"), event("b")).entries())
                .containsExactly(new EntryResult(Status.DUPLICATE, 1), new EntryResult(Status.DUPLICATE, 2));

        watermarks.set(ORDERS.name(), 2, 0);
        assertThat(append(log, ORDERS, event("c"), event("d")).entries())
                .extracting(EntryResult::status).containsOnly(Status.ACCEPTED);
        assertThat(await(log.append(request(ORDERS, event("e"))))).isEqualTo(new Backpressure(3, 1, 3));

        watermarks.set(ORDERS.name(), 4, 1);
        assertThat(offsets(append(log, ORDERS, event("e"), event("f"), event("g")))).containsExactly(5L, 6L, 7L);
        // Backlogs are per stream.
        assertThat(offsets(append(log, CLICKS, keyless("x"), keyless("y"), keyless("z")))).containsExactly(1L, 2L, 3L);
    }

    @Test
    void duplicatesWithinOneRequestAreResolvedAgainstTheRequestItself() throws Exception {
        StreamLog log = open();
        AppendResult.Committed committed = append(log, ORDERS,
                event("a"), event("a"), event("b"), event("a"), event("b"), event("c"));
        assertThat(committed.entries()).containsExactly(
                new EntryResult(Status.ACCEPTED, 1),
                new EntryResult(Status.DUPLICATE, 1),
                new EntryResult(Status.ACCEPTED, 2),
                new EntryResult(Status.DUPLICATE, 1),
                new EntryResult(Status.DUPLICATE, 2),
                new EntryResult(Status.ACCEPTED, 3));
        assertThat(committed.count(Status.ACCEPTED)).isEqualTo(3);
        List<LogEntry> stored = log.read(ORDERS.name(), 0, 100, Duration.ZERO);
        assertThat(stored).extracting(entry -> text(entry.payload()))
                .containsExactly(payloadText("a"), payloadText("b"), payloadText("c"));
        assertThat(head(log, ORDERS).head()).isEqualTo(3);
    }

    @Test
    void aRequestsAcceptedEventsTakeConsecutiveOffsetsInRequestOrder() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("x"));
        AppendResult.Committed committed = append(log, ORDERS,
                event("a"), event("x"), event("b"), quarantined("bad"), event("c"));
        assertThat(committed.entries()).extracting(EntryResult::offset).containsExactly(2L, 1L, 3L, 1L, 4L);
        assertThat(log.read(ORDERS.name(), 1, 10, Duration.ZERO)).extracting(entry -> text(entry.payload()))
                .containsExactly(payloadText("a"), payloadText("b"), payloadText("c"));
    }

    // ================================================================== dedup window

    @Test
    void aKeyDeduplicatesExactlyWhileItsFirstAcceptanceIsYoungerThanTheRetention() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("k"));

        clock.advance(Duration.ofMinutes(59).plusSeconds(59));
        assertThat(append(log, ORDERS, event("k")).entries()).containsExactly(new EntryResult(Status.DUPLICATE, 1));

        // Age counts from the first acceptance: the duplicate above did not extend the window.
        clock.advance(Duration.ofSeconds(2));
        assertThat(append(log, ORDERS, event("k")).entries()).containsExactly(new EntryResult(Status.ACCEPTED, 2));

        clock.advance(Duration.ofMinutes(30));
        assertThat(append(log, ORDERS, event("k")).entries()).containsExactly(new EntryResult(Status.DUPLICATE, 2));
    }

    @Test
    void keysEachHaveTheirOwnWindow() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("old"));
        clock.advance(Duration.ofMinutes(40));
        append(log, ORDERS, event("young"));
        clock.advance(Duration.ofMinutes(40));
        assertThat(append(log, ORDERS, event("old"), event("young")).entries())
                .containsExactly(new EntryResult(Status.ACCEPTED, 3), new EntryResult(Status.DUPLICATE, 2));
    }

    @Test
    void withoutRetentionAKeyDeduplicatesForever() throws Exception {
        StreamLog log = open();
        append(log, LEDGER, event("k"));
        clock.advance(Duration.ofDays(3650));
        assertThat(append(log, LEDGER, event("k")).entries()).containsExactly(new EntryResult(Status.DUPLICATE, 1));
    }

    @Test
    void keysAreScopedToTheirStream() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("k"));
        assertThat(append(log, LEDGER, event("k")).entries()).containsExactly(new EntryResult(Status.ACCEPTED, 1));
        assertThat(append(log, ORDERS, event("k")).entries()).containsExactly(new EntryResult(Status.DUPLICATE, 1));
    }

    @Test
    void trimmedEventsStopDeduplicating() throws Exception {
        StreamLog log = open();
        append(log, LEDGER, event("a"), event("b"));
        log.trim(LEDGER.name(), 1);
        assertThat(append(log, LEDGER, event("a"), event("b")).entries())
                .containsExactly(new EntryResult(Status.ACCEPTED, 3), new EntryResult(Status.DUPLICATE, 2));
    }

    @Test
    void theDeduplicationWindowSurvivesAReopen() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("old"));
        clock.advance(Duration.ofMinutes(50));
        append(log, ORDERS, event("young"));
        append(log, LEDGER, event("forever"));
        StreamLog reopened = reopen(log);
        clock.advance(Duration.ofMinutes(20));
        assertThat(append(reopened, ORDERS, event("old"), event("young")).entries())
                .containsExactly(new EntryResult(Status.ACCEPTED, 3), new EntryResult(Status.DUPLICATE, 2));
        assertThat(append(reopened, LEDGER, event("forever")).entries())
                .containsExactly(new EntryResult(Status.DUPLICATE, 1));
    }

    // ================================================================== read and long poll

    @Test
    void readReturnsEventsAfterTheOffsetOldestFirstUpToTheLimit() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"), event("b"), event("c"), event("d"), event("e"));
        assertThat(log.read(ORDERS.name(), 0, 2, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(1L, 2L);
        assertThat(log.read(ORDERS.name(), 2, 2, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(3L, 4L);
        assertThat(log.read(ORDERS.name(), 4, 100, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(5L);
        assertThat(log.read(ORDERS.name(), 5, 100, Duration.ZERO)).isEmpty();
        assertThat(log.read(ORDERS.name(), 99, 100, Duration.ZERO)).isEmpty();
    }

    @Test
    void aReadStopsWithTheEventThatReachesItsByteBudgetAndReturnsAtLeastOne() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"), keyless("b".repeat(20_000)), event("c"), event("d"), event("e"));
        List<LogEntry> all = log.read(ORDERS.name(), 0, 100, Duration.ZERO);
        assertThat(all).hasSize(5);
        long first = all.get(0).payload().length;
        long big = all.get(1).payload().length;
        assertThat(big).isGreaterThan(20_000);

        // The event that reaches the budget is the last one; a budget below the first event still returns it.
        assertThat(log.read(ORDERS.name(), 0, 100, first, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(1L);
        assertThat(log.read(ORDERS.name(), 0, 100, 1, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(1L);
        assertThat(log.read(ORDERS.name(), 0, 100, first + 1, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(1L, 2L);
        assertThat(log.read(ORDERS.name(), 1, 100, 1, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(2L);
        assertThat(log.read(ORDERS.name(), 2, 100, 1_000, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(3L, 4L, 5L);
        // The count limit still applies under a large budget, and the payloads are whole.
        assertThat(log.read(ORDERS.name(), 0, 2, Long.MAX_VALUE, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(1L, 2L);
        assertThat(log.read(ORDERS.name(), 1, 100, big, Duration.ZERO)).singleElement()
                .satisfies(entry -> assertThat(entry.payload()).isEqualTo(all.get(1).payload()));
    }

    @Test
    void aReadWithAnAllowanceAsksForEachPayloadInOrderAndEndsBeforeTheFirstItRefuses() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"), keyless("b".repeat(20_000)), event("c"));
        append(log, ORDERS, quarantined("q1"), quarantined("q2"));
        List<LogEntry> all = log.read(ORDERS.name(), 0, 100, Duration.ZERO);
        long[] sizes = all.stream().mapToLong(entry -> entry.payload().length).toArray();

        List<Long> asked = new ArrayList<>();
        PayloadAllowance belowTheBigOne = length -> {
            asked.add(length);
            return length < 20_000;
        };
        assertThat(log.read(ORDERS.name(), 0, 100, Long.MAX_VALUE, belowTheBigOne)).extracting(LogEntry::offset)
                .containsExactly(1L);
        assertThat(asked).containsExactly(sizes[0], sizes[1]);
        assertThat(log.read(ORDERS.name(), 1, 100, Long.MAX_VALUE, belowTheBigOne)).isEmpty();
        assertThat(log.read(ORDERS.name(), 2, 100, Long.MAX_VALUE, belowTheBigOne)).extracting(LogEntry::offset)
                .containsExactly(3L);
        assertThat(log.read(ORDERS.name(), 0, 100, Long.MAX_VALUE, PayloadAllowance.UNLIMITED))
                .extracting(LogEntry::offset).containsExactly(1L, 2L, 3L);

        // The newest are kept: the list ends before the first (going back) that is refused.
        assertThat(log.latest(ORDERS.name(), 10, Long.MAX_VALUE, belowTheBigOne)).extracting(LogEntry::offset)
                .containsExactly(3L);
        assertThat(log.readQuarantine(ORDERS.name(), 0, 10, Long.MAX_VALUE, length -> false)).isEmpty();
        int[] quarantineAsks = {0};
        assertThat(log.readQuarantine(ORDERS.name(), 0, 10, Long.MAX_VALUE, length -> ++quarantineAsks[0] < 2))
                .extracting(QuarantineEntry::seq).containsExactly(1L);
    }

    @Test
    void latestReturnsTheNewestEventsNewestFirst() throws Exception {
        StreamLog log = open();
        assertThat(log.latest(ORDERS.name(), 3)).isEmpty();
        append(log, ORDERS, event("a"), event("b"), event("c"), event("d"));
        assertThat(log.latest(ORDERS.name(), 3)).extracting(LogEntry::offset).containsExactly(4L, 3L, 2L);
        assertThat(log.latest(ORDERS.name(), 10)).extracting(LogEntry::offset).containsExactly(4L, 3L, 2L, 1L);
        // A byte budget keeps the newest: the list ends with the event that reaches it, and holds at least one.
        append(log, ORDERS, keyless("e".repeat(20_000)));
        long newest = log.latest(ORDERS.name(), 1).get(0).payload().length;
        assertThat(log.latest(ORDERS.name(), 10, 1)).extracting(LogEntry::offset).containsExactly(5L);
        assertThat(log.latest(ORDERS.name(), 10, newest)).extracting(LogEntry::offset).containsExactly(5L);
        assertThat(log.latest(ORDERS.name(), 10, newest + 1)).extracting(LogEntry::offset).containsExactly(5L, 4L);
    }

    @Test
    void quarantinedEntriesAreReadInSequenceWithTheirErrors() throws Exception {
        StreamLog log = open();
        AppendRequest request = request(ORDERS, quarantined("q1"), event("ok"), quarantined("q2"));
        append(log, request);
        append(log, ORDERS, quarantined("q3"));

        List<QuarantineEntry> all = log.readQuarantine(ORDERS.name(), 0, 10);
        assertThat(all).extracting(QuarantineEntry::seq).containsExactly(1L, 2L, 3L);
        QuarantineEntry first = all.get(0);
        assertThat(first.stream()).isEqualTo(ORDERS.name());
        assertThat(first.requestId()).isEqualTo(request.requestId());
        assertThat(first.ingestedAtMicros()).isEqualTo(request.receivedAtMicros());
        assertThat(first.schemaVersion()).isEqualTo(ORDERS.schemaVersion());
        assertThat(first.payload()).isEqualTo(request.entries().get(0).payload());
        assertThat(first.errorsJson()).contains("\"field\"", "\"id\"", "\"reason\"", "is not a string");
        assertThat(log.readQuarantine(ORDERS.name(), 1, 1)).extracting(QuarantineEntry::seq).containsExactly(2L);
        assertThat(log.readQuarantine(ORDERS.name(), 3, 10)).isEmpty();
        assertThat(log.read(ORDERS.name(), 0, 10, Duration.ZERO)).extracting(LogEntry::offset).containsExactly(1L);
        // A byte budget ends the read with the entry that reaches it, and never returns nothing when there is one.
        assertThat(log.readQuarantine(ORDERS.name(), 0, 10, 1)).extracting(QuarantineEntry::seq)
                .containsExactly(1L);
        assertThat(log.readQuarantine(ORDERS.name(), 0, 10, first.payload().length + 1L))
                .extracting(QuarantineEntry::seq).containsExactly(1L, 2L);
    }

    @Test
    void aLongPollWaitsForTheFirstEventAndReturnsAsSoonAsOneArrives() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"));
        CompletableFuture<List<LogEntry>> poll = poll(log, ORDERS, 1, Duration.ofSeconds(20));
        assertThat(poll).failsWithin(Duration.ofMillis(150)).withThrowableOfType(TimeoutException.class);

        long appendedAt = System.nanoTime();
        append(log, ORDERS, event("b"), event("c"));
        List<LogEntry> entries = poll.get(OPERATION_SECONDS, TimeUnit.SECONDS);
        assertThat(entries).extracting(LogEntry::offset).containsExactly(2L, 3L);
        assertThat(Duration.ofNanos(System.nanoTime() - appendedAt)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aLongPollIsNotWokenForGoodByAnotherStream() throws Exception {
        StreamLog log = open();
        CompletableFuture<List<LogEntry>> poll = poll(log, ORDERS, 0, Duration.ofSeconds(20));
        assertThat(poll).failsWithin(Duration.ofMillis(100)).withThrowableOfType(TimeoutException.class);
        append(log, CLICKS, keyless("elsewhere"));
        append(log, ORDERS, quarantined("bad"));
        assertThat(poll).failsWithin(Duration.ofMillis(150)).withThrowableOfType(TimeoutException.class);
        append(log, ORDERS, event("here"));
        assertThat(poll.get(OPERATION_SECONDS, TimeUnit.SECONDS)).extracting(LogEntry::stream, LogEntry::offset)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(ORDERS.name(), 1L));
    }

    @Test
    void aLongPollWithNothingNewReturnsEmptyAfterItsWait() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"));
        long started = System.nanoTime();
        assertThat(log.read(ORDERS.name(), 1, 10, Duration.ofMillis(300))).isEmpty();
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(250)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aReadThatHasEventsOrNoWaitNeverBlocks() throws Exception {
        StreamLog log = open();
        long started = System.nanoTime();
        assertThat(log.read(ORDERS.name(), 0, 10, Duration.ZERO)).isEmpty();
        append(log, ORDERS, event("a"));
        assertThat(log.read(ORDERS.name(), 0, 10, Duration.ofSeconds(20))).extracting(LogEntry::offset)
                .containsExactly(1L);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void appendListenersAreToldAfterTheirStreamAdvanced() throws Exception {
        StreamLog log = open();
        Map<String, Long> seenHeads = new ConcurrentHashMap<>();
        log.addAppendListener(stream -> {
            StreamHead head = log.heads().get(stream);
            seenHeads.merge(stream, head == null ? -1 : head.head(), Math::max);
        });
        append(log, ORDERS, event("a"), event("b"));
        append(log, CLICKS, keyless("x"));
        // A log may tell a listener more than once per append (the Kafka log's sequencer and its tailer both do).
        Eventually.until("both streams' listeners told", Duration.ofSeconds(OPERATION_SECONDS),
                () -> seenHeads.containsKey(ORDERS.name()) && seenHeads.containsKey(CLICKS.name()));
        assertThat(seenHeads).containsEntry(ORDERS.name(), 2L).containsEntry(CLICKS.name(), 1L);
    }

    // ================================================================== heads

    @Test
    void headsListEveryRegisteredStreamEvenWhenEmpty() {
        StreamLog log = open();
        Map<String, StreamHead> heads = log.heads();
        assertThat(heads).containsOnlyKeys(ORDERS.name(), CLICKS.name(), LEDGER.name());
        assertThat(heads.get(ORDERS.name())).isEqualTo(new StreamHead(ORDERS.name(), 0, 0, 1));
    }

    @Test
    void headsFollowAppendsQuarantineAndTrim() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"), event("b"), quarantined("bad"), event("c"));
        assertThat(head(log, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 3, 1, 1));
        log.trim(ORDERS.name(), 2);
        assertThat(head(log, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 3, 1, 3));
        append(log, ORDERS, quarantined("worse"));
        assertThat(head(log, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 3, 2, 3));
        assertThat(head(log, CLICKS)).isEqualTo(new StreamHead(CLICKS.name(), 0, 0, 1));
        // A refused append moves nothing.
        StreamLog bounded = reopen(log, LogSettings.defaults(1));
        assertThat(await(bounded.append(request(ORDERS, event("d"))))).isInstanceOf(Backpressure.class);
        assertThat(head(bounded, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 3, 2, 3));
    }

    @Test
    void anAppendIsInTheHeadsOnceItsFutureCompletes() throws Exception {
        StreamLog log = open();
        for (int i = 1; i <= 20; i++) {
            append(log, ORDERS, event("k" + i));
            assertThat(head(log, ORDERS).head()).isEqualTo(i);
            assertThat(log.read(ORDERS.name(), i - 1, 10, Duration.ZERO)).extracting(LogEntry::offset)
                    .containsExactly((long) i);
        }
    }

    // ================================================================== trim bounds

    @Test
    void trimRemovesUpToAndIncludingTheBoundAndMovesTheEarliestOffset() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"), event("b"), event("c"), event("d"));
        assertThat(log.trim(ORDERS.name(), 2)).isEqualTo(2);
        assertThat(head(log, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 4, 0, 3));
        assertThat(log.read(ORDERS.name(), 0, 10, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(3L, 4L);
        assertThat(log.latest(ORDERS.name(), 10)).extracting(LogEntry::offset).containsExactly(4L, 3L);
    }

    @Test
    void trimNeverGoesBeyondTheHead() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"), event("b"), event("c"));
        assertThat(log.trim(ORDERS.name(), 99)).isEqualTo(3);
        assertThat(head(log, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 3, 0, 4));
        assertThat(log.read(ORDERS.name(), 0, 10, Duration.ZERO)).isEmpty();
        // Offsets past the old head were not "trimmed in advance".
        assertThat(offsets(append(log, ORDERS, event("d"), event("e")))).containsExactly(4L, 5L);
        assertThat(log.read(ORDERS.name(), 0, 10, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(4L, 5L);
        assertThat(head(log, ORDERS).earliest()).isEqualTo(4);
    }

    @Test
    void trimIsIdempotentAndNeverMovesBackwards() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"), event("b"), event("c"));
        assertThat(log.trim(ORDERS.name(), 0)).isZero();
        assertThat(head(log, ORDERS).earliest()).isEqualTo(1);
        assertThat(log.trim(ORDERS.name(), 2)).isEqualTo(2);
        assertThat(log.trim(ORDERS.name(), 2)).isZero();
        assertThat(log.trim(ORDERS.name(), 1)).isZero();
        assertThat(head(log, ORDERS).earliest()).isEqualTo(3);
        assertThat(log.read(ORDERS.name(), 0, 10, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(3L);
    }

    @Test
    void trimOnAnEmptyStreamRemovesNothing() {
        StreamLog log = open();
        assertThat(log.trim(CLICKS.name(), 10)).isZero();
        assertThat(head(log, CLICKS)).isEqualTo(new StreamHead(CLICKS.name(), 0, 0, 1));
    }

    @Test
    void theTrimPointSurvivesAReopen() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"), event("b"), event("c"));
        log.trim(ORDERS.name(), 2);
        StreamLog reopened = reopen(log);
        assertThat(head(reopened, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 3, 0, 3));
        assertThat(reopened.read(ORDERS.name(), 0, 10, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(3L);
    }

    @Test
    void firstOffsetSinceBoundsWhatARetentionSweepMayTrim() throws Exception {
        StreamLog log = open();
        assertThat(log.firstOffsetSince(ORDERS.name(), clock.micros())).isEqualTo(1);
        long t0 = clock.micros();
        append(log, ORDERS, event("a"), event("b"));
        clock.advance(Duration.ofMinutes(10));
        long t1 = clock.micros();
        append(log, ORDERS, event("c"));
        clock.advance(Duration.ofMinutes(10));

        assertThat(log.firstOffsetSince(ORDERS.name(), t0 - 1)).isEqualTo(1);
        assertThat(log.firstOffsetSince(ORDERS.name(), t0)).isEqualTo(1);
        assertThat(log.firstOffsetSince(ORDERS.name(), t0 + 1)).isEqualTo(3);
        assertThat(log.firstOffsetSince(ORDERS.name(), t1)).isEqualTo(3);
        assertThat(log.firstOffsetSince(ORDERS.name(), clock.micros())).isEqualTo(4);
    }

    // ================================================================== concurrency

    @Test
    void manyConcurrentAppendersGetUniqueDenseOffsetsAndReadersNeverSeeAPartialRequest() throws Exception {
        StreamLog log = open();
        int threads = 16;
        int perThread = 50;
        Map<String, Integer> sizes = new ConcurrentHashMap<>();
        Map<String, List<Long>> offsetsByRequest = new ConcurrentHashMap<>();
        AtomicBoolean appending = new AtomicBoolean(true);
        List<String> readerViolations = new CopyOnWriteArrayList<>();
        AtomicInteger snapshots = new AtomicInteger();

        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        try {
            Future<?> reader = pool.submit(() -> {
                while (appending.get()) {
                    long seen = checkSnapshot(log, sizes, readerViolations);
                    snapshots.incrementAndGet();
                    log.read(ORDERS.name(), seen, 1, Duration.ofMillis(50)); // the next once the log moved on
                }
                return null;
            });
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> appenders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                appenders.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        int size = 1 + (thread + i) % 3;
                        List<AppendRequest.Entry> entries = new ArrayList<>();
                        for (int e = 0; e < size; e++) {
                            entries.add(event("t" + thread + "-r" + i + "-e" + e));
                        }
                        String requestId = "c" + thread + "-" + i;
                        sizes.put(requestId, size);
                        AppendRequest request = new AppendRequest(ORDERS.name(), requestId, clock.micros(),
                                ORDERS.schemaVersion(), entries);
                        AppendResult.Committed committed = (AppendResult.Committed) await(log.append(request));
                        assertThat(committed.entries()).extracting(EntryResult::status).containsOnly(Status.ACCEPTED);
                        offsetsByRequest.put(requestId, offsets(committed));
                    }
                    return null;
                }));
            }
            for (Future<?> appender : appenders) {
                appender.get(OPERATION_SECONDS, TimeUnit.SECONDS);
            }
            appending.set(false);
            reader.get(OPERATION_SECONDS, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }

        long total = sizes.values().stream().mapToLong(Integer::longValue).sum();
        Set<Long> all = new HashSet<>();
        offsetsByRequest.forEach((requestId, offsets) -> {
            for (int i = 0; i < offsets.size(); i++) {
                assertThat(offsets.get(i)).as("request %s is contiguous", requestId).isEqualTo(offsets.get(0) + i);
                assertThat(all.add(offsets.get(i))).as("offset %d given twice", offsets.get(i)).isTrue();
            }
        });
        assertThat(offsetsByRequest).hasSize(threads * perThread);
        assertThat(all).hasSize((int) total);
        assertThat(Collections.min(all)).isEqualTo(1);
        assertThat(Collections.max(all)).isEqualTo(total);
        assertThat(head(log, ORDERS).head()).isEqualTo(total);

        List<LogEntry> stored = log.read(ORDERS.name(), 0, (int) total + 10, Duration.ZERO);
        assertThat(stored).hasSize((int) total);
        for (LogEntry entry : stored) {
            List<Long> offsets = offsetsByRequest.get(entry.requestId());
            int index = offsets.indexOf(entry.offset());
            assertThat(index).as("offset %d belongs to %s", entry.offset(), entry.requestId()).isNotNegative();
            String[] parts = entry.requestId().substring(1).split("-");
            assertThat(text(entry.payload())).isEqualTo(payloadText("t" + parts[0] + "-r" + parts[1] + "-e" + index));
        }
        assertThat(readerViolations).isEmpty();
        assertThat(snapshots.get()).isPositive();
        checkSnapshot(log, sizes, readerViolations);
        assertThat(readerViolations).isEmpty();
    }

    @Test
    void concurrentRequestsCarryingTheSameKeysAcceptEachKeyExactlyOnce() throws Exception {
        StreamLog log = open();
        int threads = 8;
        int perThread = 20;
        int sharedKeys = 20;
        List<AppendResult.Committed> results = Collections.synchronizedList(new ArrayList<>());
        List<AppendRequest> requests = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                workers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        AppendRequest request = request(ORDERS,
                                event("shared-" + (i + thread) % sharedKeys),
                                event("own-" + thread + "-" + i),
                                event("shared-" + (i + 3 * thread) % sharedKeys));
                        AppendResult.Committed committed = (AppendResult.Committed) await(log.append(request));
                        synchronized (results) {
                            requests.add(request);
                            results.add(committed);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(OPERATION_SECONDS, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        Map<String, Long> acceptedAt = new HashMap<>();
        Map<String, List<Long>> duplicateOf = new HashMap<>();
        for (int r = 0; r < results.size(); r++) {
            List<EntryResult> fates = results.get(r).entries();
            for (int e = 0; e < fates.size(); e++) {
                String key = ((AppendRequest.Event) requests.get(r).entries().get(e)).idempotencyKey();
                EntryResult fate = fates.get(e);
                if (fate.status() == Status.ACCEPTED) {
                    assertThat(acceptedAt.put(key, fate.offset())).as("key %s accepted twice", key).isNull();
                } else {
                    assertThat(fate.status()).isEqualTo(Status.DUPLICATE);
                    duplicateOf.computeIfAbsent(key, k -> new ArrayList<>()).add(fate.offset());
                }
            }
        }
        int expected = sharedKeys + threads * perThread;
        assertThat(acceptedAt).hasSize(expected);
        assertThat(new HashSet<>(acceptedAt.values())).hasSize(expected);
        assertThat(Collections.max(acceptedAt.values())).isEqualTo(expected);
        duplicateOf.forEach((key, offsets) ->
                assertThat(offsets).as("duplicates of %s", key).containsOnly(acceptedAt.get(key)));
        assertThat(duplicateOf.keySet()).allMatch(key -> key.startsWith("shared-"));
        assertThat(head(log, ORDERS).head()).isEqualTo(expected);
    }

    @Test
    void theOffsetOfAKeyIsFoundOutsideTheDedupWindowToo() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"), event("b"));
        clock.advance(Duration.ofHours(2)); // past ORDERS' one-hour window: "a" is accepted again
        append(log, ORDERS, event("a"));
        assertThat(log.offsetOfKey(ORDERS.name(), "a")).as("the newest event with the key").isEqualTo(3);
        assertThat(log.offsetOfKey(ORDERS.name(), "b")).isEqualTo(2);
        assertThat(log.offsetOfKey(ORDERS.name(), "zzz")).isZero();
    }


    // ================================================================== health and closing

    @Test
    void aFreshLogIsWritable() {
        assertThat(open().health()).isEqualTo(StreamLog.Health.ok());
    }

    @Test
    void anAppendToAClosedLogFailsAsUnavailable() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"));
        close(log);
        CompletableFuture<AppendResult> refused;
        try {
            refused = log.append(request(ORDERS, event("b")));
        } catch (LogUnavailableException thrown) {
            return;
        }
        assertThat(refused).failsWithin(Duration.ofSeconds(OPERATION_SECONDS))
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LogUnavailableException.class);
        assertThat(log.health().writable()).isFalse();
    }
}
