package dev.interlace.warehouse.duckdb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * DuckDB's native library. The driver unpacks it from its jar into {@code java.io.tmpdir} at every start (about 70 MB,
 * under a new name each time) and asks for the copy to be deleted when the JVM exits, which never happens for a
 * process that halts (the server's shutdown ends that way), is killed or runs out of memory: every start left one more
 * copy behind. Once the library is loaded, its copy is deleted here instead: the process keeps its mapping (on Linux,
 * whose {@code /proc/self/maps} says where the copy is; elsewhere the driver's own clean-up is all there is).
 */
final class DuckDbNativeLibrary {

    private static final Logger LOG = Logger.getLogger(DuckDbNativeLibrary.class.getName());
    /** The names the driver gives its copies ({@code File.createTempFile("libduckdb_java", ".so")}). */
    private static final Pattern UNPACKED = Pattern.compile("libduckdb_java\\d+\\.so");
    private static final AtomicBoolean CLEANED = new AtomicBoolean();

    private DuckDbNativeLibrary() {}

    /**
     * Loads the library (at most once a process: the driver's class does it) and deletes the copy the driver unpacked
     * for it. A failure to load is thrown as the driver throws it.
     */
    static void load() {
        try {
            Class.forName("org.duckdb.DuckDBNative", true, DuckDbNativeLibrary.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return; // another layout of the driver: nothing known to clean
        }
        if (CLEANED.compareAndSet(false, true)) {
            deleteUnpackedCopies(Path.of("/proc/self/maps"), Path.of(System.getProperty("java.io.tmpdir")));
        }
    }

    /**
     * Deletes the files {@code maps} (a {@code /proc/<pid>/maps}) names that are the driver's copies in {@code tmp},
     * and nothing else: a library installed elsewhere (found on {@code java.library.path}) stays.
     *
     * @return the copies deleted
     */
    static List<Path> deleteUnpackedCopies(Path maps, Path tmp) {
        if (!Files.isReadable(maps)) {
            return List.of();
        }
        try (Stream<String> lines = Files.lines(maps)) {
            Path directory = tmp.toRealPath();
            List<Path> copies = lines.map(line -> line.indexOf('/') < 0 ? null : Path.of(line.substring(line.indexOf('/'))))
                    .filter(path -> path != null && path.getFileName() != null
                            && UNPACKED.matcher(path.getFileName().toString()).matches()
                            && directory.equals(path.getParent()))
                    .distinct().toList();
            for (Path copy : copies) {
                Files.deleteIfExists(copy);
            }
            return copies;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "cannot delete the unpacked copy of DuckDB's native library from " + tmp, e);
            return List.of();
        }
    }
}
