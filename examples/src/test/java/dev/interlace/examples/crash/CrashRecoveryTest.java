package dev.interlace.examples.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.ops.FatalErrors;
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
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * "200 OK means fsynced" (docs/operations.md#what-a-200-promises), tested by crashing a real server in a child JVM
 * while 16 clients publish, restarting it on the same data directory and checking with {@link DurabilityOracle} that
 * every acknowledged event is there exactly once, at its acknowledged offset, with offsets dense from 1.
 *
 * <p>Crashes are a SIGKILL at a random moment under load, and halts at the named points of the commit protocol
 * ({@link FaultPoint}). Each test crashes the same data directory several times, so recovery of a recovered log is
 * covered too. A negative control turns durability off (acknowledge before commit) and requires the oracle to catch
 * the loss. Randomness comes from one seed, printed, and settable with {@code -Dcrash.seed=N}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CrashRecoveryTest {

    private static final Duration LOAD_LIMIT = Duration.ofSeconds(20);
    private static final Duration CLIENTS_END = Duration.ofSeconds(30);

    /** The children's class path (a copy of the build outputs) and scratch space, shared by every test. */
    @TempDir
    static Path shared;

    private static String childClassPath;

    /** Kept when a test fails: the children's stderr files and the data directory are the post-mortem. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path temp;

    private final long seed = Long.getLong("crash.seed", System.nanoTime());
    private final Random random = new Random(seed);
    private final Ledger ledger = new Ledger();
    private final List<CrashChild> children = new ArrayList<>();
    private final List<String> summary = new ArrayList<>();
    private int spawned;

    @BeforeAll
    static void copyTheClassPath() throws IOException, InterruptedException {
        childClassPath = ChildClassPath.snapshot(shared.resolve("classpath"));
        Files.createDirectories(shared.resolve("native"));
    }

    @AfterEach
    void killEveryChild() {
        children.forEach(CrashChild::close);
        System.out.println("[crash] seed " + seed + (summary.isEmpty() ? "" : "\n[crash] " + String.join(
                "\n[crash] ", summary)));
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
            Thread.sleep(50 + random.nextInt(700));
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
        CrashChild child = start(FaultPoint.BEFORE_COMMIT, 5 + random.nextInt(60));
        for (int cycle = 1; cycle <= 2; cycle++) {
            String marker = haltUnderLoad(child, FaultPoint.BEFORE_COMMIT, cycle);
            child = start(cycle < 2 ? FaultPoint.BEFORE_COMMIT : FaultPoint.NONE, 5 + random.nextInt(60));
            DurabilityOracle.Retry retry = verifyAndRetry(child, "after halt before commit #" + cycle);
            // The halted group was written but never committed: its events come back as new, not as duplicates.
            assertThat(retry.newlyStored()).as("in-doubt keys stored only by the retry; halted at %s", marker)
                    .isGreaterThanOrEqualTo(entries(marker));
        }
        child.stopGracefully();
    }

    @Test
    void haltJustAfterTheCommitLosesNothingAcknowledgedAndRetriesFindTheUnansweredGroup() throws Exception {
        CrashChild child = start(FaultPoint.AFTER_COMMIT, 5 + random.nextInt(60));
        for (int cycle = 1; cycle <= 2; cycle++) {
            String marker = haltUnderLoad(child, FaultPoint.AFTER_COMMIT, cycle);
            child = start(cycle < 2 ? FaultPoint.AFTER_COMMIT : FaultPoint.NONE, 5 + random.nextInt(60));
            DurabilityOracle.Retry retry = verifyAndRetry(child, "after halt after commit #" + cycle);
            // The halted group was durable but never answered: retrying its events finds them stored.
            assertThat(retry.alreadyStored()).as("in-doubt keys the log already held; halted at %s", marker)
                    .isGreaterThanOrEqualTo(entries(marker));
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
        Thread.sleep(delay);
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
        Thread.sleep(random.nextInt(500));
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
        CrashChild broken = start(FaultPoint.ACK_BEFORE_COMMIT, 20 + random.nextInt(30));
        String marker = haltUnderLoad(broken, FaultPoint.ACK_BEFORE_COMMIT, 1);
        CrashChild child = start(FaultPoint.NONE, 1);
        DurabilityOracle.Report report = new DurabilityOracle(dataDirectory(), child.uri()).check(ledger, random);
        summary.add("negative control (halted at " + marker + "): " + report);

        assertThat(report.isClean()).as("the oracle must fail when acknowledgements precede the commit").isFalse();
        assertThat(report.missing).as("acknowledged keys missing from the log").isNotEmpty();
        assertThat(report.notDeduplicated).as("re-publishing lost keys stores them anew").isNotEmpty();
        assertThat(report.missingPublishRecords).as("acknowledged requests without a publish record").isNotEmpty();
        child.kill();
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
        CrashChild broken = start(FaultPoint.SEGMENT_AHEAD, 2 + random.nextInt(3));
        String marker = haltUnderLoad(broken, FaultPoint.SEGMENT_AHEAD, 1);
        CrashChild child = start(FaultPoint.NONE, 1);
        DurabilityOracle.Report report = new DurabilityOracle(dataDirectory(), child.uri()).check(ledger, random);
        summary.add("negative control (halted at " + marker + "): " + report);

        assertThat(report.isClean()).as("the oracle must fail when a segment claims keys it does not hold").isFalse();
        assertThat(report.notDeduplicated).as("re-published keys of the emptied segment stored anew").isNotEmpty();
        child.kill();
    }

    // ------------------------------------------------------------------------------------------------ helpers

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
        assertThat(child.exitStatus()).isEqualTo(HaltingCommitListener.HALT_STATUS);
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
        CrashChild child = CrashChild.spawn(dataDirectory(), fault, triggerCommit, stderr, childClassPath,
                shared.resolve("native"));
        children.add(child);
        return child;
    }

    private Path dataDirectory() throws IOException {
        return Files.createDirectories(temp.resolve("data"));
    }

    private String key(String phase) {
        return Long.toHexString(seed) + "-" + phase;
    }

    private static String describe(Load load, long startNanos) {
        return load.acknowledgedEvents() + " acknowledged events in " + load.requests() + " requests, "
                + load.unanswered() + " unanswered " + load.errors() + ", " + millisSince(startNanos) + " ms";
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    private static int entries(String marker) {
        return Integer.parseInt(marker.substring(marker.indexOf("entries=") + "entries=".length()).strip());
    }
}
