package dev.interlace.runtime.ops;

/** Free space where the data lives; publishes are refused below the configured floor rather than failing mid-write. */
public interface DiskSpace {

    /** Bytes available to this process on the data directory's file system; the figure may be a few ms old. */
    long usableBytes();

    /**
     * Bytes available, read from the file system now: what a readiness probe reports, so that it sees space the
     * moment it is freed; {@link #usableBytes} answers with this figure from then on.
     */
    long usableBytesNow();
}
