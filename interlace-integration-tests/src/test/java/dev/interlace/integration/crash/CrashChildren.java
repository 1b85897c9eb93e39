package dev.interlace.integration.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The child JVMs (see {@link ChildJvm}) of one crash test: each runs the harness's {@code main} on the test's data
 * directory with a fault armed at a trigger, from the class path copy and native-library scratch its test class
 * shares, with its standard error kept in the test's directory; {@link #close} kills every one of them after the test.
 */
public final class CrashChildren implements AutoCloseable {

    private final Class<?> main;
    private final String faultPrefix;
    private final List<String> summary;
    private final List<ChildJvm> children = new ArrayList<>();
    private int spawned;

    /**
     * Children of {@code main}, whose fault marker starts with {@code faultPrefix}; each start is added to the test's
     * {@code summary}.
     */
    public CrashChildren(Class<?> main, String faultPrefix, List<String> summary) {
        this.main = main;
        this.faultPrefix = faultPrefix;
        this.summary = summary;
    }

    /**
     * Starts a child on {@code temp/data} with {@code fault} (its argument) armed at {@code trigger}; returns once it
     * listens.
     */
    public ChildJvm start(Path temp, String classPath, Path scratch, String fault, int trigger) throws IOException {
        long spawnStart = System.nanoTime();
        Path stderr = temp.resolve("child-" + (++spawned) + "-" + fault + ".stderr");
        Process process = ChildJvm.launch(main, List.of(Files.createDirectories(temp.resolve("data")).toString(),
                fault, Integer.toString(trigger)), stderr, classPath, scratch);
        ChildJvm child = new ChildJvm(process, stderr, fault + "@" + trigger + " pid " + process.pid(), faultPrefix);
        children.add(child);
        assertThat(child.awaitListening()).isNotNull();
        summary.add("started " + child + " in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - spawnStart)
                + " ms");
        return child;
    }

    @Override
    public void close() {
        children.forEach(ChildJvm::close);
    }
}
