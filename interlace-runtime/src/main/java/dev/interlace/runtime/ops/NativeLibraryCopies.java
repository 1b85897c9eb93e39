package dev.interlace.runtime.ops;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The copies of native libraries that JDBC drivers unpack from their jars into {@code java.io.tmpdir} at every start,
 * under a new name each time, and ask to have deleted when the JVM exits: that never happens for a process that halts
 * (the server's shutdown ends that way), is killed or runs out of memory, so every start left its copies behind
 * (DuckDB's is 70 MB). Once a library is loaded its copy can go: the process keeps its mapping. On Linux
 * {@code /proc/self/maps} says which files those are; elsewhere the drivers' own clean-up is all there is.
 */
public final class NativeLibraryCopies {

    private static final Logger LOG = Logger.getLogger(NativeLibraryCopies.class.getName());
    /** SQLite's driver's copies: {@code sqlite-<version>-<uuid>-libsqlitejdbc.so}, each with a {@code .lck} beside it. */
    public static final Pattern SQLITE = Pattern.compile("sqlite-[0-9.]+-[0-9a-f-]+-libsqlitejdbc\\.so");
    /** The lock file a copy may have beside it (SQLite's driver's). */
    private static final String LOCK = ".lck";

    private NativeLibraryCopies() {}

    /** Deletes this process's loaded copies named as {@code names} in {@code java.io.tmpdir}; see {@link #delete}. */
    public static List<Path> deleteLoaded(Pattern names) {
        return delete(names, Path.of("/proc/self/maps"), Path.of(System.getProperty("java.io.tmpdir")));
    }

    /**
     * Deletes the files that {@code maps} (a {@code /proc/<pid>/maps}) names, whose name matches {@code names} and that
     * lie in {@code tmp} itself, with the lock file beside each; nothing else: a library installed elsewhere (found on
     * {@code java.library.path}) stays.
     *
     * @return the copies deleted
     */
    public static List<Path> delete(Pattern names, Path maps, Path tmp) {
        if (!Files.isReadable(maps)) {
            return List.of();
        }
        try (Stream<String> lines = Files.lines(maps)) {
            Path directory = tmp.toRealPath();
            List<Path> copies = lines.map(line -> line.indexOf('/') < 0 ? null : Path.of(line.substring(line.indexOf('/'))))
                    .filter(path -> path != null && path.getFileName() != null
                            && names.matcher(path.getFileName().toString()).matches()
                            && directory.equals(path.getParent()))
                    .distinct().toList();
            for (Path copy : copies) {
                Files.deleteIfExists(copy);
                Files.deleteIfExists(copy.resolveSibling(copy.getFileName() + LOCK));
            }
            return copies;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "cannot delete the unpacked copies of native libraries in " + tmp, e);
            return List.of();
        }
    }
}
