package dev.interlace.integration.crash;

import dev.interlace.runtime.testing.Eventually;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The class path for crash-test children: the test's own, with its build outputs (class directories and snapshot
 * jars) copied once into a private directory. A child JVM loads classes lazily; without the copy, a build running
 * alongside (the next {@code mvn install} in the same checkout) could swap classes or the stream registry under a
 * child mid-test, and the child would fail for reasons that have nothing to do with durability.
 */
public final class ChildClassPath {

    private static final String REGISTRY = "META-INF/services/dev.interlace.runtime.stream.StreamRegistry";
    /** How long a build running alongside may leave its outputs incomplete. */
    private static final Duration COMPLETE_WITHIN = Duration.ofSeconds(30);

    private ChildClassPath() {}

    /**
     * Copies the mutable entries of {@code java.class.path} under {@code directory}; returns the class path. A copy
     * that a build running alongside left incomplete is made again, until one is whole.
     */
    public static String snapshot(Path directory) {
        AtomicInteger attempts = new AtomicInteger();
        return Eventually.get("the build outputs on the class path are complete (a build running alongside?"
                + " a stream registry names a class that is not there)", COMPLETE_WITHIN,
                () -> copy(Files.createDirectories(directory.resolve("attempt-" + attempts.incrementAndGet()))),
                Objects::nonNull);
    }

    /** One copy into {@code into}: the class path, or null when a build changed the outputs while they were copied. */
    private static String copy(Path into) throws IOException {
        List<String> entries = new ArrayList<>();
        List<Path> copiedDirectories = new ArrayList<>();
        try {
            int index = 0;
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                Path source = Path.of(entry);
                Path target = into.resolve(index++ + "-" + source.getFileName());
                if (Files.isDirectory(source)) {
                    copyTree(source, target);
                    copiedDirectories.add(target);
                    entries.add(target.toString());
                } else if (source.getFileName().toString().contains("-SNAPSHOT")
                        && Files.isRegularFile(source)) {
                    Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
                    entries.add(target.toString());
                } else {
                    entries.add(entry);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            return null; // something was deleted or replaced while copying: a build is running
        }
        return complete(copiedDirectories) ? String.join(File.pathSeparator, entries) : null;
    }

    /** Whether every stream registry listed in a copied directory is there too (a build was not half done). */
    private static boolean complete(List<Path> directories) throws IOException {
        boolean ordersFound = false;
        for (Path directory : directories) {
            Path services = directory.resolve(REGISTRY);
            if (!Files.isRegularFile(services)) {
                continue;
            }
            for (String line : Files.readAllLines(services)) {
                String name = line.strip();
                if (name.isEmpty() || name.startsWith("#")) {
                    continue;
                }
                if (!Files.isRegularFile(directory.resolve(name.replace('.', '/') + ".class"))) {
                    return false;
                }
            }
            ordersFound |= Files.isRegularFile(directory.resolve("dev/interlace/integration/OrdersDecoder.class"))
                    && Files.isRegularFile(directory.resolve("dev/interlace/integration/OrdersEvent.class"));
        }
        return ordersFound;
    }

    private static void copyTree(Path source, Path target) throws IOException {
        try (Stream<Path> paths = Files.walk(source)) {
            paths.forEach(path -> {
                Path copy = target.resolve(source.relativize(path).toString());
                try {
                    if (Files.isDirectory(path)) {
                        Files.createDirectories(copy);
                    } else {
                        Files.copy(path, copy, StandardCopyOption.COPY_ATTRIBUTES);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
