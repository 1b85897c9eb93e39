package dev.interlace.warehouse.duckdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which mapped files count as the driver's unpacked copies of DuckDB's library, and are deleted. */
class DuckDbNativeLibraryTest {

    @TempDir
    Path tmp;

    @TempDir
    Path elsewhere;

    @Test
    void onlyTheDriversCopiesInTheTemporaryDirectoryAreDeleted() throws Exception {
        Path copy = Files.writeString(tmp.resolve("libduckdb_java8123456789.so"), "x");
        Path installed = Files.writeString(tmp.resolve("libduckdb_java.so"), "x");
        Path sqlite = Files.writeString(tmp.resolve("sqlite-3.54.1.0-libsqlitejdbc.so"), "x");
        Path outside = Files.writeString(elsewhere.resolve("libduckdb_java42.so"), "x");
        Path real = copy.toRealPath();
        Path maps = Files.write(elsewhere.resolve("maps"), List.of(
                "7f00-7f10 r--p 00000000 fd:01 11 " + copy.toRealPath(),
                "7f10-7f20 r-xp 00010000 fd:01 11 " + copy.toRealPath(),
                "7f20-7f30 r-xp 00000000 fd:01 12 " + installed.toRealPath(),
                "7f30-7f40 r-xp 00000000 fd:01 13 " + sqlite.toRealPath(),
                "7f40-7f50 r-xp 00000000 fd:01 14 " + outside.toRealPath(),
                "7f50-7f60 r-xp 00000000 fd:01 15 " + tmp.toRealPath().resolve("libduckdb_java77.so") + " (deleted)",
                "7f60-7f70 rw-p 00000000 00:00 0 ",
                "7ffd-7ffe rw-p 00000000 00:00 0 [stack]"));

        assertThat(DuckDbNativeLibrary.deleteUnpackedCopies(maps, tmp)).containsExactly(real);

        assertThat(copy).doesNotExist();
        assertThat(installed).exists();
        assertThat(sqlite).exists();
        assertThat(outside).exists();
    }

    @Test
    void withoutAMapOfTheProcessNothingIsDeleted() throws Exception {
        Path copy = Files.writeString(tmp.resolve("libduckdb_java8123456789.so"), "x");
        assertThat(DuckDbNativeLibrary.deleteUnpackedCopies(elsewhere.resolve("no-maps"), tmp)).isEmpty();
        assertThat(copy).exists();
    }
}
