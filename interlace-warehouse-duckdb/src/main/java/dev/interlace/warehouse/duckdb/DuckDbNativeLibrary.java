package dev.interlace.warehouse.duckdb;

import dev.interlace.runtime.ops.NativeLibraryCopies;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * DuckDB's native library: loaded once a process, and the copy its driver unpacked into {@code java.io.tmpdir} (about
 * 70 MB, under a new name at every start) deleted once it is ({@link NativeLibraryCopies}).
 */
final class DuckDbNativeLibrary {

    /** The names the driver gives its copies ({@code File.createTempFile("libduckdb_java", ".so")}). */
    static final Pattern COPIES = Pattern.compile("libduckdb_java\\d+\\.so");
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
            NativeLibraryCopies.deleteLoaded(COPIES);
        }
    }
}
