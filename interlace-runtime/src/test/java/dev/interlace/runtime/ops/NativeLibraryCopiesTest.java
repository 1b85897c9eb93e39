package dev.interlace.runtime.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which mapped files count as a driver's unpacked copies of its library, and are deleted with their lock files. */
class NativeLibraryCopiesTest {

    /** DuckDB's driver's names, as its module declares them. */
    private static final Pattern DUCKDB = Pattern.compile("libduckdb_java\\d+\\.so");

    @TempDir
    Path tmp;

    @TempDir
    Path elsewhere;

    @Test
    void onlyTheDriversCopiesInTheTemporaryDirectoryAreDeleted() throws Exception {
        Path duckdb = Files.writeString(tmp.resolve("libduckdb_java8123456789.so"), "x");
        Path sqlite = Files.writeString(tmp.resolve("sqlite-3.54.1.0-bb23a85a-0668-4b2b-b4df-5d9d2d9823fa-libsqlitejdbc.so"),
                "x");
        Path sqliteLock = Files.writeString(tmp.resolve(sqlite.getFileName() + ".lck"), "");
        Path installed = Files.writeString(tmp.resolve("libduckdb_java.so"), "x");
        Path outside = Files.writeString(elsewhere.resolve("libduckdb_java42.so"), "x");
        Path duckdbReal = duckdb.toRealPath();
        Path sqliteReal = sqlite.toRealPath();
        Path maps = Files.write(elsewhere.resolve("maps"), List.of(
                "7f00-7f10 r--p 00000000 fd:01 11 " + duckdbReal,
                "7f10-7f20 r-xp 00010000 fd:01 11 " + duckdbReal,
                "7f18-7f19 r-xp 00000000 fd:01 16 " + sqliteReal,
                "7f20-7f30 r-xp 00000000 fd:01 12 " + installed.toRealPath(),
                "7f40-7f50 r-xp 00000000 fd:01 14 " + outside.toRealPath(),
                "7f50-7f60 r-xp 00000000 fd:01 15 " + tmp.toRealPath().resolve("libduckdb_java77.so") + " (deleted)",
                "7f60-7f70 rw-p 00000000 00:00 0 ",
                "7ffd-7ffe rw-p 00000000 00:00 0 [stack]"));

        assertThat(NativeLibraryCopies.delete(DUCKDB, maps, tmp)).containsExactly(duckdbReal);
        assertThat(duckdb).doesNotExist();
        assertThat(sqlite).exists();
        assertThat(NativeLibraryCopies.delete(NativeLibraryCopies.SQLITE, maps, tmp)).containsExactly(sqliteReal);
        assertThat(sqlite).doesNotExist();
        assertThat(sqliteLock).doesNotExist();
        assertThat(installed).exists();
        assertThat(outside).exists();
    }

    @Test
    void withoutAMapOfTheProcessNothingIsDeleted() throws Exception {
        Path copy = Files.writeString(tmp.resolve("libduckdb_java8123456789.so"), "x");
        assertThat(NativeLibraryCopies.delete(DUCKDB, elsewhere.resolve("no-maps"), tmp)).isEmpty();
        assertThat(copy).exists();
    }
}
