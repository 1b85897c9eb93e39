package dev.interlace.runtime.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DedupIndexTest {

    private static List<Long> candidates(DedupIndex index, long hash) {
        List<Long> offsets = new ArrayList<>();
        index.candidates(hash, offsets::add);
        return offsets;
    }

    @Test
    void keysSharingAHashAreAllCandidates() {
        DedupIndex index = new DedupIndex();
        long a = DedupIndex.hash("a");
        long b = DedupIndex.hash("b");
        index.add(a, 1);
        index.add(a, 7);
        index.add(b, 2);
        assertThat(candidates(index, a)).containsExactlyInAnyOrder(1L, 7L);
        assertThat(candidates(index, b)).containsExactly(2L);
        assertThat(candidates(index, DedupIndex.hash("c"))).isEmpty();
    }

    @Test
    void itGrowsPastItsInitialCapacityWithoutLosingKeys() {
        DedupIndex index = new DedupIndex();
        for (long i = 0; i < 200_000; i++) {
            index.add(DedupIndex.hash("key-" + i), i + 1);
        }
        assertThat(index.size()).isEqualTo(200_000);
        for (long i = 0; i < 200_000; i += 997) {
            assertThat(candidates(index, DedupIndex.hash("key-" + i))).contains(i + 1);
        }
    }

    @Test
    void falseCandidatesAreRareAndNewKeysMostlyFindNone() {
        DedupIndex index = new DedupIndex();
        for (long i = 0; i < 200_000; i++) {
            index.add(DedupIndex.hash("key-" + i), i + 1);
        }
        int withCandidates = 0;
        for (long i = 0; i < 100_000; i++) {
            if (!candidates(index, DedupIndex.hash("other-" + i)).isEmpty()) {
                withCandidates++;
            }
        }
        // 200 000 keys against 2^30 distinguishable hashes: about 0.02 % expected.
        assertThat(withCandidates).isLessThan(100);
    }

    @Test
    void aKeyTakesAtMostTwentyOneBytes() {
        DedupIndex index = new DedupIndex();
        for (long i = 0; i < 1_000_000; i++) {
            index.add(DedupIndex.hash("key-" + i), i + 1);
        }
        assertThat(index.bytes() / 1_000_000.0).isLessThanOrEqualTo(21.4);
    }

    @Test
    void removingDropsTrimmedKeys() {
        DedupIndex index = new DedupIndex();
        index.add(DedupIndex.hash("a"), 1);
        index.add(DedupIndex.hash("b"), 2);
        index.add(DedupIndex.hash("c"), 3);
        index.removeThrough(2);
        assertThat(index.size()).isEqualTo(1);
        assertThat(candidates(index, DedupIndex.hash("a"))).isEmpty();
        assertThat(candidates(index, DedupIndex.hash("c"))).containsExactly(3L);
    }

    @Test
    void offsetsBeyondFortyBitsAreKeptOnceTheOldOnesAreTrimmed() {
        DedupIndex index = new DedupIndex();
        long hash = DedupIndex.hash("a");
        index.add(hash, 5);
        index.removeThrough(5);
        long large = (1L << 41) + 3;
        index.add(hash, large);
        index.add(DedupIndex.hash("b"), large + 1);
        assertThat(candidates(index, hash)).containsExactly(large);
        assertThat(candidates(index, DedupIndex.hash("b"))).containsExactly(large + 1);
    }
}
