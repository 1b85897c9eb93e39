package dev.interlace.runtime.log.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.AppendResult.EntryResult;
import dev.interlace.runtime.log.AppendResult.Status;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.FieldError;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite (TCK) every {@link StreamLog} must pass (docs/architecture.md#seams-and-conformance-suites).
 *
 * <p>It specifies, through the {@link StreamLog} interface only: dense per-stream offsets from 1 that never rewind;
 * atomic appends (all of a request's entries or none, consecutive offsets, never half-visible to readers); the
 * deduplication window (a key deduplicates exactly while its first acceptance is younger than the stream's
 * retention, forever without retention, and no longer once trimmed); reads and long polls; heads; trim bounds;
 * exclusive leases with monotonically increasing fencing tokens; every commit refusal; and behaviour under
 * concurrency (many appenders, competing leasers). The whole suite runs in a few seconds on two cores.
 *
 * <h2>Running it against a backend</h2>
 *
 * <p>The suite ships in the runtime's test jar. A backend module (PostgreSQL, a Kafka-protocol broker, ...) adds
 *
 * <pre>{@code
 * <dependency>
 *   <groupId>dev.interlace</groupId>
 *   <artifactId>interlace-runtime</artifactId>
 *   <version>${project.version}</version>
 *   <type>test-jar</type>
 *   <scope>test</scope>
 * </dependency>
 * }</pre>
 *
 * <p>plus test-scoped {@code junit-jupiter} and {@code assertj-core} (the test jar does not carry its test
 * dependencies), and extends this class:
 *
 * <pre>{@code
 * class PostgresStreamLogContractTest extends StreamLogContract {
 *     @Override
 *     protected StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock) {
 *         return new PostgresStreamLog(schemaFor(dataDirectory), settings, watermarks, clock);
 *     }
 * }
 * }</pre>
 *
 * <p>{@code SqliteStreamLogContractTest} (same package) is the reference.
 *
 * <h2>What {@link #openLog} must do</h2>
 *
 * <ul>
 *   <li>Return an open, writable log. A directory the suite has not used before must give an <em>empty</em> log
 *       (no streams, no events, no consumer groups). Each test gets a fresh JUnit temporary directory; a backend
 *       that does not store files should derive an isolated namespace from it (a database schema, a topic prefix)
 *       and may drop that namespace in an {@code @AfterEach} of its own.
 *   <li>Opening the <em>same</em> directory again after the previous log was closed must give back the same durable
 *       state: the restart tests ({@code ...Reopen...}) close a log and open it again.
 *   <li>Use {@code settings.maxPending()} for backpressure and {@code watermarks} for the materialised positions,
 *       read at append time (the suite moves watermarks between appends). Other settings may be ignored.
 *   <li>Take every notion of "now" (the deduplication window, lease grants and expiry, {@code committedAtMicros})
 *       from {@code clock}. The suite passes a {@link ManualClock} that only moves when a test advances it, so
 *       expiry is deterministic. Long polls ({@link StreamLog#read} with a wait) use real time.
 * </ul>
 *
 * <p>The suite registers its streams ({@link #ORDERS}, {@link #CLICKS}, {@link #LEDGER}) itself, closes every log it
 * opened after each test, and never casts to an implementation type.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class StreamLogContract {

    /** Keyed ({@code id}), one hour of retention: keys deduplicate for an hour. */
    protected static final StreamDescriptor ORDERS = descriptor("orders", "id", 3_600_000L);
    /** No idempotency key, no retention: events are never deduplicated. */
    protected static final StreamDescriptor CLICKS = descriptor("clicks", null, 0);
    /** Keyed ({@code id}), no retention: keys deduplicate forever. */
    protected static final StreamDescriptor LEDGER = descriptor("ledger", "id", 0);

    /** Where every test's clock starts. */
    protected static final Instant START = Instant.parse("2026-11-29T08:00:00Z");
    /** A backlog limit no test reaches unless it means to. */
    protected static final LogSettings ROOMY = LogSettings.defaults(1_000_000);
    /** How long any single operation may take before the suite calls it hung. */
    private static final long OPERATION_SECONDS = 30;
    private static final Duration TTL = Duration.ofSeconds(30);

    /**
     * Opens (creating if needed) a log keeping its state under {@code dataDirectory}; see the class comment for what
     * it must guarantee.
     */
    protected abstract StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock);

    @TempDir
    protected Path dataDirectory;

    protected final ManualClock clock = new ManualClock(START);
    protected final MutableWatermarks watermarks = new MutableWatermarks();

    private final List<StreamLog> opened = new CopyOnWriteArrayList<>();
    private final Map<StreamLog, LogSettings> settingsOf = new ConcurrentHashMap<>();
    private final AtomicInteger requestIds = new AtomicInteger();

    @AfterEach
    void closeEveryOpenedLog() {
        for (StreamLog log : opened) {
            log.close();
        }
        opened.clear();
    }

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
        assertThat(refused).isEqualTo(new AppendResult.Backpressure(2, 3, 4));

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
        assertThat(refused).isEqualTo(new AppendResult.Backpressure(0, 3, 2));
        assertThat(head(log, ORDERS)).isEqualTo(new StreamHead(ORDERS.name(), 0, 0, 1));
        assertThat(log.read(ORDERS.name(), 0, 10, Duration.ZERO)).isEmpty();
    }

    @Test
    void backpressureCountsQuarantineAndOnlyNewEntriesAndFollowsTheWatermarks() throws Exception {
        StreamLog log = open(LogSettings.defaults(3));
        append(log, ORDERS, event("a"), quarantined("bad"), event("b"));
        // Pending is 3 = the limit: anything new is refused ...
        assertThat(await(log.append(request(ORDERS, event("c"))))).isEqualTo(new AppendResult.Backpressure(3, 1, 3));
        assertThat(await(log.append(request(ORDERS, quarantined("worse")))))
                .isEqualTo(new AppendResult.Backpressure(3, 1, 3));
        // ... but a request made only of duplicates adds nothing and is answered.
        assertThat(append(log, ORDERS, event("a"), event("b")).entries())
                .containsExactly(new EntryResult(Status.DUPLICATE, 1), new EntryResult(Status.DUPLICATE, 2));

        watermarks.set(ORDERS.name(), 2, 0);
        assertThat(append(log, ORDERS, event("c"), event("d")).entries())
                .extracting(EntryResult::status).containsOnly(Status.ACCEPTED);
        assertThat(await(log.append(request(ORDERS, event("e"))))).isEqualTo(new AppendResult.Backpressure(3, 1, 3));

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
    void latestReturnsTheNewestEventsNewestFirst() throws Exception {
        StreamLog log = open();
        assertThat(log.latest(ORDERS.name(), 3)).isEmpty();
        append(log, ORDERS, event("a"), event("b"), event("c"), event("d"));
        assertThat(log.latest(ORDERS.name(), 3)).extracting(LogEntry::offset).containsExactly(4L, 3L, 2L);
        assertThat(log.latest(ORDERS.name(), 10)).extracting(LogEntry::offset).containsExactly(4L, 3L, 2L, 1L);
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
    }

    @Test
    void aLongPollWaitsForTheFirstEventAndReturnsAsSoonAsOneArrives() throws Exception {
        StreamLog log = open();
        append(log, ORDERS, event("a"));
        CompletableFuture<List<LogEntry>> poll = poll(log, ORDERS, 1, Duration.ofSeconds(20));
        Thread.sleep(150);
        assertThat(poll).isNotDone();

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
        Thread.sleep(100);
        append(log, CLICKS, keyless("elsewhere"));
        append(log, ORDERS, quarantined("bad"));
        Thread.sleep(150);
        assertThat(poll).isNotDone();
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
        CountDownLatch told = new CountDownLatch(2);
        log.addAppendListener(stream -> {
            StreamHead head = log.heads().get(stream);
            seenHeads.merge(stream, head == null ? -1 : head.head(), Math::max);
            told.countDown();
        });
        append(log, ORDERS, event("a"), event("b"));
        append(log, CLICKS, keyless("x"));
        assertThat(told.await(OPERATION_SECONDS, TimeUnit.SECONDS)).isTrue();
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
        assertThat(await(bounded.append(request(ORDERS, event("d"))))).isInstanceOf(AppendResult.Backpressure.class);
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

    // ================================================================== leases: exclusivity and tokens

    @Test
    void aLeaseIsGrantedWithTheCommittedOffsetAndAnExpiryFromTheClock() {
        StreamLog log = open();
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        assertThat(granted.token()).isPositive();
        assertThat(granted.committedOffset()).isZero();
        assertThat(granted.expiresAtMicros()).isEqualTo(clock.micros() + TTL.toNanos() / 1_000);
        assertThat(log.groups(CLICKS.name())).containsExactly(
                new Leases.Group(CLICKS.name(), "g", 0, granted.token(), "w1", granted.expiresAtMicros()));
    }

    @Test
    void aLeaseIsExclusiveUntilItExpires() {
        StreamLog log = open();
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        assertThat(log.lease(CLICKS.name(), "g", "w2", TTL)).isEqualTo(new Leases.Held("w1", first.expiresAtMicros()));
        clock.advance(TTL.minusSeconds(1));
        assertThat(log.lease(CLICKS.name(), "g", "w2", TTL)).isEqualTo(new Leases.Held("w1", first.expiresAtMicros()));
        clock.advance(Duration.ofSeconds(2));
        Leases.Granted second = grant(log.lease(CLICKS.name(), "g", "w2", TTL));
        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(log.lease(CLICKS.name(), "g", "w1", TTL)).isEqualTo(new Leases.Held("w2", second.expiresAtMicros()));
    }

    @Test
    void theHolderRenewsWithTheSameTokenAndALaterExpiry() {
        StreamLog log = open();
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        clock.advance(Duration.ofSeconds(20));
        Leases.Granted renewed = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        assertThat(renewed.token()).isEqualTo(first.token());
        assertThat(renewed.expiresAtMicros()).isEqualTo(clock.micros() + TTL.toNanos() / 1_000)
                .isGreaterThan(first.expiresAtMicros());
        // The renewal holds past the first expiry.
        clock.advance(Duration.ofSeconds(20));
        assertThat(log.lease(CLICKS.name(), "g", "w2", TTL))
                .isEqualTo(new Leases.Held("w1", renewed.expiresAtMicros()));
    }

    @Test
    void aHolderWhoseLeaseExpiredGetsANewTokenWhenItLeasesAgain() {
        StreamLog log = open();
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        clock.advance(TTL.plusSeconds(1));
        Leases.Granted again = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        assertThat(again.token()).isGreaterThan(first.token());
        assertThat(log.commit(CLICKS.name(), "g", first.token(), 0)).isInstanceOf(Leases.StaleToken.class);
    }

    @Test
    void releaseFreesTheLeaseAtOnceOnlyForTheCurrentToken() {
        StreamLog log = open();
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        assertThat(log.release(CLICKS.name(), "g", first.token() + 1)).isFalse();
        assertThat(log.lease(CLICKS.name(), "g", "w2", TTL)).isInstanceOf(Leases.Held.class);
        assertThat(log.release(CLICKS.name(), "g", first.token())).isTrue();

        Leases.Granted second = grant(log.lease(CLICKS.name(), "g", "w2", TTL));
        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(log.release(CLICKS.name(), "g", first.token())).isFalse();
        assertThat(log.lease(CLICKS.name(), "g", "w1", TTL)).isEqualTo(new Leases.Held("w2", second.expiresAtMicros()));
        assertThat(log.release(CLICKS.name(), "never-leased", 1)).isFalse();
    }

    @Test
    void groupsAreIndependentPerStreamAndGroupAndListedByName() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("x"), keyless("y"));
        append(log, ORDERS, event("a"));
        Leases.Granted zulu = grant(log.lease(CLICKS.name(), "zulu", "w1", TTL));
        Leases.Granted alpha = grant(log.lease(CLICKS.name(), "alpha", "w2", TTL));
        Leases.Granted orders = grant(log.lease(ORDERS.name(), "zulu", "w3", TTL));
        assertThat(log.commit(CLICKS.name(), "zulu", zulu.token(), 2)).isEqualTo(new Leases.Committed(2));
        assertThat(log.commit(CLICKS.name(), "alpha", alpha.token(), 1)).isEqualTo(new Leases.Committed(1));
        assertThat(log.commit(ORDERS.name(), "zulu", orders.token(), 1)).isEqualTo(new Leases.Committed(1));

        assertThat(log.groups(CLICKS.name())).extracting(Leases.Group::group, Leases.Group::committedOffset,
                Leases.Group::holder).containsExactly(
                        org.assertj.core.groups.Tuple.tuple("alpha", 1L, "w2"),
                        org.assertj.core.groups.Tuple.tuple("zulu", 2L, "w1"));
        assertThat(log.groups(ORDERS.name())).extracting(Leases.Group::group, Leases.Group::holder)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("zulu", "w3"));
        assertThat(log.groups(LEDGER.name())).isEmpty();
    }

    @Test
    void tokensIncreaseStrictlyAcrossEveryTakeover() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("x"));
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 12; i++) {
            Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w" + (i % 3), TTL));
            assertThat(granted.token()).as("takeover %d", i).isGreaterThan(previous);
            assertThat(grant(log.lease(CLICKS.name(), "g", "w" + (i % 3), TTL)).token()).isEqualTo(granted.token());
            switch (i % 3) {
                case 0 -> assertThat(log.release(CLICKS.name(), "g", granted.token())).isTrue();
                case 1 -> clock.advance(TTL.plusMillis(1));
                default -> {
                    assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1)).isEqualTo(new Leases.Committed(1));
                    clock.advance(TTL.multipliedBy(10));
                }
            }
            previous = granted.token();
        }
        long last = previous;
        assertThat(log.groups(CLICKS.name())).singleElement()
                .satisfies(group -> assertThat(group.token()).isEqualTo(last));
    }

    @Test
    void tokensAndCommittedOffsetsSurviveAReopen() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("x"), keyless("y"));
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 2)).isEqualTo(new Leases.Committed(2));

        StreamLog reopened = reopen(log);
        assertThat(reopened.lease(CLICKS.name(), "g", "w2", TTL))
                .isEqualTo(new Leases.Held("w1", granted.expiresAtMicros()));
        assertThat(reopened.commit(CLICKS.name(), "g", granted.token(), 2)).isEqualTo(new Leases.Committed(2));
        clock.advance(TTL.plusSeconds(1));
        Leases.Granted next = grant(reopened.lease(CLICKS.name(), "g", "w2", TTL));
        assertThat(next.token()).isGreaterThan(granted.token());
        assertThat(next.committedOffset()).isEqualTo(2);
    }

    // ================================================================== commits and every refusal

    @Test
    void theHolderCommitsForwardAndMayRepeatItsCommittedOffset() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"), keyless("c"));
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1)).isEqualTo(new Leases.Committed(1));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1)).isEqualTo(new Leases.Committed(1));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 3)).isEqualTo(new Leases.Committed(3));
        assertThat(committedOffset(log, CLICKS, "g")).isEqualTo(3);
        assertThat(log.release(CLICKS.name(), "g", granted.token())).isTrue();
        assertThat(grant(log.lease(CLICKS.name(), "g", "w2", TTL)).committedOffset()).isEqualTo(3);
    }

    @Test
    void aCommitWithAStaleTokenIsRefused() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"));
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        log.release(CLICKS.name(), "g", first.token());
        Leases.Granted second = grant(log.lease(CLICKS.name(), "g", "w2", TTL));
        assertThat(log.commit(CLICKS.name(), "g", first.token(), 1)).isEqualTo(new Leases.StaleToken(second.token()));
        assertThat(log.commit(CLICKS.name(), "g", second.token() + 1, 1))
                .isEqualTo(new Leases.StaleToken(second.token()));
        assertThat(committedOffset(log, CLICKS, "g")).isZero();
    }

    @Test
    void aCommitForAGroupNobodyEverLeasedIsRefusedAsStale() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"));
        assertThat(log.commit(CLICKS.name(), "nobody", 1, 1)).isInstanceOf(Leases.StaleToken.class);
        assertThat(log.groups(CLICKS.name())).extracting(Leases.Group::committedOffset).allMatch(offset -> offset == 0);
    }

    @Test
    void aCommitAfterTheLeaseExpiredIsRefusedEvenIfNobodyTookOver() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"));
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        clock.advance(TTL.plusMillis(1));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1))
                .isEqualTo(new Leases.LeaseExpired(granted.expiresAtMicros()));
        assertThat(committedOffset(log, CLICKS, "g")).isZero();
    }

    @Test
    void aCommitAfterReleaseIsRefused() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"));
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        assertThat(log.release(CLICKS.name(), "g", granted.token())).isTrue();
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1))
                .isInstanceOfAny(Leases.LeaseExpired.class, Leases.StaleToken.class);
        assertThat(committedOffset(log, CLICKS, "g")).isZero();
    }

    @Test
    void aCommitThatMovesBackwardsIsRefused() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"), keyless("c"));
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        log.commit(CLICKS.name(), "g", first.token(), 2);
        assertThat(log.commit(CLICKS.name(), "g", first.token(), 1)).isEqualTo(new Leases.OffsetRegressed(2));
        // Also for the next holder: the committed offset belongs to the group, not to the lease.
        log.release(CLICKS.name(), "g", first.token());
        Leases.Granted second = grant(log.lease(CLICKS.name(), "g", "w2", TTL));
        assertThat(log.commit(CLICKS.name(), "g", second.token(), 0)).isEqualTo(new Leases.OffsetRegressed(2));
        assertThat(committedOffset(log, CLICKS, "g")).isEqualTo(2);
    }

    @Test
    void aCommitPastTheHeadIsRefused() throws Exception {
        StreamLog log = open();
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1)).isEqualTo(new Leases.BeyondHead(0));
        append(log, CLICKS, keyless("a"), keyless("b"));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 3)).isEqualTo(new Leases.BeyondHead(2));
        // Quarantined entries do not move the head a group commits against.
        append(log, CLICKS, quarantined("bad"));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 3)).isEqualTo(new Leases.BeyondHead(2));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 2)).isEqualTo(new Leases.Committed(2));
        // The head, not the earliest stored offset, is the bound: trimming does not refuse a commit.
        log.trim(CLICKS.name(), 2);
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 2)).isEqualTo(new Leases.Committed(2));
    }

    @Test
    void aRefusedCommitChangesNothing() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"), keyless("c"));
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL));
        log.commit(CLICKS.name(), "g", first.token(), 2);
        Leases.Group before = log.groups(CLICKS.name()).get(0);

        assertThat(log.commit(CLICKS.name(), "g", first.token() + 7, 3)).isInstanceOf(Leases.StaleToken.class);
        assertThat(log.commit(CLICKS.name(), "g", first.token(), 1)).isInstanceOf(Leases.OffsetRegressed.class);
        assertThat(log.commit(CLICKS.name(), "g", first.token(), 4)).isInstanceOf(Leases.BeyondHead.class);
        assertThat(log.groups(CLICKS.name())).containsExactly(before);

        clock.advance(TTL.plusSeconds(1));
        assertThat(log.commit(CLICKS.name(), "g", first.token(), 3)).isInstanceOf(Leases.LeaseExpired.class);
        assertThat(committedOffset(log, CLICKS, "g")).isEqualTo(2);
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
                    checkSnapshot(log, sizes, readerViolations);
                    snapshots.incrementAndGet();
                    Thread.sleep(2);
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
    void simultaneousLeaseRequestsGrantExactlyOne() throws Exception {
        StreamLog log = open();
        int threads = 8;
        int rounds = 10;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < rounds; round++) {
                String group = "race-" + round;
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Leases.LeaseResult>> answers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    String owner = "w" + t;
                    answers.add(pool.submit(() -> {
                        start.await();
                        return log.lease(CLICKS.name(), group, owner, TTL);
                    }));
                }
                List<Leases.Granted> granted = new ArrayList<>();
                List<Leases.Held> held = new ArrayList<>();
                for (Future<Leases.LeaseResult> answer : answers) {
                    Leases.LeaseResult result = answer.get(OPERATION_SECONDS, TimeUnit.SECONDS);
                    if (result instanceof Leases.Granted g) {
                        granted.add(g);
                    } else {
                        held.add((Leases.Held) result);
                    }
                }
                assertThat(granted).as("grants in round %d", round).hasSize(1);
                Leases.Group state = log.groups(CLICKS.name()).stream()
                        .filter(candidate -> candidate.group().equals(group)).findFirst().orElseThrow();
                assertThat(state.token()).isEqualTo(granted.get(0).token());
                assertThat(held).hasSize(threads - 1)
                        .allSatisfy(h -> assertThat(h).isEqualTo(new Leases.Held(state.holder(), state.expiresAtMicros())));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void competingLeasersHoldTheLeaseOneAtATimeWithIncreasingTokensAndFencedCommits() throws Exception {
        StreamLog log = open();
        int threads = 8;
        int takeoversWanted = 100;
        int commitsPerHolder = 3;
        List<AppendRequest.Entry> entries = new ArrayList<>();
        for (int i = 0; i < takeoversWanted * commitsPerHolder + 50; i++) {
            entries.add(keyless("e" + i));
        }
        append(log, request(CLICKS, entries.toArray(AppendRequest.Entry[]::new)));

        AtomicInteger inside = new AtomicInteger();
        AtomicInteger takeovers = new AtomicInteger();
        AtomicLong lastToken = new AtomicLong();
        AtomicLong lastCommitted = new AtomicLong();
        Set<String> holders = ConcurrentHashMap.newKeySet();
        Violations violations = new Violations();
        ConcurrentLinkedQueue<long[]> commits = new ConcurrentLinkedQueue<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(12);

        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String owner = "w" + t;
                workers.add(pool.submit(() -> {
                    start.await();
                    while (takeovers.get() < takeoversWanted && System.nanoTime() < deadline) {
                        Leases.LeaseResult result = log.lease(CLICKS.name(), "g", owner, TTL);
                        if (result instanceof Leases.Held held) {
                            if (held.holder().equals(owner)) {
                                violations.add(owner + " was told it is held by itself");
                            }
                            Thread.sleep(1);
                            continue;
                        }
                        Leases.Granted granted = (Leases.Granted) result;
                        // ---- critical section: only the holder is here, and only the holder moves the clock.
                        if (inside.incrementAndGet() != 1) {
                            violations.add("two holders at once, " + owner + " with token " + granted.token());
                        }
                        takeovers.incrementAndGet();
                        holders.add(owner);
                        long previousToken = lastToken.getAndSet(granted.token());
                        if (granted.token() <= previousToken) {
                            violations.add("token " + granted.token() + " after " + previousToken);
                        }
                        if (granted.committedOffset() != lastCommitted.get()) {
                            violations.add("granted with committed offset " + granted.committedOffset()
                                    + " but " + lastCommitted.get() + " was committed");
                        }
                        long next = granted.committedOffset();
                        for (int c = 0; c < commitsPerHolder; c++) {
                            next++;
                            Leases.CommitResult commit = log.commit(CLICKS.name(), "g", granted.token(), next);
                            if (commit instanceof Leases.Committed) {
                                commits.add(new long[] {granted.token(), next});
                                lastCommitted.set(next);
                            } else {
                                violations.add("the holder's commit was refused: " + commit);
                            }
                            if (c == 0) {
                                Leases.LeaseResult renewed = log.lease(CLICKS.name(), "g", owner, TTL);
                                if (!(renewed instanceof Leases.Granted g) || g.token() != granted.token()) {
                                    violations.add("renewal answered " + renewed + " to token " + granted.token());
                                }
                            }
                        }
                        boolean abandon = ThreadLocalRandom.current().nextBoolean();
                        inside.decrementAndGet();
                        // ---- leaving: by expiry (a crashed consumer) or by release. Nobody else can be granted
                        // before the clock moves past the expiry or the release lands.
                        if (abandon) {
                            clock.advance(TTL.multipliedBy(2));
                        } else if (!log.release(CLICKS.name(), "g", granted.token())) {
                            violations.add("the holder could not release token " + granted.token());
                        }
                        // A zombie: the old holder commits again with its token; it must be fenced off.
                        Leases.CommitResult zombie = log.commit(CLICKS.name(), "g", granted.token(), next + 1);
                        if (zombie instanceof Leases.Committed) {
                            commits.add(new long[] {granted.token(), next + 1});
                            violations.add("a zombie commit with token " + granted.token() + " succeeded");
                        }
                        Thread.sleep(ThreadLocalRandom.current().nextInt(2));
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

        assertThat(violations.all()).isEmpty();
        assertThat(takeovers.get()).isGreaterThanOrEqualTo(10);
        assertThat(holders).hasSizeGreaterThan(1);
        // In commit order (the committed offset only moves forward) tokens never go back.
        List<long[]> ordered = new ArrayList<>(commits);
        ordered.sort((a, b) -> Long.compare(a[1], b[1]));
        for (int i = 1; i < ordered.size(); i++) {
            assertThat(ordered.get(i)[1]).as("offsets committed twice").isGreaterThan(ordered.get(i - 1)[1]);
            assertThat(ordered.get(i)[0]).as("token order at offset %d", ordered.get(i)[1])
                    .isGreaterThanOrEqualTo(ordered.get(i - 1)[0]);
        }
        Leases.Group group = log.groups(CLICKS.name()).get(0);
        assertThat(group.committedOffset()).isEqualTo(lastCommitted.get()).isEqualTo(ordered.get(ordered.size() - 1)[1]);
        assertThat(group.token()).isEqualTo(lastToken.get());
    }

    // ================================================================== publish records

    @Test
    void everyCommittedRequestHasAPublishRecordWithItsCountsOffsetsAndDuplicatesOriginals() throws Exception {
        StreamLog log = open();
        AppendRequest first = request(ORDERS, event("a"), event("b"), quarantined("bad"));
        append(log, first);
        clock.advance(Duration.ofSeconds(1));
        AppendRequest retry = request(ORDERS, event("b"), event("c"), event("a"));
        AppendResult.Committed committed = append(log, retry);
        append(log, CLICKS, keyless("x"));

        PublishRecord.Page all = log.publishes(new PublishRecord.Filter(null, null, null, null, 10));
        assertThat(all.total()).isEqualTo(3);
        assertThat(all.records()).extracting(PublishRecord::stream).as("newest first")
                .containsExactly(CLICKS.name(), ORDERS.name(), ORDERS.name());

        PublishRecord original = only(log.publishes(new PublishRecord.Filter(null, first.requestId(), null, null,
                10)));
        assertThat(original.stream()).isEqualTo(ORDERS.name());
        assertThat(List.of(original.accepted(), original.deduplicated(), original.quarantined()))
                .containsExactly(2L, 0L, 1L);
        assertThat(List.of(original.firstOffset(), original.lastOffset())).containsExactly(1L, 2L);
        assertThat(List.of(original.firstSeq(), original.lastSeq())).containsExactly(1L, 1L);
        assertThat(original.duplicateOffsets()).isEmpty();
        assertThat(original.receivedAtMicros()).isEqualTo(first.receivedAtMicros());

        PublishRecord second = only(log.publishes(new PublishRecord.Filter(ORDERS.name(), retry.requestId(), null,
                null, 10)));
        assertThat(List.of(second.accepted(), second.deduplicated())).containsExactly(1L, 2L);
        assertThat(List.of(second.firstOffset(), second.lastOffset())).containsExactly(3L, 3L);
        assertThat(second.duplicateOffsets()).as("the offsets that first carried the keys").containsExactly(1L, 2L);
        assertThat(second.committedAtMicros()).isEqualTo(committed.committedAtMicros());

        // Exact filters and a half-open time window on arrival.
        assertThat(log.publishes(new PublishRecord.Filter(ORDERS.name(), null, null, null, 10)).total())
                .isEqualTo(2);
        assertThat(log.publishes(new PublishRecord.Filter(null, null, retry.receivedAtMicros(), null, 10)).total())
                .isEqualTo(2);
        assertThat(log.publishes(new PublishRecord.Filter(null, null, null, retry.receivedAtMicros(), 10)).total())
                .isEqualTo(1);
        PublishRecord.Page limited = log.publishes(new PublishRecord.Filter(null, null, null, null, 1));
        assertThat(limited.records()).hasSize(1);
        assertThat(limited.total()).isEqualTo(3);

        assertThat(log.trimPublishes(retry.receivedAtMicros())).as("records received before").isEqualTo(1);
        assertThat(log.publishes(new PublishRecord.Filter(null, first.requestId(), null, null, 10)).total())
                .isZero();
        assertThat(reopen(log).publishes(new PublishRecord.Filter(null, null, null, null, 10)).total())
                .as("durable").isEqualTo(2);
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

    private static PublishRecord only(PublishRecord.Page page) {
        assertThat(page.records()).hasSize(1);
        assertThat(page.total()).isEqualTo(1);
        return page.records().get(0);
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

    // ================================================================== helpers for subclasses and tests

    /** Opens a log on {@link #dataDirectory} with room for every test and registers the suite's streams. */
    protected final StreamLog open() {
        return open(ROOMY);
    }

    /** Opens a log on {@link #dataDirectory} with {@code settings} and registers the suite's streams. */
    protected final StreamLog open(LogSettings settings) {
        StreamLog log = openLog(dataDirectory, settings, watermarks, clock);
        opened.add(log);
        settingsOf.put(log, settings);
        log.register(ORDERS);
        log.register(CLICKS);
        log.register(LEDGER);
        return log;
    }

    /** Closes {@code log} now (the suite does not close it again). */
    protected final void close(StreamLog log) {
        opened.remove(log);
        settingsOf.remove(log);
        log.close();
    }

    /** Closes {@code log} and opens the same directory again with the same settings. */
    protected final StreamLog reopen(StreamLog log) {
        return reopen(log, settingsOf.get(log));
    }

    /** Closes {@code log} and opens the same directory again with {@code settings}. */
    protected final StreamLog reopen(StreamLog log, LogSettings settings) {
        close(log);
        return open(settings);
    }

    /** A valid event of a keyed stream whose key is {@code key}. */
    protected static AppendRequest.Event event(String key) {
        return new AppendRequest.Event(payloadText(key).getBytes(StandardCharsets.UTF_8), key);
    }

    /** A valid event without an idempotency key. */
    protected static AppendRequest.Event keyless(String id) {
        return new AppendRequest.Event(payloadText(id).getBytes(StandardCharsets.UTF_8), null);
    }

    /** An invalid event for the quarantine. */
    protected static AppendRequest.Quarantined quarantined(String id) {
        return new AppendRequest.Quarantined(("{\"id\":" + id.length() + ",\"note\":\"" + id + "\"}")
                .getBytes(StandardCharsets.UTF_8), List.of(new FieldError("id", "is not a string")));
    }

    /** A request of {@code stream} with a fresh request id, arriving now by {@link #clock}. */
    protected final AppendRequest request(StreamDescriptor stream, AppendRequest.Entry... entries) {
        return new AppendRequest(stream.name(), "req-" + requestIds.incrementAndGet(), clock.micros(),
                stream.schemaVersion(), List.of(entries));
    }

    protected final AppendResult.Committed append(StreamLog log, StreamDescriptor stream,
            AppendRequest.Entry... entries) throws Exception {
        return append(log, request(stream, entries));
    }

    protected static AppendResult.Committed append(StreamLog log, AppendRequest request) throws Exception {
        AppendResult result = await(log.append(request));
        if (result instanceof AppendResult.Committed committed) {
            return committed;
        }
        return fail("expected " + request.requestId() + " to be committed, got " + result);
    }

    protected static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(OPERATION_SECONDS, TimeUnit.SECONDS);
    }

    private static List<Long> offsets(AppendResult.Committed committed) {
        return committed.entries().stream().map(EntryResult::offset).toList();
    }

    private static StreamHead head(StreamLog log, StreamDescriptor stream) {
        StreamHead head = log.heads().get(stream.name());
        assertThat(head).as("head of %s", stream.name()).isNotNull();
        return head;
    }

    private static long committedOffset(StreamLog log, StreamDescriptor stream, String group) {
        return log.groups(stream.name()).stream().filter(candidate -> candidate.group().equals(group))
                .mapToLong(Leases.Group::committedOffset).findFirst().orElse(0);
    }

    private static Leases.Granted grant(Leases.LeaseResult result) {
        assertThat(result).isInstanceOf(Leases.Granted.class);
        return (Leases.Granted) result;
    }

    private static CompletableFuture<List<LogEntry>> poll(StreamLog log, StreamDescriptor stream, long after,
            Duration wait) {
        CompletableFuture<List<LogEntry>> result = new CompletableFuture<>();
        Thread poller = new Thread(() -> {
            try {
                result.complete(log.read(stream.name(), after, 100, wait));
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, "contract-long-poll");
        poller.setDaemon(true);
        poller.start();
        return result;
    }

    /** One read of everything: a dense prefix from offset 1 in which every request appears whole. */
    private static void checkSnapshot(StreamLog log, Map<String, Integer> sizes, List<String> violations)
            throws InterruptedException {
        List<LogEntry> snapshot = log.read(ORDERS.name(), 0, 100_000, Duration.ZERO);
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < snapshot.size(); i++) {
            LogEntry entry = snapshot.get(i);
            if (entry.offset() != i + 1) {
                violations.add("a read saw offset " + entry.offset() + " at position " + (i + 1));
                return;
            }
            seen.merge(entry.requestId(), 1, Integer::sum);
        }
        seen.forEach((requestId, count) -> {
            Integer size = sizes.get(requestId);
            if (size == null || size.intValue() != count) {
                violations.add("a read saw " + count + " of the " + size + " entries of " + requestId);
            }
        });
    }

    private static String payloadText(String id) {
        return "{\"id\":\"" + id + "\"}";
    }

    private static String text(byte[] payload) {
        return new String(payload, StandardCharsets.UTF_8);
    }

    private static StreamDescriptor descriptor(String name, String key, long retentionMillis) {
        StreamDescriptor.Builder builder = StreamDescriptor.builder(name)
                .column(Column.of("id", ColumnType.STRING, true))
                .schemaVersion("v1-" + name)
                .declaredBy("dev.interlace.runtime.log.tck.StreamLogContract")
                .decoder(parser -> {
                    throw new UnsupportedOperationException("a log never decodes");
                });
        if (key != null) {
            builder.idempotencyKey(key);
        }
        if (retentionMillis > 0) {
            builder.retention(retentionMillis / 60_000 + "m", retentionMillis);
        }
        return builder.build();
    }

    /** Violations seen on worker threads, reported together by the test thread. */
    private static final class Violations {
        private final ConcurrentLinkedQueue<String> items = new ConcurrentLinkedQueue<>();

        void add(String violation) {
            items.add(violation);
        }

        List<String> all() {
            return List.copyOf(items);
        }
    }

    /** Materialised positions a test sets by hand; 0 for every stream until then. */
    protected static final class MutableWatermarks implements Watermarks {
        private final Map<String, long[]> positions = new ConcurrentHashMap<>();

        public void set(String stream, long events, long quarantine) {
            positions.put(stream, new long[] {events, quarantine});
        }

        @Override
        public long events(String stream) {
            return positions.getOrDefault(stream, new long[2])[0];
        }

        @Override
        public long quarantine(String stream) {
            return positions.getOrDefault(stream, new long[2])[1];
        }
    }

    /** A clock that stands still until a test advances it; safe to read and advance from any thread. */
    protected static final class ManualClock extends Clock {
        private volatile Instant now;

        public ManualClock(Instant start) {
            this.now = start;
        }

        public synchronized void advance(Duration duration) {
            now = now.plus(duration);
        }

        /** Now, in epoch microseconds. */
        public long micros() {
            Instant instant = now;
            return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
