package dev.interlace.runtime.flush;

import dev.interlace.runtime.log.Watermarks;

/**
 * The watermarks of a runtime without a warehouse: nothing is materialised yet, so every logged entry counts as
 * pending and backpressure limits the log's growth. Replaced by the warehouse's persisted watermarks once a flusher
 * is bound.
 */
public final class NothingMaterialised implements Watermarks {

    @Override
    public long events(String stream) {
        return 0;
    }

    @Override
    public long quarantine(String stream) {
        return 0;
    }
}
