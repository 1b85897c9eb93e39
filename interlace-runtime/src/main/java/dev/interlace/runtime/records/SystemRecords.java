package dev.interlace.runtime.records;

/**
 * Where system records go. Recording never blocks and never fails the caller: records are queued and written in
 * batches off the hot path, and a record that cannot be written is logged instead.
 */
public interface SystemRecords extends AutoCloseable {

    /** Records that are dropped; for components used without a data directory (and tests not about records). */
    SystemRecords DISCARD = new SystemRecords() {
        @Override
        public void record(SysRecord record) {}

        @Override
        public SysRecord.Page list(SysRecord.Filter filter) {
            return new SysRecord.Page(java.util.List.of(), 0);
        }

        @Override
        public void close() {}
    };

    /** Queues a record. */
    void record(SysRecord record);

    /** Records matching {@code filter}, newest first, including every record queued before the call. */
    SysRecord.Page list(SysRecord.Filter filter);

    /**
     * Writes a consistent copy of the stored records, every record queued before the call included, into
     * {@code directory}, and returns the names of the files written; none when nothing is stored (the default).
     */
    default java.util.List<String> snapshotInto(java.nio.file.Path directory) throws java.io.IOException {
        return java.util.List.of();
    }

    @Override
    void close();
}
