package dev.interlace.runtime.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class BlockedBloomFilterTest {

    @Test
    void everyKeyPutIsFoundAndAbsentKeysAreRarelySuspected() {
        int keys = 1_000_000;
        BlockedBloomFilter filter = new BlockedBloomFilter(
                ByteBuffer.allocate((int) BlockedBloomFilter.bytesFor(keys)));
        for (int i = 0; i < keys; i++) {
            filter.put(KeyHash.of("present-" + i));
        }
        for (int i = 0; i < keys; i++) {
            assertThat(filter.mightContain(KeyHash.of("present-" + i))).isTrue();
        }
        int suspected = 0;
        for (int i = 0; i < keys; i++) {
            suspected += filter.mightContain(KeyHash.of("absent-" + i)) ? 1 : 0;
        }
        // 12 bits a key, 8 bits set in one 512-bit block: 0.3 to 0.5 % measured; 1 % would mean a broken layout.
        assertThat(suspected / (double) keys).isLessThan(0.006);
    }

    @Test
    void aFilterIsSizedAtOneAndAHalfBytesAKey() {
        assertThat(BlockedBloomFilter.bytesFor(1_000_000) / 1_000_000.0).isBetween(1.5, 1.51);
        assertThat(BlockedBloomFilter.bytesFor(0)).isEqualTo(64);
    }
}
