package dev.interlace.runtime.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DedupIndexTest {

    private static List<Long> candidates(DedupIndex index, long hash, long notBefore) {
        List<Long> offsets = new ArrayList<>();
        index.candidates(hash, notBefore, offsets::add);
        return offsets;
    }

    @Test
    void keysSharingAHashAreAllCandidates() {
        DedupIndex index = new DedupIndex();
        index.add(42, 1, 100);
        index.add(42, 7, 100);
        index.add(43, 2, 100);
        assertThat(candidates(index, 42, 0)).containsExactlyInAnyOrder(1L, 7L);
        assertThat(candidates(index, 43, 0)).containsExactly(2L);
        assertThat(candidates(index, 44, 0)).isEmpty();
    }

    @Test
    void keysOlderThanTheWindowAreNotCandidates() {
        DedupIndex index = new DedupIndex();
        index.add(42, 1, 100);
        index.add(42, 2, 200);
        assertThat(candidates(index, 42, 150)).containsExactly(2L);
    }

    @Test
    void itGrowsPastItsInitialCapacityWithoutLosingKeys() {
        DedupIndex index = new DedupIndex();
        for (long i = 0; i < 100_000; i++) {
            index.add(DedupIndex.hash("key-" + i), i + 1, 0);
        }
        assertThat(index.size()).isEqualTo(100_000);
        for (long i = 0; i < 100_000; i += 997) {
            assertThat(candidates(index, DedupIndex.hash("key-" + i), Long.MIN_VALUE)).contains(i + 1);
        }
    }

    @Test
    void removingDropsExpiredAndTrimmedKeys() {
        DedupIndex index = new DedupIndex();
        index.add(1, 1, 100);
        index.add(2, 2, 300);
        index.add(3, 3, 300);
        index.removeExpired(299, 2);
        assertThat(index.size()).isEqualTo(1);
        assertThat(candidates(index, 3, 0)).containsExactly(3L);
    }
}
