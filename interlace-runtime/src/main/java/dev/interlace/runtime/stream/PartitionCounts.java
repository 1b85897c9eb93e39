package dev.interlace.runtime.stream;

import java.util.Collection;
import java.util.TreeSet;

/**
 * Checks at start-up that no stream's partition count changed: the log streams the log already knows must be exactly
 * partitions 0 to n-1 of each declared stream, or none of them (a new stream). A stream's log streams are registered
 * from the highest partition down to 0 ({@link #registrationOrder}), so a start-up that stopped half way leaves the
 * highest partitions, never partition 0 without them.
 */
public final class PartitionCounts {

    private PartitionCounts() {}

    /**
     * @param known the log streams the log holds (whatever their stream)
     * @throws ChangedPartitionCountException for the first stream whose count changed
     */
    public static void check(StreamCatalog catalog, Collection<String> known) {
        for (StreamDescriptor stream : catalog.streams()) {
            TreeSet<Integer> existing = new TreeSet<>();
            for (String name : known) {
                if (StreamPartitions.streamOf(name).equals(stream.name())) {
                    existing.add(StreamPartitions.partitionOf(name));
                }
            }
            if (existing.isEmpty()) {
                continue;
            }
            int declared = stream.partitions();
            if (existing.last() >= declared || !existing.contains(declared - 1)) {
                throw new ChangedPartitionCountException(stream, existing.last() + 1);
            }
        }
    }

    /** The log streams of every stream in the order they are registered: each stream's highest partition first. */
    public static java.util.List<StreamDescriptor> registrationOrder(StreamCatalog catalog) {
        java.util.List<StreamDescriptor> order = new java.util.ArrayList<>();
        for (StreamDescriptor stream : catalog.streams()) {
            java.util.List<StreamDescriptor> partitions = new java.util.ArrayList<>(stream.logStreams());
            java.util.Collections.reverse(partitions);
            order.addAll(partitions);
        }
        return order;
    }

    /** Start-up stops: a stream's declared partition count is not the one its log was created with. */
    public static final class ChangedPartitionCountException extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        ChangedPartitionCountException(StreamDescriptor stream, int inLog) {
            super("[InterlacePartitionCount] stream \"" + stream.name() + "\" (" + stream.declaredBy() + ") is"
                    + " declared with partitions = " + stream.partitions() + " but its log has "
                    + (inLog == 1 ? "1 partition" : inLog + " partitions") + ". A stream's partition count cannot"
                    + " change: events would be hashed to other partitions and their idempotency keys would no longer"
                    + " deduplicate. Declare partitions = " + inLog + " again, or declare the new layout as a new"
                    + " stream (another name) and move publishers to it");
        }
    }
}
