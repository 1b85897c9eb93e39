package dev.interlace.integration.modelcrash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.integration.crash.ChildJvm;
import dev.interlace.integration.crash.CrashChildren;
import dev.interlace.integration.crash.CrashHarness;
import dev.interlace.integration.flushcrash.PublishLoad;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Incremental models are exactly-once across a crash between writing their output and committing their watermark (the
 * output and the model's watermark commit in one transaction: docs/models.md#materialisations). A real server runs in a
 * child JVM while clients publish clicks; on the N-th batch of {@code clicks_enriched} that processes rows it halts
 * (exit 137, no hooks) inside the model's transaction, at one of the {@link ModelFault} points. A normal server is then
 * started on the same data directory, and once nothing is pending, no run is active and the model caught up,
 * {@link ModelOracle} checks that every row of {@code streams.clicks} was processed by exactly one committed batch,
 * that the model table holds every acknowledged click once at its offset, and that the watermarks and run records
 * agree.
 *
 * <p>The negative control lets every statement of the model's connection commit on its own (the output before the
 * watermark) and halts after the output: the restarted server processes the batch again. The model table looks clean
 * (the upsert on {@code click_id} replaces the rows), and so do the run records (the halted run never recorded its
 * rows); the committed-processing audit must — and does — catch it.
 *
 * <p>Randomness (trigger batch, keys, load) comes from one seed, printed, settable with {@code -Dmodelcrash.seed=N}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ModelCrashTest extends CrashHarness {

    private static final Duration LOAD_LIMIT = Duration.ofSeconds(20);
    private static final long PAUSE_MILLIS = 20;
    /** Publishers of clicks, each pausing up to {@link #PAUSE_MILLIS} between requests. */
    private static final int CLIENTS = 3;
    /** One click of the {@code n}-th key: a few users and pages, so that the models' groups fill up. */
    private static final PublishLoad.Shape CLICKS = (key, client, n, random) -> "{\"click_id\":\"" + key
            + "\",\"user_id\":\"u" + random.nextInt(50) + "\",\"url\":\"/p/" + random.nextInt(1000)
            + "\",\"at\":\"2026-11-29T0" + random.nextInt(10) + ":" + (10 + random.nextInt(50)) + ":00Z\"}";
    private static final Duration HALT_WITHIN = Duration.ofSeconds(20);
    private static final Duration SETTLE = Duration.ofSeconds(30);

    private final CrashChildren children = new CrashChildren(ModelCrashServerMain.class,
            ModelCrashServerMain.FAULT_FIRED, summary);

    @BeforeAll
    static void loadTheClasses() throws Exception {
        loadThisPackage();
    }

    ModelCrashTest() {
        super("model-crash");
    }

    @AfterEach
    void killEveryChild() {
        children.close();
    }

    // ------------------------------------------------------------------------------------------ the crash matrix

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ModelFault.class, names = {"AFTER_OUTPUT", "BEFORE_COMMIT", "AT_COMMIT"})
    void haltBetweenOutputAndWatermarkCommitThenRestartProcessesEveryClickExactlyOnce(ModelFault fault)
            throws Exception {
        int trigger = 2 + random.nextInt(3);
        ChildJvm child = start(fault, trigger);
        PublishLoad load = PublishLoad.start(child.uri(), ModelProbe.STREAM, CLICKS, CLIENTS, PAUSE_MILLIS,
                key(fault.argument()), LOAD_LIMIT, random.nextLong());
        Marker marker = awaitHalt(child, load, fault, trigger);

        Recovery recovery = recoverAndCheck(load.acknowledged(), "after halt at " + marker);
        ModelOracle.Report report = recovery.report;
        assertThat(report.isClean()).as("after halt at %s (seed %d): %s", marker, seed, report).isTrue();

        List<Long> halted = marker.batchOffsets();
        assertThat(halted.get(halted.size() - 1)).as("the halted batch is within the stream").isLessThanOrEqualTo(
                report.head);
        for (long offset : halted) {
            assertThat(report.processedBy.get(offset)).as("offset %d of the halted batch (%s) was processed once,"
                    + " by the restarted server, not by the halted one", offset, marker)
                    .isEqualTo(recovery.pid);
        }
        if (fault == ModelFault.AT_COMMIT) {
            assertThat(marker.watermarkInTransaction).as("at the commit the new model watermark was written in the"
                    + " transaction (%s)", marker).isEqualTo(marker.from + marker.rows);
        } else if (fault == ModelFault.AFTER_OUTPUT) {
            assertThat(marker.watermarkInTransaction).as("after the output the model watermark is not written yet"
                    + " (%s)", marker).isEqualTo(marker.from);
        }
    }

    /**
     * Negative control: output committed apart from the watermark (each statement of the model's connection commits
     * by itself) and a halt between them. The restarted server processes the halted batch again; the oracle must
     * fail, naming exactly that batch's offsets as processed twice, although the model table and the run records
     * look right.
     */
    @Test
    void committingTheOutputApartFromTheWatermarkIsCaughtByTheOracle() throws Exception {
        int trigger = 2 + random.nextInt(3);
        ChildJvm broken = start(ModelFault.OUTPUT_COMMITTED_ALONE, trigger);
        PublishLoad load = PublishLoad.start(broken.uri(), ModelProbe.STREAM, CLICKS, CLIENTS, PAUSE_MILLIS,
                key("committed-alone"), LOAD_LIMIT, random.nextLong());
        Marker marker = awaitHalt(broken, load, ModelFault.OUTPUT_COMMITTED_ALONE, trigger);

        Recovery recovery = recoverAndCheck(load.acknowledged(), "negative control, after halt at " + marker);
        ModelOracle.Report report = recovery.report;
        assertThat(report.isClean()).as("the oracle must fail when the output commits without its watermark: %s",
                report).isFalse();
        assertThat(report.processedExactlyOnce()).as("processed exactly once").isFalse();
        assertThat(report.processedTwice.keySet()).as("the offsets processed twice are the halted batch's (%s)",
                marker).containsExactlyElementsOf(marker.batchOffsets());
        report.processedTwice.forEach((offset, pids) -> assertThat(pids)
                .as("offset %d: once by the halted server, once by the restarted one", offset)
                .containsExactlyInAnyOrder(marker.pid, recovery.pid));
        assertThat(report.auditRows - report.auditDistinctOffsets).as("extra processings").isEqualTo(marker.rows);
        // Why the audit is needed: what the model table and the run records show is blind to the re-run.
        assertThat(report.tableLooksClean()).as("the upsert on click_id hides the re-run in the table: %s", report)
                .isTrue();
        assertThat(report.runRecordsMatch()).as("the halted run recorded no rows in run_models: %s", report)
                .isTrue();
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /**
     * Loads every class of this package now: the JVM loads classes lazily, and another build of this module in the
     * same checkout deletes {@code target/test-classes} at its start, which would make a class first needed later in
     * the run (the oracle, say) impossible to find.
     */
    private static void loadThisPackage() throws IOException, URISyntaxException, ClassNotFoundException {
        Path root = Path.of(ModelCrashTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        String packagePath = ModelCrashTest.class.getPackageName().replace('.', '/');
        List<String> names;
        try (Stream<Path> files = Files.list(root.resolve(packagePath))) {
            names = files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith(".class"))
                    .toList();
        }
        for (String name : names) {
            Class.forName(ModelCrashTest.class.getPackageName() + "." + name.substring(0, name.length() - 6), false,
                    ModelCrashTest.class.getClassLoader());
        }
    }

    /** The fault marker: {@code <fault> hit=N model=M pid=P attempt=A from=F rows=R watermark_in_tx=W}. */
    record Marker(String text, long pid, long from, long rows, long watermarkInTransaction) {
        static Marker parse(String text) {
            return new Marker(text, Long.parseLong(field(text, "pid")), Long.parseLong(field(text, "from")),
                    Long.parseLong(field(text, "rows")), Long.parseLong(field(text, "watermark_in_tx")));
        }

        /** The offsets of the halted batch: the stream's offsets are contiguous (no click is quarantined). */
        List<Long> batchOffsets() {
            return LongStream.rangeClosed(from + 1, from + rows).boxed().collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** The recovered server's pid and the oracle's report. */
    private record Recovery(long pid, ModelOracle.Report report) {}

    /** Waits until {@code child} halts itself at {@code fault}; asserts exit 137 and the marker; returns it. */
    private Marker awaitHalt(ChildJvm child, PublishLoad load, ModelFault fault, int trigger)
            throws InterruptedException {
        long start = System.nanoTime();
        String text = load.awaitHaltOf(child, HALT_WITHIN,
                fault.argument() + " hit=" + trigger + " model=" + ModelProbe.MODEL + " pid=" + child.pid() + " ");
        Marker marker = Marker.parse(text);
        assertThat(marker.rows).as("the halted batch processed rows").isPositive();
        summary.add("halt at " + marker + " after " + load.describe() + ", " + millisSince(start)
                + " ms after the load started");
        return marker;
    }

    /** Restarts a normal server on the data directory, waits until it settled and runs the oracle. */
    private Recovery recoverAndCheck(Map<String, Long> acknowledged, String when) throws Exception {
        long restart = System.nanoTime();
        ChildJvm child = start(ModelFault.NONE, 1);
        ModelOracle oracle = new ModelOracle(child.uri());
        return checkRecovered(child, when, () -> {
            ModelOracle.Progress progress = oracle.awaitSettled(SETTLE);
            assertThat(progress.settled()).as("%s: the restarted server settled within %s: %s%s", when, SETTLE,
                    progress, child.diagnostics()).isTrue();
            long settled = millisSince(restart);
            ModelOracle.Report report = oracle.check(acknowledged);
            summary.add(when + ": settled " + settled + " ms after restart (" + progress + "); " + report);
            assertThat(report.acknowledgedChecked).as("acknowledged clicks checked").isPositive();
            return new Recovery(child.pid(), report);
        });
    }

    private ChildJvm start(ModelFault fault, int trigger) throws IOException {
        return children.start(temp, childClassPath(), nativeDirectory(), fault.argument(), trigger);
    }
}
