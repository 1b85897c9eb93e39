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

    @Override
    void close();
}
