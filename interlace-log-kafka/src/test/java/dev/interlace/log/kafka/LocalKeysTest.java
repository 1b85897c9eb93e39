package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's copy of its streams' keys: each event found by its offset, across runs and files; trimmed files go. */
class LocalKeysTest {

    private static final long FIRST = LocalKeys.CHUNK_OFFSETS - 700;
    private static final long LAST = LocalKeys.CHUNK_OFFSETS + 700;

    @TempDir
    Path directory;

    @Test
    void findsEveryKeyAndArrivalByOffsetAcrossRunsAndFiles() throws Exception {
        try (LocalKeys keys = new LocalKeys(directory.resolve("keys"))) {
            for (long offset = FIRST; offset <= LAST; offset++) {
                keys.saw("orders", offset, at(offset), key(offset), 0);
            }
            keys.flush();

            assertThat(keys.covers("orders", FIRST - 1)).as("before the first event read").isFalse();
            assertThat(keys.covers("orders", LAST + 1)).as("not read yet").isFalse();
            assertThat(keys.covers("clicks", FIRST)).as("another stream").isFalse();
            for (long offset = FIRST; offset <= LAST; offset++) {
                assertThat(keys.covers("orders", offset)).isTrue();
                LocalKeys.Found found = keys.find("orders", offset);
                if (key(offset) == null) {
                    assertThat(found).as("offset %d carries no key", offset).isNull();
                } else {
                    assertThat(found).as("offset %d", offset).isEqualTo(new LocalKeys.Found(
                            new String(key(offset), StandardCharsets.UTF_8), at(offset)));
                }
            }
        }
    }

    @Test
    void aTrimDeletesTheFilesItHasPassedAndTheirOffsetsAreNoLongerCovered() throws Exception {
        Path root = directory.resolve("keys");
        try (LocalKeys keys = new LocalKeys(root)) {
            for (long offset = FIRST; offset <= LocalKeys.CHUNK_OFFSETS; offset++) {
                keys.saw("orders", offset, at(offset), key(offset), 0);
            }
            // The next file starts once the trim has passed the first one.
            for (long offset = LocalKeys.CHUNK_OFFSETS + 1; offset <= LAST; offset++) {
                keys.saw("orders", offset, at(offset), key(offset), LocalKeys.CHUNK_OFFSETS);
            }
            keys.flush();
            try (var files = Files.list(root.resolve("orders"))) {
                assertThat(files.map(file -> file.getFileName().toString())).containsExactly("1.keys");
            }
            assertThat(keys.covers("orders", LocalKeys.CHUNK_OFFSETS)).isFalse();
            assertThat(keys.find("orders", LAST).key()).isEqualTo(new String(key(LAST), StandardCharsets.UTF_8));
        }
        try (LocalKeys again = new LocalKeys(root)) {
            assertThat(Files.exists(root.resolve("orders"))).as("made anew at each start").isFalse();
        }
    }

    /** Every seventh event carries no key; every 301st a key larger than the write buffer; some keys not ASCII. */
    private static byte[] key(long offset) {
        if (offset % 7 == 0) {
            return null;
        }
        if (offset % 301 == 0) {
            return ("large-" + offset + "-" + "x".repeat(100_000)).getBytes(StandardCharsets.UTF_8);
        }
        return ("clé-" + offset).getBytes(StandardCharsets.UTF_8);
    }

    /** Arrivals that go back now and then, as different nodes' clocks may. */
    private static long at(long offset) {
        return 1_760_000_000_000_000L + offset * 1_000 - (offset % 5 == 0 ? 7_000 : 0);
    }
}
