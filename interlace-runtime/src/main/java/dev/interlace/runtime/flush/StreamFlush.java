package dev.interlace.runtime.flush;

import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.FlushRecord;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One stream's flushing state: whether a run is queued, the lock that lets one run at a time drain it, its status,
 * its lease and its failures. The fields other than {@link #queued}, {@link #status}, {@link #attempt} and
 * {@link #lastFlushId} are touched only by the run holding {@link #lock}.
 */
final class StreamFlush {
    final StreamDescriptor stream;
    final AtomicBoolean queued = new AtomicBoolean();
    final ReentrantLock lock = new ReentrantLock();
    volatile FlushStatus status = FlushStatus.IDLE;
    /** When the last run started ({@link System#nanoTime()}). */
    volatile long startedNanos = System.nanoTime() - java.util.concurrent.TimeUnit.DAYS.toNanos(1);
    /** The fencing epoch of this flusher's lease on the stream (what the warehouse records); 0 while it holds none. */
    long token;
    /** The whole token of that lease, which its commits and its release present; null while it holds none. */
    dev.interlace.runtime.log.Leases.Token leaseToken;
    /** When the lease is to be renewed ({@link System#nanoTime()}). */
    long renewAt;
    /** While standing by: when the other holder's lease expires, epoch microseconds. */
    long heldUntilMicros;
    long committedToGroup;
    int failures;
    int fencedInARow;
    /** The batch being written, until it commits (its record is kept when it fails). */
    volatile FlushRecord attempt;
    volatile String lastFlushId;
    /**
     * Whether the warehouse held rows (of any stream) when the flusher started: then the log must still hold the
     * events after the stream's watermark, even at 0 ({@link LogTrimmedException}).
     */
    boolean holdsRows;

    StreamFlush(StreamDescriptor stream) {
        this.stream = stream;
    }
}
