package dev.interlace.runtime.flush;

import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.warehouse.Warehouse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How far each stream is materialised, as last committed by the flusher: read by the log (backpressure) and the API
 * ({@code watermark}, {@code pending}); 0 for a stream never flushed (or when no warehouse is configured).
 */
public final class FlushPositions implements Watermarks {

    private final Map<String, AtomicLong> positions = new ConcurrentHashMap<>();

    @Override
    public long events(String stream) {
        return get(Warehouse.Target.events(stream));
    }

    @Override
    public long quarantine(String stream) {
        return get(Warehouse.Target.quarantine(stream));
    }

    long get(Warehouse.Target target) {
        AtomicLong position = positions.get(target.key());
        return position == null ? 0 : position.get();
    }

    /** Records a committed watermark; never moves one backwards. */
    void set(Warehouse.Target target, long watermark) {
        positions.computeIfAbsent(target.key(), key -> new AtomicLong()).accumulateAndGet(watermark, Math::max);
    }
}
