package dev.interlace.runtime.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecentKeysTest {

    private static List<Long> candidates(RecentKeys index, long hash) {
        List<Long> offsets = new ArrayList<>();
        index.candidates(hash, offsets::add);
        return offsets;
    }

    @Test
    void keysSharingAHashAreAllCandidates() {
        RecentKeys index = new RecentKeys();
        long a = KeyHash.of("a");
        long b = KeyHash.of("b");
        index.add(a, 1);
        index.add(a, 7);
        index.add(b, 2);
        assertThat(candidates(index, a)).containsExactlyInAnyOrder(1L, 7L);
        assertThat(candidates(index, b)).containsExactly(2L);
        assertThat(candidates(index, KeyHash.of("c"))).isEmpty();
    }

    @Test
    void itGrowsPastItsInitialCapacityWithoutLosingKeys() {
        RecentKeys index = new RecentKeys();
        for (long i = 0; i < 200_000; i++) {
            index.add(KeyHash.of("key-" + i), i + 1);
        }
        assertThat(index.size()).isEqualTo(200_000);
        for (long i = 0; i < 200_000; i += 997) {
            assertThat(candidates(index, KeyHash.of("key-" + i))).contains(i + 1);
        }
    }

    @Test
    void falseCandidatesAreRareAndNewKeysMostlyFindNone() {
        RecentKeys index = new RecentKeys();
        for (long i = 0; i < 200_000; i++) {
            index.add(KeyHash.of("key-" + i), i + 1);
        }
        int withCandidates = 0;
        for (long i = 0; i < 100_000; i++) {
            if (!candidates(index, KeyHash.of("other-" + i)).isEmpty()) {
                withCandidates++;
            }
        }
        // 200 000 keys against 2^30 distinguishable hashes: about 0.02 % expected.
        assertThat(withCandidates).isLessThan(100);
    }

    @Test
    void aKeyTakesAtMostTwentyOneBytes() {
        RecentKeys index = new RecentKeys();
        for (long i = 0; i < 1_000_000; i++) {
            index.add(KeyHash.of("key-" + i), i + 1);
        }
        assertThat(index.bytes() / 1_000_000.0).isLessThanOrEqualTo(21.4);
    }

    @Test
    void removingDropsTrimmedKeys() {
        RecentKeys index = new RecentKeys();
        index.add(KeyHash.of("a"), 1);
        index.add(KeyHash.of("b"), 2);
        index.add(KeyHash.of("c"), 3);
        index.removeThrough(2);
        assertThat(index.size()).isEqualTo(1);
        assertThat(candidates(index, KeyHash.of("a"))).isEmpty();
        assertThat(candidates(index, KeyHash.of("c"))).containsExactly(3L);
    }

    @Test
    void offsetsBeyondFortyBitsAreKeptOnceTheOldOnesAreTrimmed() {
        RecentKeys index = new RecentKeys();
        long hash = KeyHash.of("a");
        index.add(hash, 5);
        index.removeThrough(5);
        long large = (1L << 41) + 3;
        index.add(hash, large);
        index.add(KeyHash.of("b"), large + 1);
        assertThat(candidates(index, hash)).containsExactly(large);
        assertThat(candidates(index, KeyHash.of("b"))).containsExactly(large + 1);
    }
}
