package dev.interlace.integration.crash;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the crash harnesses that kill child JVMs share: the children's class path (a copy of the build outputs, made
 * once per test class) and native scratch space, a directory per test that is kept when the test fails, one seed for
 * all randomness (printed, settable with {@code -D<name>.seed=N}) and a summary of what happened, printed after each
 * test with the seed.
 */
public abstract class CrashHarness {

    /** The children's class path (a copy of the build outputs) and scratch space, shared by every test. */
    @TempDir
    static Path shared;

    private static String childClassPath;

    /** Kept when a test fails: the children's stderr files and the data directory are the post-mortem. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    protected Path temp;

    protected final long seed;
    protected final Random random;
    protected final List<String> summary = new ArrayList<>();
    private final String label;

    /** {@code label} tags the printed lines; without its dashes, it names the seed's system property. */
    protected CrashHarness(String label) {
        this.label = "[" + label + "] ";
        this.seed = Long.getLong(label.replace("-", "") + ".seed", System.nanoTime());
        this.random = new Random(seed);
    }

    @BeforeAll
    static void copyTheClassPath() throws IOException {
        childClassPath = ChildClassPath.snapshot(shared.resolve("classpath"));
        Files.createDirectories(shared.resolve("native"));
    }

    /** Runs after the subclass's own {@code @AfterEach}, which stops the children and completes the summary. */
    @AfterEach
    void printTheSeedAndSummary() {
        System.out.println(label + "seed " + seed + (summary.isEmpty() ? "" : "\n" + label
                + String.join("\n" + label, summary)));
    }

    /** The class path to start a child JVM with. */
    protected static String childClassPath() {
        return childClassPath;
    }

    /** Scratch space for the children's native libraries, shared by every test of the class. */
    protected static Path nativeDirectory() {
        return shared.resolve("native");
    }

    /** A key prefix of this run's seed and {@code phase}: no two runs or phases publish the same keys. */
    protected String key(String phase) {
        return Long.toHexString(seed) + "-" + phase;
    }

    /** The value of {@code name=value} in a child's space-separated marker line. */
    protected static String field(String marker, String name) {
        for (String part : marker.split(" ")) {
            if (part.startsWith(name + "=")) {
                return part.substring(name.length() + 1);
            }
        }
        throw new IllegalArgumentException("no " + name + " in marker " + marker);
    }

    /** A test's checks on a restarted child; they may fail with an I/O error of their requests to it. */
    @FunctionalInterface
    protected interface RecoveredCheck<R> {
        R run() throws Exception;
    }

    /**
     * Runs {@code check} on the restarted {@code child} and then stops the child gracefully; an I/O error of the
     * check's requests fails the test with the child's output ({@code when} names the phase).
     */
    protected static <R> R checkRecovered(ChildJvm child, String when, RecoveredCheck<R> check) throws Exception {
        try {
            return check.run();
        } catch (IOException e) {
            throw new AssertionError(when + ": the oracle's request to the recovered " + child + " failed"
                    + child.diagnostics(), e);
        } finally {
            child.stopGracefully();
        }
    }

    protected static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }
}
