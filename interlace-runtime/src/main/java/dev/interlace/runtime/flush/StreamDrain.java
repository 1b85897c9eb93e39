package dev.interlace.runtime.flush;

import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.ops.TraceIds;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.Warehouse;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * A {@link Flusher} run's work on one stream: drains its events and then its quarantined entries into the warehouse,
 * batch by batch while full batches wait, each batch one warehouse transaction holding the rows and the new watermark,
 * guarded by the stream's fencing token; after each, tells the listeners and moves the flushed position. Stops between
 * two batches once the flusher closes or the stream's lease is lost.
 */
final class StreamDrain {

    private final Warehouse warehouse;
    private final StreamLeases leases;
    private final FlushBatches batches;
    private final FlushPositions positions;
    private final FlushListener listener;
    private final List<Flusher.FlushedListener> flushedListeners;
    private final RequestIds ids;
    private final Clock clock;
    private final boolean keepsRecords;
    /** Whether the flusher is closing: no further batch is started. */
    private final BooleanSupplier closed;

    StreamDrain(Warehouse warehouse, StreamLeases leases, FlushBatches batches, FlushPositions positions,
            FlushListener listener, List<Flusher.FlushedListener> flushedListeners, RequestIds ids, Clock clock,
            boolean keepsRecords, BooleanSupplier closed) {
        this.warehouse = warehouse;
        this.leases = leases;
        this.batches = batches;
        this.positions = positions;
        this.listener = listener;
        this.flushedListeners = flushedListeners;
        this.ids = ids;
        this.clock = clock;
        this.keepsRecords = keepsRecords;
        this.closed = closed;
    }

    /**
     * Drains the stream's events while full batches wait: the next batch is read and decoded while the current one
     * is written. A partial batch means the stream is caught up as of its read; what arrived since has scheduled a
     * run of its own.
     */
    void drainEvents(StreamFlush flush) {
        StreamDescriptor stream = flush.stream;
        Warehouse.Target target = Warehouse.Target.events(stream.name());
        if (closed.getAsBoolean() || !leases.hold(flush)) {
            return;
        }
        long started = micros();
        long watermark = positions.get(target);
        FlushBatches.Batch batch = batches.events(stream, watermark, flush.holdsRows);
        while (!batch.isEmpty()) {
            CompletableFuture<FlushBatches.Batch> next = batch.full()
                    ? batches.eventsAhead(stream, batch.newWatermark()) : null;
            try {
                commit(flush, target, watermark, batch, started);
            } catch (RuntimeException e) {
                if (next != null) {
                    next.cancel(false);
                }
                throw e;
            }
            if (next == null) {
                return;
            }
            if (closed.getAsBoolean() || !leases.hold(flush)) {
                next.cancel(false);
                return;
            }
            started = micros();
            watermark = batch.newWatermark();
            batch = FlushBatches.await(next);
        }
    }

    /** Drains the stream's quarantined entries while full batches wait. */
    void drainQuarantine(StreamFlush flush) {
        Warehouse.Target target = Warehouse.Target.quarantine(flush.stream.name());
        while (!closed.getAsBoolean() && leases.hold(flush)) {
            long started = micros();
            long watermark = positions.get(target);
            FlushBatches.Batch batch = batches.quarantine(flush.stream, watermark);
            if (batch.isEmpty()) {
                return;
            }
            commit(flush, target, watermark, batch, started);
            if (!batch.full()) {
                return;
            }
        }
    }

    private void commit(StreamFlush flush, Warehouse.Target target, long watermark, FlushBatches.Batch batch,
            long startedAtMicros) {
        List<Warehouse.Row> rows = batch.rows();
        long newWatermark = batch.newWatermark();
        // With --record-retention 0 no flush record is written either (the id still names the batch in logs).
        FlushRecord record = new FlushRecord(ids.mintWithPrefix("flush-"), target, rows.get(0).offset(),
                newWatermark, rows.size(), startedAtMicros, 0, null, TraceIds.of(batch.traceIds()));
        FlushRecord kept = keepsRecords ? record : null;
        flush.attempt = record;
        long startedNanos = System.nanoTime();
        warehouse.append(flush.stream, target, flush.token, watermark, newWatermark, rows, kept);
        long durationNanos = System.nanoTime() - startedNanos;
        flush.attempt = null;
        flush.lastFlushId = record.id();
        listener.afterCommit(target, newWatermark);
        listener.committed(target, rows.size(), durationNanos);
        listener.recorded(record.committedAt(micros()));
        if (batch.rowsFromLog() > 0 && !target.quarantine()) {
            listener.committedFromLog(target, batch.rowsFromLog());
        }
        if (!target.quarantine()) {
            // Before the position moves, so that whoever waits for the flush also sees what it triggered.
            for (Flusher.FlushedListener flushed : flushedListeners) {
                flushed.flushed(flush.stream.name(), newWatermark, record.traces());
            }
        }
        positions.set(target, newWatermark);
    }

    private long micros() {
        return EpochMicros.now(clock);
    }
}
