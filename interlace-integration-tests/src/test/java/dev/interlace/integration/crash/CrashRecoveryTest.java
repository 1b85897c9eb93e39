package dev.interlace.integration.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.ops.FatalErrors;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.Pause;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * "200 OK means fsynced" (docs/operations.md#what-a-200-promises), tested by crashing a real server in a child JVM
 * while 16 clients publish, restarting it on the same data directory and checking with {@link DurabilityOracle} that
 * every acknowledged event is there exactly once, at its acknowledged offset, with offsets dense from 1.
 *
 * <p>Crashes are a SIGKILL at a random moment under load, and halts at the named points of the commit protocol
 * ({@link FaultPoint}). Each test crashes the same data directory several times, so recovery of a recovered log is
 * covered too. A negative control turns durability off (acknowledge before commit) and requires the oracle to catch
 * the loss. The deduplication index is crashed while it seals, merges and deletes segments, and while the retention
 * sweep trims it with the log (the children's clock moved past the retention, so that the sweep has old keys to trim
 * and new ones it must keep), each with a negative control of its own. Randomness comes from one seed, printed, and settable with {@code -Dcrash.seed=N}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CrashRecoveryTest extends CrashHarness {

    private static final Duration LOAD_LIMIT = Duration.ofSeconds(20);
    private static final Duration CLIENTS_END = Duration.ofSeconds(30);
    /** How far a trim test moves the children's clock at a time: past the orders stream's retention of 7 days. */
    private static final Duration PAST_THE_RETENTION = Duration.ofDays(7).plusHours(1);
    /** Keys acknowledged before the clock moves, and after it before the sweep: several sealed segments each. */
    private static final int KEYS_PER_TRIM_PHASE = 1500;

    /** The keys acknowledged inside the stream's retention window (all of them until a trim test moves the clock). */
    private Ledger ledger = new Ledger();
    /** The keys acknowledged before the children's clock moved past the retention: not lost unless trimmed. */
    private final List<Ledger> aged = new ArrayList<>();
    /** How far ahead the next child's clock runs: a trim test moves it past the retention between children. */
    private Duration clockShift = Duration.ZERO;
    private final List<CrashChild> children = new ArrayList<>();
    private int spawned;

    CrashRecoveryTest() {
        super("crash");
    }

    @AfterEach
    void killEveryChild() {
        children.forEach(CrashChild::close);
    }

    @Test
    void sigkillAtRandomMomentsUnderLoadLosesNothingAcknowledged() throws Exception {
        for (int cycle = 1; cycle <= 3; cycle++) {
            CrashChild child = start(FaultPoint.NONE, 1);
            if (cycle > 1) {
                verifyAndRetry(child, "after SIGKILL #" + (cycle - 1));
            }
            long loadStart = System.nanoTime();
            Load load = Load.start(child.uri(), ledger, key("sigkill" + cycle), LOAD_LIMIT, random.nextLong());
            assertThat(load.awaitAcknowledged(50, Duration.ofSeconds(20)))
                    .as("the load got going before the kill\n%s", child.diagnostics()).isTrue();
            Pause.millis(50 + random.nextInt(700)); // a random moment under load
            child.kill();
            assertThat(load.awaitEnd(CLIENTS_END)).as("every client stopped").isTrue();
            summary.add("SIGKILL #" + cycle + " after " + describe(load, loadStart));
        }
        CrashChild child = start(FaultPoint.NONE, 1);
        verifyAndRetry(child, "after SIGKILL #3");
        child.stopGracefully();
    }

    @Test
    void haltJustBeforeTheCommitLosesNothingAcknowledged() throws Exception {
        haltTwiceAt(FaultPoint.BEFORE_COMMIT, "before commit", (retry, marker) ->
                // The halted group was written but never committed: its events come back as new, not as duplicates.
                assertThat(retry.newlyStored()).as("in-doubt keys stored only by the retry; halted at %s", marker)
                        .isGreaterThanOrEqualTo(entries(marker)));
    }

    @Test
    void haltJustAfterTheCommitLosesNothingAcknowledgedAndRetriesFindTheUnansweredGroup() throws Exception {
        haltTwiceAt(FaultPoint.AFTER_COMMIT, "after commit", (retry, marker) ->
                // The halted group was durable but never answered: retrying its events finds them stored.
                assertThat(retry.alreadyStored()).as("in-doubt keys the log already held; halted at %s", marker)
                        .isGreaterThanOrEqualTo(entries(marker)));
    }

    /**
     * Halts a child at {@code fault} under load twice, restarting it each time (the second restart without a fault),
     * verifies that nothing acknowledged was lost, retries the keys in doubt, and hands each retry and the halted
     * group's marker to {@code inDoubt}.
     */
    private void haltTwiceAt(FaultPoint fault, String where, BiConsumer<DurabilityOracle.Retry, String> inDoubt)
            throws Exception {
        CrashChild child = start(fault, 5 + random.nextInt(60));
        for (int cycle = 1; cycle <= 2; cycle++) {
            String marker = haltUnderLoad(child, fault, cycle);
            child = start(cycle < 2 ? fault : FaultPoint.NONE, 5 + random.nextInt(60));
            inDoubt.accept(verifyAndRetry(child, "after halt " + where + " #" + cycle), marker);
        }
        child.stopGracefully();
    }

    @Test
    void everyKindOfCrashInTurnOnOneDataDirectoryLosesNothingAcknowledged() throws Exception {
        CrashChild child = start(FaultPoint.BEFORE_COMMIT, 5 + random.nextInt(60));
        haltUnderLoad(child, FaultPoint.BEFORE_COMMIT, 1);

        // Killed while it starts: opening the crashed log, replaying its WAL, registering streams.
        CrashChild starting = spawn(FaultPoint.NONE, 1);
        long delay = 50 + random.nextInt(700);
        Pause.millis(delay);
        boolean wasListening = starting.uri() != null;
        starting.kill();
        summary.add("SIGKILL " + delay + " ms into start-up (" + (wasListening ? "already" : "not yet")
                + " listening)");

        child = start(FaultPoint.AFTER_COMMIT, 5 + random.nextInt(60));
        verifyAndRetry(child, "after a halt before commit and a kill during start-up");
        haltUnderLoad(child, FaultPoint.AFTER_COMMIT, 2);

        child = start(FaultPoint.NONE, 1);
        verifyAndRetry(child, "after a halt after commit");
        long loadStart = System.nanoTime();
        Load load = Load.start(child.uri(), ledger, key("mixed-sigkill"), LOAD_LIMIT, random.nextLong());
        assertThat(load.awaitAcknowledged(50, Duration.ofSeconds(20))).as("the load got going").isTrue();
        Pause.millis(random.nextInt(500)); // a random moment under load
        child.kill();
        assertThat(load.awaitEnd(CLIENTS_END)).as("every client stopped").isTrue();
        summary.add("SIGKILL under load after " + describe(load, loadStart));

        child = start(FaultPoint.NONE, 1);
        verifyAndRetry(child, "after a SIGKILL under load");
        // A clean stop checkpoints and truncates the WAL; the next start must find everything in the database file.
        child.stopGracefully();
        child = start(FaultPoint.NONE, 1);
        verifyAndRetry(child, "after a graceful stop");
        child.kill();
    }

    @Test
    void anOutOfMemoryErrorOnTheWriterEndsTheProcessWithStatus3AndLosesNothingAcknowledged() throws Exception {
        CrashChild child = start(FaultPoint.OOM_BEFORE_COMMIT, 5 + random.nextInt(60));
        long loadStart = System.nanoTime();
        Load load = Load.start(child.uri(), ledger, key("oom"), LOAD_LIMIT, random.nextLong());
        assertThat(load.awaitAcknowledged(1, Duration.ofSeconds(10))).as("acknowledged before arming").isTrue();
        child.arm();
        boolean exited = child.awaitExit(LOAD_LIMIT);
        boolean clientsEnded = load.awaitEnd(CLIENTS_END);
        child.close();
        assertThat(exited).as("%s exited on its own after the writer's OutOfMemoryError\n%s", child,
                child.diagnostics()).isTrue();
        assertThat(clientsEnded).as("every client stopped").isTrue();
        assertThat(child.exitStatus()).as(child.diagnostics()).isEqualTo(FatalErrors.OUT_OF_MEMORY_STATUS);
        assertThat(child.faultMarker()).as("the fault fired on the writer").startsWith("oom-before-commit commit=");
        assertThat(dataDirectory().resolve(FatalErrors.MARKER)).as("the halt left its reason").exists();
        summary.add("out of memory on the writer after " + describe(load, loadStart));

        child = start(FaultPoint.NONE, 1);
        verifyAndRetry(child, "after an OutOfMemoryError on the writer");
        HttpResponse<String> records = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                child.uri().resolve("/logs/sys?event=fatal_exit")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(records.statusCode()).as(records.body()).isEqualTo(200);
        assertThat(records.body()).as("the next start recorded why the last run ended")
                .contains("the previous run ended on a fatal error").contains("out of memory")
                .contains("interlace-log-writer");
        assertThat(dataDirectory().resolve(FatalErrors.MARKER)).as("recorded once").doesNotExist();
        child.stopGracefully();
    }

    @Test
    void acknowledgingBeforeTheCommitIsCaughtByTheOracle() throws Exception {
        DurabilityOracle.Report report = negativeControl(FaultPoint.ACK_BEFORE_COMMIT, 20 + random.nextInt(30));

        assertThat(report.isClean()).as("the oracle must fail when acknowledgements precede the commit").isFalse();
        assertThat(report.missing).as("acknowledged keys missing from the log").isNotEmpty();
        assertThat(report.notDeduplicated).as("re-publishing lost keys stores them anew").isNotEmpty();
        assertThat(report.missingPublishRecords).as("acknowledged requests without a publish record").isNotEmpty();
    }

    @Test
    void haltsWhileTheDedupIndexWritesPutsInUseOrDeletesASegmentLoseNoKey() throws Exception {
        List<FaultPoint> faults = List.of(FaultPoint.SEGMENT_WRITING, FaultPoint.SEGMENT_WRITTEN,
                FaultPoint.SEGMENT_DELETING);
        CrashChild child = start(faults.get(0), 1 + random.nextInt(5));
        for (int i = 0; i < faults.size(); i++) {
            haltUnderLoad(child, faults.get(i), i + 1);
            FaultPoint next = i + 1 < faults.size() ? faults.get(i + 1) : FaultPoint.NONE;
            child = start(next, 1 + random.nextInt(5));
            // Every acknowledged key re-published answers deduplicated at its offset, whatever the index's files.
            verifyAndRetry(child, "after a halt at " + faults.get(i).argument());
        }
        child.stopGracefully();
    }

    @Test
    void aSegmentSavedAheadOfTheKeysItClaimsIsCaughtByTheOracle() throws Exception {
        DurabilityOracle.Report report = negativeControl(FaultPoint.SEGMENT_AHEAD, 2 + random.nextInt(3));

        assertThat(report.isClean()).as("the oracle must fail when a segment claims keys it does not hold").isFalse();
        assertThat(report.notDeduplicated).as("re-published keys of the emptied segment stored anew").isNotEmpty();
    }

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void haltsWhileTheRetentionSweepTrimsTheLogAndItsIndexLoseNoKeyInsideTheWindow() throws Exception {
        List<FaultPoint> faults = List.of(FaultPoint.TRIM_DELETING, FaultPoint.TRIM_DELETED,
                FaultPoint.TRIM_COMMITTED);
        // Never armed: a child with a trim fault seals its few hundred keys in memory into segments that the first
        // trim will delete (keys are sealed only while inside the window; each later trim deletes the segments the
        // last fault child sealed).
        CrashChild child = start(faults.get(0), 1);
        loadAndStop(child, "before-trims");
        for (int i = 0; i < faults.size(); i++) {
            FaultPoint fault = faults.get(i);
            long bound = ageTheLog(child);
            String marker = haltWhileTrimming(start(fault, 1), fault, bound, i + 1);
            child = start(FaultPoint.NONE, 1);
            long trimmedThrough = verifyAfterATrim(child, "after a halt at " + marker, i + 1);
            if (fault == FaultPoint.TRIM_COMMITTED) {
                assertThat(trimmedThrough).as("the committed trim's bound").isEqualTo(bound);
            } else {
                assertThat(trimmedThrough).as("the trim halted before its commit was rolled back").isLessThan(bound);
            }
        }
        child.stopGracefully();
    }

    @Test
    void anIndexTrimmedAheadOfTheLogIsCaughtByTheOracle() throws Exception {
        CrashChild child = start(FaultPoint.TRIM_AHEAD, 1); // never armed: it seals segments for the trim to delete
        loadAndStop(child, "before-trim");
        long bound = ageTheLog(child);
        String marker = haltWhileTrimming(start(FaultPoint.TRIM_AHEAD, 1), FaultPoint.TRIM_AHEAD, bound, 1);
        DurabilityOracle.Report report = negativeControlAfter(marker);

        assertThat(report.isClean()).as("the oracle must fail when a trim empties segments of keys inside the window")
                .isFalse();
        assertThat(report.notDeduplicated).as("re-published keys inside the window stored anew").isNotEmpty();
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /**
     * The oracle's verdict on a negative control: a child broken at {@code fault}, armed to halt at its
     * {@code triggerCommit}-th commit, halted under load; see {@link #negativeControlAfter}.
     */
    private DurabilityOracle.Report negativeControl(FaultPoint fault, int triggerCommit) throws Exception {
        return negativeControlAfter(haltUnderLoad(start(fault, triggerCommit), fault, 1));
    }

    /**
     * The oracle's verdict on a negative control halted at {@code marker}: starts a whole child on the data it left,
     * checks it against the ledger (the report goes into the summary) and kills it.
     */
    private DurabilityOracle.Report negativeControlAfter(String marker) throws Exception {
        CrashChild child = start(FaultPoint.NONE, 1);
        try {
            DurabilityOracle.Report report = new DurabilityOracle(dataDirectory(), child.uri()).check(ledger, random);
            summary.add("negative control (halted at " + marker + "): " + report);
            return report;
        } finally {
            child.kill();
        }
    }

    /** Publishes {@value #KEYS_PER_TRIM_PHASE} or more events to {@code child} and lets every request be answered. */
    private void loadAndStop(CrashChild child, String phase) throws InterruptedException {
        long loadStart = System.nanoTime();
        Load load = Load.start(child.uri(), ledger, key(phase), LOAD_LIMIT, random.nextLong());
        boolean loaded = load.awaitAcknowledged(KEYS_PER_TRIM_PHASE, LOAD_LIMIT);
        load.stop();
        assertThat(load.awaitEnd(CLIENTS_END)).as("every client stopped").isTrue();
        assertThat(loaded).as("%s acknowledged %d events\n%s", child, KEYS_PER_TRIM_PHASE, child.diagnostics())
                .isTrue();
        summary.add("loaded " + phase + ": " + describe(load, loadStart));
    }

    /**
     * Waits until {@code child} has materialised every event, stops it and moves the next children's clock past the
     * retention: every key acknowledged so far leaves the window. Returns the head, through which the next sweep
     * trims.
     */
    private long ageTheLog(CrashChild child) throws Exception {
        long head = awaitMaterialised(child, -1);
        child.stopGracefully();
        clockShift = clockShift.plus(PAST_THE_RETENTION);
        aged.add(ledger);
        ledger = new Ledger();
        return head;
    }

    /**
     * Waits (60 s at most) until {@code child} has materialised every event through {@code offset} (through its head
     * when negative); returns the head.
     */
    private static long awaitMaterialised(CrashChild child, long offset) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        com.fasterxml.jackson.databind.JsonNode stream = Eventually.get(child + " materialised through " + offset,
                Duration.ofSeconds(60), () -> new com.fasterxml.jackson.databind.ObjectMapper().readTree(http.send(
                        HttpRequest.newBuilder(child.uri().resolve("/streams/" + DurabilityOracle.STREAM)).build(),
                        HttpResponse.BodyHandlers.ofString()).body()),
                body -> body.path("head").asLong() - body.path("pending").asLong()
                        >= (offset < 0 ? body.path("head").asLong() : offset));
        return stream.path("head").asLong();
    }

    /**
     * Loads {@code child} (whose clock runs past the retention of every event through {@code bound}) until keys
     * inside the window are in sealed segments, then, under load, has it run the retention sweep with its trim fault
     * armed, waits until it halts there and returns the fault marker.
     */
    private String haltWhileTrimming(CrashChild child, FaultPoint fault, long bound, int cycle) throws Exception {
        long loadStart = System.nanoTime();
        Load load = Load.start(child.uri(), ledger, key(fault.argument() + cycle), LOAD_LIMIT, random.nextLong());
        assertThat(load.awaitAcknowledged(KEYS_PER_TRIM_PHASE, LOAD_LIMIT)).as("%s acknowledged %d events\n%s",
                child, KEYS_PER_TRIM_PHASE, child.diagnostics()).isTrue();
        awaitMaterialised(child, bound);
        child.sweep(bound);
        boolean halted = child.awaitExit(LOAD_LIMIT);
        boolean clientsEnded = load.awaitEnd(CLIENTS_END);
        child.close();
        assertThat(halted).as("%s halted in its sweep\n%s", child, child.diagnostics()).isTrue();
        assertThat(clientsEnded).as("every client stopped").isTrue();
        assertThat(child.exitStatus()).isEqualTo(Halt.STATUS);
        String marker = child.faultMarker();
        assertThat(marker).as("the child halted at its fault point\n%s", child.diagnostics())
                .startsWith(fault.argument() + " step=1 ");
        summary.add("halt at " + marker + " (trimming through " + bound + ") after " + describe(load, loadStart));
        return marker;
    }

    /**
     * The checks after a halt in a trim: the oracle's on the keys inside the window (each once, at its offset, a
     * duplicate when re-published; offsets dense above what was trimmed), the keys outside it still stored unless
     * trimmed, and keys never sent stored as new. Returns the log's trimmed_through.
     */
    private long verifyAfterATrim(CrashChild child, String when, int cycle) throws Exception {
        verifyAndRetry(child, when);
        DurabilityOracle oracle = new DurabilityOracle(dataDirectory(), child.uri());
        long trimmedThrough = 0;
        for (Ledger old : aged) {
            DurabilityOracle.Report report = oracle.checkOutsideTheWindow(old);
            assertThat(report.isClean()).as("%s, keys outside the window (seed %d): %s", when, seed, report).isTrue();
            trimmedThrough = report.trimmedThrough;
        }
        List<String> neverSent = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            neverSent.add(key("never-sent" + cycle) + "-" + i);
        }
        assertThat(oracle.publishNew(ledger, neverSent)).as("%s, keys never sent", when).isEmpty();
        summary.add(when + ": trimmed through " + trimmedThrough + "; keys outside the window not lost, "
                + neverSent.size() + " keys never sent accepted");
        return trimmedThrough;
    }

    /**
     * Loads {@code child} until it has acknowledged some events, then arms its fault point, loads it until it halts
     * itself there, and returns the fault marker it printed. Armed only then: a halt at the fifth commit after arming
     * could otherwise come before any answer was written, leaving the oracle nothing acknowledged to check.
     */
    private String haltUnderLoad(CrashChild child, FaultPoint fault, int cycle) throws Exception {
        long loadStart = System.nanoTime();
        Load load = Load.start(child.uri(), ledger, key(fault.argument() + cycle), LOAD_LIMIT, random.nextLong());
        assertThat(load.awaitAcknowledged(1, Duration.ofSeconds(10))).as("%s acknowledged a publish before arming",
                child).isTrue();
        child.arm();
        boolean clientsEnded = load.awaitEnd(LOAD_LIMIT.plus(CLIENTS_END));
        boolean halted = child.awaitExit(Duration.ofSeconds(10));
        child.close();
        assertThat(halted).as("%s halted within %s; answers breaking the contract: %s\n%s", child, LOAD_LIMIT,
                ledger.anomalies(), child.diagnostics()).isTrue();
        assertThat(clientsEnded).as("every client stopped").isTrue();
        assertThat(child.exitStatus()).isEqualTo(Halt.STATUS);
        String marker = child.faultMarker();
        assertThat(marker).as("the child halted at its fault point\n%s", child.diagnostics())
                .startsWith(fault.argument() + (fault.inDedupIndex() ? " step=" : " commit=") + child.triggerCommit()
                        + " ");
        summary.add("halt at " + marker + " after " + describe(load, loadStart));
        return marker;
    }

    /**
     * Checks the recovered server with the oracle, then retries every in-doubt key (as a client would) and checks the
     * log again: still dense, still exactly once.
     */
    private DurabilityOracle.Retry verifyAndRetry(CrashChild child, String when)
            throws InterruptedException, SQLException {
        try {
            return checkAndRetry(child, when);
        } catch (IOException e) {
            throw new AssertionError(when + ": the oracle's request to the recovered " + child + " failed ("
                    + (child.isAlive() ? "still running" : "exited") + ")" + child.diagnostics(), e);
        }
    }

    private DurabilityOracle.Retry checkAndRetry(CrashChild child, String when)
            throws IOException, InterruptedException, SQLException {
        long verifyStart = System.nanoTime();
        assertThat(ledger.anomalies()).as("answers that break the contract on their own").isEmpty();
        DurabilityOracle oracle = new DurabilityOracle(dataDirectory(), child.uri());
        DurabilityOracle.Report report = oracle.check(ledger, random);
        assertThat(report.isClean()).as("%s (seed %d): %s", when, seed, report).isTrue();
        assertThat(report.acknowledgedChecked).as("acknowledged events checked %s", when).isPositive();

        DurabilityOracle.Retry retry = oracle.retry(ledger);
        assertThat(retry.problems()).as("retrying in-doubt keys %s", when).isEmpty();
        DurabilityOracle.Report afterRetry = oracle.checkLogOnly(ledger);
        assertThat(afterRetry.isClean()).as("%s, after retrying in-doubt keys (seed %d): %s", when, seed, afterRetry)
                .isTrue();
        summary.add(when + ": verified " + report.acknowledgedChecked + " acknowledged events (head " + report.head
                + ", " + report.republished + " re-published as duplicates); retried in-doubt keys: "
                + retry.alreadyStored() + " already stored, " + retry.newlyStored() + " newly stored; "
                + millisSince(verifyStart) + " ms");
        return retry;
    }

    private CrashChild start(FaultPoint fault, int triggerCommit) throws IOException {
        long spawnStart = System.nanoTime();
        CrashChild child = spawn(fault, triggerCommit);
        URI uri = child.awaitListening();
        assertThat(uri).isNotNull();
        summary.add("started " + child + " in " + millisSince(spawnStart) + " ms");
        return child;
    }

    private CrashChild spawn(FaultPoint fault, int triggerCommit) throws IOException {
        Path stderr = temp.resolve("child-" + (++spawned) + "-" + fault.argument() + ".stderr");
        CrashChild child = CrashChild.spawn(dataDirectory(), fault, triggerCommit, clockShift, stderr,
                childClassPath(), nativeDirectory());
        children.add(child);
        return child;
    }

    private Path dataDirectory() throws IOException {
        return Files.createDirectories(temp.resolve("data"));
    }

    private static String describe(Load load, long startNanos) {
        return load.acknowledgedEvents() + " acknowledged events in " + load.requests() + " requests, "
                + load.unanswered() + " unanswered " + load.errors() + ", " + millisSince(startNanos) + " ms";
    }

    private static int entries(String marker) {
        return Integer.parseInt(marker.substring(marker.indexOf("entries=") + "entries=".length()).strip());
    }
}
