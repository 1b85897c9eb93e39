package dev.interlace.runtime.dedup;

/**
 * Sorts (hash, offset) pairs held in two parallel arrays by hash, in place: a segment is written from up to a recent
 * table's worth of keys, and boxing them into objects to sort would cost several times their size in heap.
 */
final class PairSort {

    private static final int INSERTION_BELOW = 24;

    private PairSort() {}

    static void sort(long[] hashes, long[] offsets, int count) {
        sort(hashes, offsets, 0, count - 1);
    }

    /** Quicksort with a median-of-three pivot, recursing into the smaller side so the stack stays logarithmic. */
    private static void sort(long[] hashes, long[] offsets, int low, int high) {
        while (high - low >= INSERTION_BELOW) {
            int middle = (low + high) >>> 1;
            if (hashes[middle] < hashes[low]) {
                swap(hashes, offsets, middle, low);
            }
            if (hashes[high] < hashes[low]) {
                swap(hashes, offsets, high, low);
            }
            if (hashes[high] < hashes[middle]) {
                swap(hashes, offsets, high, middle);
            }
            long pivot = hashes[middle];
            int i = low;
            int j = high;
            while (i <= j) {
                while (hashes[i] < pivot) {
                    i++;
                }
                while (hashes[j] > pivot) {
                    j--;
                }
                if (i <= j) {
                    swap(hashes, offsets, i++, j--);
                }
            }
            if (j - low < high - i) {
                sort(hashes, offsets, low, j);
                low = i;
            } else {
                sort(hashes, offsets, i, high);
                high = j;
            }
        }
        for (int i = low + 1; i <= high; i++) {
            long hash = hashes[i];
            long offset = offsets[i];
            int j = i - 1;
            while (j >= low && hashes[j] > hash) {
                hashes[j + 1] = hashes[j];
                offsets[j + 1] = offsets[j];
                j--;
            }
            hashes[j + 1] = hash;
            offsets[j + 1] = offset;
        }
    }

    private static void swap(long[] hashes, long[] offsets, int a, int b) {
        long hash = hashes[a];
        hashes[a] = hashes[b];
        hashes[b] = hash;
        long offset = offsets[a];
        offsets[a] = offsets[b];
        offsets[b] = offset;
    }
}
