package dev.interlace.runtime.ops;

/** Free space where the data lives; publishes are refused below the configured floor rather than failing mid-write. */
public interface DiskSpace {

    /** Bytes available to this process on the data directory's file system. */
    long usableBytes();
}
