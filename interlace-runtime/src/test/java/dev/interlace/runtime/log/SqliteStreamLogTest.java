package dev.interlace.runtime.log;

import static dev.interlace.runtime.log.Leases.Actor.SERVER;
import static dev.interlace.runtime.log.OrdersFixture.NOTHING_MATERIALISED;
import static dev.interlace.runtime.log.OrdersFixture.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.stream.FieldError;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SQLite log on its own: offsets, the exact deduplication window, group commit, backpressure, trim. */
class SqliteStreamLogTest {

    @TempDir
    Path dataDirectory;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-29T08:00:00Z"));
    private final List<SqliteStreamLog> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(SqliteStreamLog::close);
    }

    private SqliteStreamLog open(LogSettings settings, Watermarks watermarks, CommitListener listener) {
        SqliteStreamLog log = new SqliteStreamLog(dataDirectory, settings, watermarks, listener, clock);
        log.register(ORDERS);
        opened.add(log);
        return log;
    }

    private SqliteStreamLog open() {
        return open(LogSettings.defaults(1_000_000), NOTHING_MATERIALISED, CommitListener.NONE);
    }

    private AppendResult.Committed append(SqliteStreamLog log, String... keys) throws Exception {
        return (AppendResult.Committed) log.append(request(keys)).get();
    }

    private AppendRequest request(String... keys) {
        return OrdersFixture.request(clock.instant().getEpochSecond() * 1_000_000L, keys);
    }

    @Test
    void publishRecordsAreFoundByRequestIdWhetherTheBatchedIndexHasCaughtUpOrNot() throws Exception {
        SqliteStreamLog log = open(LogSettings.defaults(1_000_000).withPublishIndexMillis(1_000), NOTHING_MATERIALISED,
                CommitListener.NONE);
        append(log, "a");
        // The next group commit brings the request-id index up to date, itself included.
        clock.advance(Duration.ofMillis(1_000));
        append(log, "b");
        append(log, "c"); // written before the index is due again: found by scanning the few records past it
        for (String request : List.of("req-a", "req-b", "req-c")) {
            PublishRecord.Page page = log.publishes(new PublishRecord.Filter(null, request, null, null, 10));
            assertThat(page.total()).as(request).isEqualTo(1);
            assertThat(page.records().get(0).requestId()).isEqualTo(request);
        }
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:"
                + dataDirectory.resolve("log.sqlite"));
                java.sql.ResultSet row = c.createStatement().executeQuery("SELECT count(*),"
                        + " (SELECT indexed_through FROM publish_index) FROM publish_ids")) {
            row.next();
            assertThat(row.getLong(1)).as("indexed records").isEqualTo(2);
            assertThat(row.getLong(2)).as("indexed through publish id").isEqualTo(2);
        }
    }

    @Test
    void aTrimOfMoreRecordsThanOneTransactionTakesRemovesEveryOldRecordAndItsIndexEntryAndKeepsTheYoungerOnes()
            throws Exception {
        SqliteStreamLog log = open();
        int old = 2 * PublishIndex.TRIM_BATCH + 5;
        ExecutorService clients = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> appends = new ArrayList<>();
            for (int i = 0; i < old; i++) {
                String key = "old-" + i;
                appends.add(clients.submit(() -> log.append(request(key)).get()));
            }
            for (Future<?> append : appends) {
                append.get();
            }
        } finally {
            clients.shutdown();
        }
        clock.advance(Duration.ofHours(1));
        append(log, "young-1");
        append(log, "young-2");
        long cutoff = clock.instant().minus(Duration.ofMinutes(30)).getEpochSecond() * 1_000_000L;

        assertThat(log.trimPublishes(cutoff)).as("removed, over several transactions").isEqualTo(old);
        assertThat(log.trimPublishes(cutoff)).as("nothing older is left").isZero();
        PublishRecord.Page kept = log.publishes(new PublishRecord.Filter(null, null, null, null, 10));
        assertThat(kept.records()).extracting(PublishRecord::requestId).containsExactly("req-young-2", "req-young-1");
        assertThat(log.publishes(new PublishRecord.Filter(null, "req-old-7", null, null, 10)).total()).isZero();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:"
                + dataDirectory.resolve("log.sqlite"));
                java.sql.ResultSet row = c.createStatement().executeQuery("SELECT count(*) FROM publish_ids")) {
            row.next();
            assertThat(row.getLong(1)).as("request-id index entries left: the young records' at most").isLessThan(3);
        }
    }

    @Test
    void offsetsStartAtOneAndAreDense() throws Exception {
        SqliteStreamLog log = open();
        assertThat(append(log, "a", "b").entries()).extracting(AppendResult.EntryResult::offset).containsExactly(1L, 2L);
        assertThat(append(log, "c").entries().get(0).offset()).isEqualTo(3);
        assertThat(log.heads().get("orders").head()).isEqualTo(3);
        assertThat(log.read("orders", 1, 10, Duration.ZERO)).extracting(LogEntry::offset).containsExactly(2L, 3L);
        assertThat(log.latest("orders", 2)).extracting(LogEntry::offset).containsExactly(3L, 2L);
    }

    @Test
    void aKeyDeduplicatesExactlyWhileItsFirstAcceptanceIsYoungerThanTheRetention() throws Exception {
        SqliteStreamLog log = open();
        append(log, "k");
        clock.advance(Duration.ofMinutes(59));
        AppendResult.EntryResult withinWindow = append(log, "k").entries().get(0);
        assertThat(withinWindow.status()).isEqualTo(AppendResult.Status.DUPLICATE);
        assertThat(withinWindow.offset()).isEqualTo(1);
        clock.advance(Duration.ofMinutes(2));
        AppendResult.EntryResult afterWindow = append(log, "k").entries().get(0);
        assertThat(afterWindow.status()).isEqualTo(AppendResult.Status.ACCEPTED);
        assertThat(afterWindow.offset()).isEqualTo(2);
        clock.advance(Duration.ofMinutes(30));
        assertThat(append(log, "k").entries().get(0).offset()).isEqualTo(2);
    }

    @Test
    void aKeyExactlyAsOldAsTheRetentionNoLongerDeduplicates() throws Exception {
        SqliteStreamLog log = open();
        append(log, "edge");
        clock.advance(Duration.ofHours(1));
        assertThat(append(log, "edge").entries().get(0).status()).isEqualTo(AppendResult.Status.ACCEPTED);
    }

    @Test
    void anAppendToAnUnregisteredStreamFailsAloneWithoutFailingItsGroup() throws Exception {
        SqliteStreamLog log = open();
        AppendRequest unknown = new AppendRequest("nope", "r", 0, "v1", List.of());
        assertThat(log.append(unknown)).failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(IllegalArgumentException.class);
        assertThat(append(log, "fine").entries().get(0).offset()).isEqualTo(1);
    }

    @Test
    void theDeduplicationWindowIsRebuiltFromDiskOnRestart() throws Exception {
        SqliteStreamLog first = open();
        append(first, "old");
        clock.advance(Duration.ofMinutes(50));
        append(first, "young");
        first.close();
        opened.remove(first);

        clock.advance(Duration.ofMinutes(20));
        SqliteStreamLog second = open();
        AppendResult.Committed result = append(second, "old", "young");
        assertThat(result.entries().get(0).status()).isEqualTo(AppendResult.Status.ACCEPTED);
        assertThat(result.entries().get(0).offset()).isEqualTo(3);
        assertThat(result.entries().get(1).status()).isEqualTo(AppendResult.Status.DUPLICATE);
        assertThat(result.entries().get(1).offset()).isEqualTo(2);
    }

    @Test
    void keysWrittenBeforeKeyBlocksExistedAndKeysInBlocksBothDeduplicateAfterARestart() throws Exception {
        SqliteStreamLog first = open();
        append(first, "legacy-1", "legacy-2");
        first.close();
        opened.remove(first);
        // As a log written by a version without key blocks: its keys are only on the event rows.
        try (java.sql.Connection db = java.sql.DriverManager.getConnection(
                "jdbc:sqlite:" + dataDirectory.resolve("log.sqlite"));
                java.sql.Statement statement = db.createStatement()) {
            statement.execute("DELETE FROM key_blocks");
            statement.execute("DELETE FROM key_blocks_from");
        }
        SqliteStreamLog second = open();
        append(second, "blocked");
        second.close();
        opened.remove(second);

        SqliteStreamLog third = open();
        AppendResult.Committed result = append(third, "legacy-2", "blocked", "new");
        assertThat(result.entries()).extracting(AppendResult.EntryResult::status).containsExactly(
                AppendResult.Status.DUPLICATE, AppendResult.Status.DUPLICATE, AppendResult.Status.ACCEPTED);
        assertThat(result.entries()).extracting(AppendResult.EntryResult::offset).containsExactly(2L, 3L, 4L);
    }

    @Test
    void concurrentAppendsShareCommitsAndGetUniqueDenseOffsets() throws Exception {
        AtomicInteger commits = new AtomicInteger();
        SqliteStreamLog log = open(LogSettings.defaults(1_000_000), NOTHING_MATERIALISED, new CommitListener() {
            @Override
            public void afterCommit(int requests, int entries) {
                commits.incrementAndGet();
            }
        });
        int requests = 400;
        ExecutorService clients = Executors.newFixedThreadPool(32);
        try {
            List<Future<AppendResult>> results = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                String key = "key-" + i;
                results.add(clients.submit(() -> log.append(request(key, key + "-b")).get()));
            }
            Set<Long> offsets = new HashSet<>();
            for (Future<AppendResult> result : results) {
                for (AppendResult.EntryResult entry : ((AppendResult.Committed) result.get()).entries()) {
                    assertThat(entry.status()).isEqualTo(AppendResult.Status.ACCEPTED);
                    assertThat(offsets.add(entry.offset())).isTrue();
                }
            }
            assertThat(offsets).hasSize(2 * requests);
            assertThat(offsets.stream().mapToLong(Long::longValue).max().orElseThrow()).isEqualTo(2L * requests);
            assertThat(commits.get()).isLessThan(requests);
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void aLoneAppendIsAnsweredOnTheWriterOnlyAfterItsCommit() throws Exception {
        CountDownLatch registered = new CountDownLatch(1);
        AtomicBoolean committed = new AtomicBoolean();
        SqliteStreamLog log = open(LogSettings.defaults(1_000_000), NOTHING_MATERIALISED, new CommitListener() {
            @Override
            public void beforeCommit(int requests, int entries) {
                awaitQuietly(registered); // the caller's stage below is in place before the append can complete
            }

            @Override
            public void afterCommit(int requests, int entries) {
                committed.set(true);
            }
        });
        CompletableFuture<String> answered = log.append(request("a"))
                .thenApply(result -> Thread.currentThread().getName() + " after commit: " + committed.get());
        registered.countDown();

        assertThat(answered.get()).isEqualTo("interlace-log-writer after commit: true");
    }

    @Test
    void aLoneAppendCommittedWhileAnEarlierGroupIsStillBeingAnsweredIsAnsweredAfterIt() throws Exception {
        CountDownLatch firstHeld = new CountDownLatch(1);
        CountDownLatch groupQueued = new CountDownLatch(1);
        AtomicInteger commits = new AtomicInteger();
        SqliteStreamLog log = open(LogSettings.defaults(1_000_000), NOTHING_MATERIALISED, new CommitListener() {
            @Override
            public void beforeCommit(int requests, int entries) {
                firstHeld.countDown();
                awaitQuietly(groupQueued); // holds the first commit until the group behind it is queued
            }

            @Override
            public void afterCommit(int requests, int entries) {
                commits.incrementAndGet();
            }
        });
        List<Long> answerOrder = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Void> first = log.append(request("first")).thenAccept(result -> record(answerOrder, result));
        firstHeld.await();
        List<CompletableFuture<Void>> group = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            group.add(log.append(request("group-" + i)).thenAccept(result -> {
                sleepQuietly(40); // a slow caller's stage: the group is still being answered when the last commits
                record(answerOrder, result);
            }));
        }
        groupQueued.countDown();
        Eventually.until("the group committed", Duration.ofSeconds(20), () -> commits.get() == 2);
        CompletableFuture<Void> last = log.append(request("last")).thenAccept(result -> record(answerOrder, result));
        CompletableFuture.allOf(first, CompletableFuture.allOf(group.toArray(CompletableFuture[]::new)), last).get();

        assertThat(answerOrder).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    }

    private static void record(List<Long> answerOrder, AppendResult result) {
        answerOrder.add(((AppendResult.Committed) result).entries().get(0).offset());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void everyRowOfAGroupLargerThanOneInsertStatementIsStoredWithItsOwnRequestPayloadAndKey() throws Exception {
        SqliteStreamLog log = open();
        // One request of 70 events (more than two statements' worth), some without a key, one key twice.
        List<AppendRequest.Entry> entries = new ArrayList<>();
        for (int i = 0; i < 70; i++) {
            String key = i == 40 ? "big-3" : i % 5 == 4 ? null : "big-" + i;
            entries.add(new AppendRequest.Event(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8), key));
        }
        AppendResult.Committed big = (AppendResult.Committed) log.append(new AppendRequest("orders", "req-big",
                clock.instant().getEpochSecond() * 1_000_000L, "v1", entries)).get();
        assertThat(big.count(AppendResult.Status.ACCEPTED)).isEqualTo(69);
        assertThat(big.entries().get(40)).isEqualTo(new AppendResult.EntryResult(AppendResult.Status.DUPLICATE, 4));
        // Then 100 concurrent single-event requests, which the writer groups.
        ExecutorService clients = Executors.newFixedThreadPool(16);
        try {
            List<Future<AppendResult>> singles = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                String key = "one-" + i;
                singles.add(clients.submit(() -> log.append(request(key)).get()));
            }
            for (Future<AppendResult> single : singles) {
                assertThat(single.get()).isInstanceOf(AppendResult.Committed.class);
            }
        } finally {
            clients.shutdownNow();
        }

        List<LogEntry> stored = log.read("orders", 0, 1_000, Duration.ZERO);
        assertThat(stored).extracting(LogEntry::offset)
                .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, 169).boxed().toList());
        for (int i = 0; i < 69; i++) {
            int n = i < 40 ? i : i + 1; // event 40 was the duplicate
            assertThat(new String(stored.get(i).payload(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":" + n + "}");
            assertThat(stored.get(i).requestId()).isEqualTo("req-big");
        }
        for (LogEntry single : stored.subList(69, 169)) {
            String key = single.requestId().substring("req-".length());
            assertThat(new String(single.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"" + key + "\"}");
            // Its key was stored with it: a retry is a duplicate of exactly this offset, also after a restart.
            assertThat(append(log, key).entries().get(0))
                    .isEqualTo(new AppendResult.EntryResult(AppendResult.Status.DUPLICATE, single.offset()));
        }
        PublishRecord record = log.publishes(new PublishRecord.Filter(null, "req-big", null, null, 10)).records()
                .get(0);
        assertThat(List.of(record.accepted(), record.deduplicated(), record.firstOffset(), record.lastOffset()))
                .containsExactly(69L, 1L, 1L, 69L);
        log.close();
        opened.remove(log);
        SqliteStreamLog reopened = open();
        assertThat(append(reopened, "big-68", "one-99").entries()).extracting(AppendResult.EntryResult::status)
                .containsOnly(AppendResult.Status.DUPLICATE);
        assertThat(append(reopened, "big-4").entries().get(0).status()).isEqualTo(AppendResult.Status.ACCEPTED);
    }

    @Test
    void anAppendThatWouldExceedTheBacklogIsRefusedWithoutWritingAnything() throws Exception {
        SqliteStreamLog log = open(LogSettings.defaults(3), NOTHING_MATERIALISED, CommitListener.NONE);
        append(log, "a", "b");
        AppendResult refused = log.append(request("c", "d")).get();
        assertThat(refused).isInstanceOf(Backpressure.class);
        assertThat(((Backpressure) refused).pending()).isEqualTo(2);
        assertThat(log.heads().get("orders").head()).isEqualTo(2);
        assertThat(append(log, "a", "c").entries()).extracting(AppendResult.EntryResult::status)
                .containsExactly(AppendResult.Status.DUPLICATE, AppendResult.Status.ACCEPTED);
    }

    @Test
    void quarantinedEntriesHaveTheirOwnSequenceAndCountAsPending() throws Exception {
        SqliteStreamLog log = open(LogSettings.defaults(2), NOTHING_MATERIALISED, CommitListener.NONE);
        AppendRequest mixed = new AppendRequest("orders", "r", 0, "v1", List.of(
                new AppendRequest.Event("{\"id\":\"a\"}".getBytes(StandardCharsets.UTF_8), "a"),
                new AppendRequest.Quarantined("{\"x\":1}".getBytes(StandardCharsets.UTF_8),
                        List.of(new FieldError("id", "is missing")))));
        AppendResult.Committed result = (AppendResult.Committed) log.append(mixed).get();
        assertThat(result.entries()).extracting(AppendResult.EntryResult::status)
                .containsExactly(AppendResult.Status.ACCEPTED, AppendResult.Status.QUARANTINED);
        assertThat(result.entries().get(1).offset()).isEqualTo(1);
        assertThat(log.heads().get("orders").quarantineHead()).isEqualTo(1);
        assertThat(log.append(request("b")).get()).isInstanceOf(Backpressure.class);
    }

    @Test
    void aTrimOfMoreEventsThanOneTransactionTakesRemovesThemAllAndTheirKeysStopDeduplicating() throws Exception {
        SqliteStreamLog log = open();
        int events = (int) LogWriter.TRIM_EVENTS_BATCH * 2 + 7;
        for (int first = 0; first < events; first += 1_000) {
            String[] keys = new String[Math.min(1_000, events - first)];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = "k" + (first + i + 1);
            }
            append(log, keys);
        }
        long through = events - 2;
        assertThat(log.trim("orders", through)).as("removed, over several transactions").isEqualTo(through);
        assertThat(log.heads().get("orders").earliest()).isEqualTo(through + 1);
        assertThat(log.read("orders", 0, 10, Duration.ZERO)).extracting(LogEntry::offset)
                .containsExactly(through + 1, through + 2);
        AppendResult.Committed again = append(log, "k1", "k" + through, "k" + (through + 1));
        assertThat(again.entries()).extracting(AppendResult.EntryResult::status).containsExactly(
                AppendResult.Status.ACCEPTED, AppendResult.Status.ACCEPTED, AppendResult.Status.DUPLICATE);
    }

    @Test
    void trimmingRemovesEventsMovesTheEarliestOffsetAndKeepsTheHead() throws Exception {
        SqliteStreamLog log = open();
        append(log, "a", "b", "c");
        assertThat(log.trim("orders", 2)).isEqualTo(2);
        assertThat(log.heads().get("orders").earliest()).isEqualTo(3);
        assertThat(log.read("orders", 0, 10, Duration.ZERO)).extracting(LogEntry::offset).containsExactly(3L);
        assertThat(log.trim("orders", 99)).isEqualTo(1);
        log.close();
        opened.remove(log);
        SqliteStreamLog reopened = open();
        assertThat(reopened.heads().get("orders").head()).isEqualTo(3);
        assertThat(append(reopened, "d").entries().get(0).offset()).isEqualTo(4);
    }

    @Test
    void aLongPollReturnsAsSoonAsAnEventArrives() throws Exception {
        SqliteStreamLog log = open();
        CompletableFuture<List<LogEntry>> poll = CompletableFuture.supplyAsync(() -> {
            try {
                return log.read("orders", 0, 10, Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(poll).failsWithin(Duration.ofMillis(100))
                .withThrowableOfType(java.util.concurrent.TimeoutException.class);
        append(log, "x");
        assertThat(poll.get()).extracting(LogEntry::offset).containsExactly(1L);
        assertThat(log.read("orders", 1, 10, Duration.ofMillis(50))).isEmpty();
    }

    @Test
    void aFailedGroupIsAnswered503AndTheNextWriteRecoversWithTheSameOffsets() throws Exception {
        AtomicInteger failuresLeft = new AtomicInteger(1);
        SqliteStreamLog log = open(LogSettings.defaults(1_000_000), NOTHING_MATERIALISED, new CommitListener() {
            @Override
            public void beforeCommit(int requests, int entries) {
                if (failuresLeft.getAndDecrement() > 0) {
                    throw new IllegalStateException("simulated I/O error");
                }
            }
        });
        assertThat(log.append(request("a")))
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(LogUnavailableException.class);
        assertThat(log.health().writable()).isFalse();
        assertThat(log.heads().get("orders").head()).isZero();
        AppendResult.Committed retried = append(log, "a");
        assertThat(retried.entries().get(0).status()).isEqualTo(AppendResult.Status.ACCEPTED);
        assertThat(retried.entries().get(0).offset()).isEqualTo(1);
        assertThat(log.health().writable()).isTrue();
        assertThat(append(log, "a").entries().get(0).status()).isEqualTo(AppendResult.Status.DUPLICATE);
    }

    @Test
    void aGroupThatReadsBeforeItWritesWaitsForACheckpointHoldingTheWriteLockInsteadOfFailing() throws Exception {
        SqliteStreamLog log = open();
        append(log, "a");
        String url = "jdbc:sqlite:" + dataDirectory.resolve("log.sqlite");
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (java.sql.Connection reader = java.sql.DriverManager.getConnection(url);
                java.sql.Connection checkpointer = java.sql.DriverManager.getConnection(url + "?busy_timeout=20000")) {
            // A reader holds a snapshot of the WAL, so a RESTART checkpoint takes the write lock and waits for it
            // (what the log's own checkpointer does once the WAL passes its cap while the flusher reads).
            reader.setAutoCommit(false);
            try (java.sql.ResultSet row = reader.createStatement().executeQuery("SELECT count(*) FROM events")) {
                row.next();
            }
            Future<?> restart = executor.submit(() -> {
                try (java.sql.Statement statement = checkpointer.createStatement()) {
                    statement.execute("PRAGMA wal_checkpoint(RESTART)");
                }
                return null;
            });
            Eventually.until("the checkpoint holds the write lock", Duration.ofSeconds(20),
                    () -> writeLockTaken(url));
            // A retry of "a" makes the group read its candidate row before it writes "b".
            CompletableFuture<AppendResult> retryAndNew = log.append(request("a", "b"));
            Thread.sleep(500);
            reader.commit(); // the checkpoint finishes and lets writers in again
            restart.get(20, java.util.concurrent.TimeUnit.SECONDS);
            AppendResult.Committed committed = (AppendResult.Committed) retryAndNew.get(20,
                    java.util.concurrent.TimeUnit.SECONDS);
            assertThat(committed.entries()).extracting(AppendResult.EntryResult::status)
                    .containsExactly(AppendResult.Status.DUPLICATE, AppendResult.Status.ACCEPTED);
            assertThat(committed.entries()).extracting(AppendResult.EntryResult::offset).containsExactly(1L, 2L);
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void underContinuousAppendsTheWalStartsOverLongBeforeItsCapWithoutHoldingWritesUp() throws Exception {
        SqliteStreamLog log = open();
        Path wal = dataDirectory.resolve("log.sqlite-wal");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        ExecutorService appenders = Executors.newFixedThreadPool(2);
        AtomicInteger batches = new AtomicInteger();
        try {
            // Two appenders keep the writer busy: a background checkpoint never finds the WAL fully copied, so only
            // the writer's own checkpoint between two groups lets a commit start the WAL over.
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                running.add(appenders.submit(() -> {
                    while (walStarts(wal) < 3 && System.nanoTime() < deadline) {
                        String[] keys = new String[200];
                        int batch = batches.incrementAndGet();
                        for (int i = 0; i < keys.length; i++) {
                            keys[i] = "k" + batch + "-" + i;
                        }
                        append(log, keys);
                    }
                    return null;
                }));
            }
            for (Future<?> appender : running) {
                appender.get(90, java.util.concurrent.TimeUnit.SECONDS);
            }
        } finally {
            appenders.shutdownNow();
        }
        assertThat(walStarts(wal)).as("times the WAL started over (its checkpoint sequence number)")
                .isGreaterThanOrEqualTo(3);
        // The WAL file keeps the largest size it reached: the restart threshold and what a checkpoint's interval adds
        // at this pace, far below the cap that a RESTART (holding the writes up) would have waited for.
        assertThat(java.nio.file.Files.size(wal)).isLessThan(LogSettings.defaults(1).walCapBytes() / 2);
        assertThat(log.heads().get("orders").head()).as("every appended event").isEqualTo(200L * batches.get());
    }

    @Test
    void aPragmaOrATrimAskedOfAClosedLogFailsInsteadOfWaitingForever() {
        SqliteStreamLog log = open();
        log.close();
        assertThat(CompletableFuture.supplyAsync(() -> log.writerPragma("journal_mode")))
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(LogUnavailableException.class);
        assertThat(CompletableFuture.supplyAsync(() -> log.trim("orders", 1)))
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(LogUnavailableException.class);
    }

    /** The WAL header's checkpoint sequence number: how many times the WAL started over since it was created. */
    private static long walStarts(Path wal) throws java.io.IOException {
        if (!java.nio.file.Files.exists(wal)) {
            return 0;
        }
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(wal)) {
            java.nio.ByteBuffer header = java.nio.ByteBuffer.allocate(16);
            channel.read(header, 0);
            return header.position() < 16 ? 0 : Integer.toUnsignedLong(header.getInt(12));
        }
    }

    /** Whether another connection holds the write lock: a write transaction without a busy timeout is refused. */
    private static boolean writeLockTaken(String url) throws java.sql.SQLException {
        try (java.sql.Connection probe = java.sql.DriverManager.getConnection(url + "?busy_timeout=0");
                java.sql.Statement statement = probe.createStatement()) {
            statement.execute("BEGIN IMMEDIATE");
            statement.execute("ROLLBACK");
            return false;
        } catch (java.sql.SQLException e) {
            if (e.getMessage() != null && e.getMessage().contains("SQLITE_BUSY")) {
                return true;
            }
            throw e;
        }
    }

    @Test
    void aPublishRecordWrittenJustBeforeAStopIsFoundAfterTheRestart() throws Exception {
        SqliteStreamLog log = open();
        // Right after opening: the record rides on its event row, not copied into publishes before the stop.
        append(log, "a");
        log.close();

        SqliteStreamLog reopened = open();
        PublishRecord.Page found = reopened.publishes(new PublishRecord.Filter(null, "req-a", null, null, 10));
        assertThat(found.total()).isEqualTo(1);
        assertThat(found.records().get(0).lastOffset()).isEqualTo(1);
    }

    @Test
    void publishRecordsCopiedByTheRunningLogEqualThoseCopiedFromTheEventRowsWhenTheLogOpens() throws Exception {
        // The same requests at the same times, written to two logs: the first copies its publish records into
        // publishes while it runs (from the writer's memory); the second stops before any copy and copies them from
        // its event rows when it opens again. Both must hold the same records, column for column.
        // Both logs see the same clock; only the first is due to copy when the clock has moved on.
        Path running = dataDirectory.resolve("running");
        Path reopened = dataDirectory.resolve("reopened");
        SqliteStreamLog second = new SqliteStreamLog(reopened,
                LogSettings.defaults(1_000_000).withPublishIndexMillis(Duration.ofHours(1).toMillis()), NOTHING_MATERIALISED,
                CommitListener.NONE, clock);
        SqliteStreamLog first = new SqliteStreamLog(running, LogSettings.defaults(1_000_000), NOTHING_MATERIALISED,
                CommitListener.NONE, clock);
        long micros = clock.instant().getEpochSecond() * 1_000_000L;
        AppendRequest last = new AppendRequest("orders", "req-last", micros, "v1",
                List.of(new AppendRequest.Event(bytes("{\"id\":\"z\"}"), "z")));
        second.register(ORDERS);
        first.register(ORDERS);
        writeVariedPublishes(second);
        writeVariedPublishes(first);
        // The next group commit of the first log copies every record, its own included.
        clock.advance(Duration.ofMillis(LogSettings.PUBLISH_INDEX_MILLIS));
        second.append(last).get();
        first.append(last).get();
        second.close();
        first.close();
        new SqliteStreamLog(reopened, LogSettings.defaults(1_000_000), NOTHING_MATERIALISED, CommitListener.NONE, clock)
                .close();

        List<List<Object>> copiedRunning = publishRows(running);
        assertThat(publishRows(reopened)).isEqualTo(copiedRunning);
        assertThat(copiedRunning).as("one record per request, the one without accepted events included").hasSize(6);
        assertThat(copiedRunning).as("records with duplicates, quarantined events and an API key")
                .anySatisfy(row -> assertThat(row.get(12)).isEqualTo("1"))
                .anySatisfy(row -> assertThat(row.get(10)).isEqualTo(1))
                .anySatisfy(row -> assertThat(row.get(13)).isEqualTo("key-1"));
    }

    @Test
    void publishRecordsWhoseCopyWasRolledBackAreCopiedByTheNextCopy() throws Exception {
        SqliteStreamLog log = open();
        append(log, "a");
        // A trim first copies the records riding on event rows (the rows may go); this one then fails (no such
        // stream) and rolls back, its copy of req-a with it.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> log.trim("no-such-stream", 1))
                .isInstanceOf(LogUnavailableException.class);
        // The next group commit copies what no committed copy holds yet.
        clock.advance(Duration.ofMillis(LogSettings.PUBLISH_INDEX_MILLIS));
        append(log, "b");
        log.close();

        assertThat(publishRows(dataDirectory)).extracting(row -> row.get(1)).containsExactly("req-a", "req-b");
    }

    private void writeVariedPublishes(SqliteStreamLog log) throws Exception {
        long micros = clock.instant().getEpochSecond() * 1_000_000L;
        List<FieldError> invalid = List.of(new FieldError("id", "is missing"));
        log.append(new AppendRequest("orders", "req-1", micros, "v1", List.of(
                new AppendRequest.Event(bytes("{\"id\":\"a\"}"), "a"),
                new AppendRequest.Event(bytes("{\"id\":\"b\"}"), "b")))).get();
        log.append(new AppendRequest("orders", "req-2", micros + 1, "v1", List.of(
                new AppendRequest.Event(bytes("{\"id\":\"a\"}"), "a"),
                new AppendRequest.Event(bytes("{\"id\":\"c\"}"), "c")), "key-1", "ingest.bot")).get();
        log.append(new AppendRequest("orders", "req-3", micros + 2, "v1", List.of(
                new AppendRequest.Quarantined(bytes("{}"), invalid),
                new AppendRequest.Event(bytes("{\"id\":\"d\"}"), "d")))).get();
        log.append(new AppendRequest("orders", "req-4", micros + 3, "v1", List.of(
                new AppendRequest.Event(bytes("{\"id\":\"b\"}"), "b")))).get();
        log.append(new AppendRequest("orders", "req-5", micros + 4, "v1", List.of(
                new AppendRequest.Event(bytes("{}"), null)))).get();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static List<List<Object>> publishRows(Path directory) throws Exception {
        List<List<Object>> rows = new ArrayList<>();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:"
                + directory.resolve("log.sqlite"));
                java.sql.ResultSet row = c.createStatement().executeQuery("SELECT id, request_id, stream_id,"
                        + " accepted, deduplicated, quarantined, first_offset, last_offset, received_at,"
                        + " committed_at, first_seq, last_seq, duplicate_offsets, key_id, key_name,"
                        + " (SELECT count(*) FROM publish_ids i WHERE i.publish_id = p.id"
                        + " AND i.request_id = p.request_id) FROM publishes p ORDER BY id")) {
            while (row.next()) {
                List<Object> values = new ArrayList<>();
                for (int column = 1; column <= 16; column++) {
                    values.add(row.getObject(column));
                }
                rows.add(values);
            }
        }
        return rows;
    }

    @Test
    void aReplayThatFailsAtItsCommitLeavesNeitherEventsNorMarksAndCanBeRepeated() throws Exception {
        AtomicInteger failuresLeft = new AtomicInteger(0);
        SqliteStreamLog log = open(LogSettings.defaults(1_000_000), NOTHING_MATERIALISED, new CommitListener() {
            @Override
            public void beforeCommit(int requests, int entries) {
                if (failuresLeft.getAndDecrement() > 0) {
                    throw new IllegalStateException("simulated crash between the append and the mark");
                }
            }
        });
        byte[] payload = "{\"id\":\"q\",\"extra\":1}".getBytes(StandardCharsets.UTF_8);
        long now = clock.instant().getEpochSecond() * 1_000_000L;
        log.append(new AppendRequest("orders", "req-q", now, "v1", List.of(new AppendRequest.Quarantined(payload,
                List.of(new dev.interlace.runtime.stream.FieldError("extra", "is not a declared column")))))).get();
        ReplayRequest replay = new ReplayRequest("orders", "replay-1", now, "v2",
                List.of(new ReplayRequest.Entry(1, new AppendRequest.Event(payload, "q"))), null, null, false);
        failuresLeft.set(1);

        assertThat(log.replay(replay)).failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(LogUnavailableException.class);
        assertThat(log.heads().get("orders").head()).isZero();
        assertThat(log.readQuarantine("orders", 0, 1).get(0).replay()).isNull();
        assertThat(log.publishes(new PublishRecord.Filter(null, "replay-1", null, null, 10)).total()).isZero();

        ReplayResult repeated = log.replay(replay).get();
        assertThat(((ReplayResult.Replayed) repeated).entries())
                .containsExactly(new ReplayResult.EntryResult(1, ReplayResult.Status.ACCEPTED, 1));
        assertThat(log.readQuarantine("orders", 0, 1).get(0).replay().offset()).isEqualTo(1);
        assertThat(append(log, "q").entries().get(0)).as("the key of the replayed event deduplicates")
                .isEqualTo(new AppendResult.EntryResult(AppendResult.Status.DUPLICATE, 1));
    }

    @Test
    void leasesAreExclusiveAndEveryNewHolderGetsAHigherToken() throws Exception {
        SqliteStreamLog log = open();
        append(log, "a", "b", "c");
        Leases.Granted first = (Leases.Granted) log.lease("orders", "billing", "worker-1", Duration.ofSeconds(30), SERVER);
        assertThat(first.committedOffset()).isZero();
        assertThat(log.lease("orders", "billing", "worker-2", Duration.ofSeconds(30), SERVER))
                .isEqualTo(new Leases.Held("worker-1", first.expiresAtMicros()));
        Leases.Granted renewed = (Leases.Granted) log.lease("orders", "billing", "worker-1", Duration.ofSeconds(60), SERVER);
        assertThat(renewed.token()).isEqualTo(first.token());
        assertThat(log.commit("orders", "billing", first.token(), 2, SERVER)).isEqualTo(new Leases.Committed(2));

        clock.advance(Duration.ofSeconds(61));
        assertThat(log.commit("orders", "billing", first.token(), 3, SERVER)).isInstanceOf(Leases.LeaseExpired.class);
        Leases.Granted second = (Leases.Granted) log.lease("orders", "billing", "worker-2", Duration.ofSeconds(30), SERVER);
        assertThat(second.token().epoch()).isGreaterThan(first.token().epoch());
        assertThat(second.committedOffset()).isEqualTo(2);
        assertThat(log.commit("orders", "billing", first.token(), 3, SERVER))
                .isEqualTo(new Leases.StaleToken(second.token().epoch()));
        assertThat(log.commit("orders", "billing", second.token(), 1, SERVER)).isEqualTo(new Leases.OffsetRegressed(2));
        assertThat(log.commit("orders", "billing", second.token(), 4, SERVER)).isEqualTo(new Leases.BeyondHead(3));
        assertThat(log.commit("orders", "billing", second.token(), 3, SERVER)).isEqualTo(new Leases.Committed(3));

        assertThat(log.release("orders", "billing", first.token(), SERVER)).isInstanceOf(Leases.StaleToken.class);
        assertThat(log.release("orders", "billing", second.token(), SERVER)).isInstanceOf(Leases.Released.class);
        Leases.Granted third = (Leases.Granted) log.lease("orders", "billing", "worker-1", Duration.ofSeconds(30), SERVER);
        assertThat(third.token().epoch()).isGreaterThan(second.token().epoch());
        assertThat(log.groups("orders")).extracting(Leases.Group::group, Leases.Group::committedOffset,
                Leases.Group::holder).containsExactly(org.assertj.core.groups.Tuple.tuple("billing", 3L, "worker-1"));
    }

    @Test
    void tokensAndCommittedOffsetsSurviveARestart() throws Exception {
        SqliteStreamLog log = open();
        append(log, "a", "b");
        Leases.Granted granted = (Leases.Granted) log.lease("orders", "g", "w", Duration.ofSeconds(30), SERVER);
        log.commit("orders", "g", granted.token(), 2, SERVER);
        log.close();
        opened.remove(log);
        SqliteStreamLog reopened = open();
        assertThat(reopened.commit("orders", "g", granted.token(), 2, SERVER)).isEqualTo(new Leases.Committed(2));
        clock.advance(Duration.ofMinutes(1));
        Leases.Granted next = (Leases.Granted) reopened.lease("orders", "g", "other", Duration.ofSeconds(30), SERVER);
        assertThat(next.token().epoch()).isEqualTo(granted.token().epoch() + 1);
        assertThat(next.committedOffset()).isEqualTo(2);
    }
}
