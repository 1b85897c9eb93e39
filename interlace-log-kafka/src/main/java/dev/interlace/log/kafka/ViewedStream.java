package dev.interlace.log.kafka;

import dev.interlace.runtime.log.StoredStream;

/**
 * A stream as this node's {@link StreamView} of it stands, for the append decision: its heads and its quarantine's
 * replay marks. Its retention and key lookup are the subclass's: a sequencer's stream ({@link SequencerKeys}), or the
 * quarantine a replay reads from ({@link SequencerKeys#quarantineOf}).
 */
abstract class ViewedStream implements StoredStream<RuntimeException> {

    final StreamView view;

    ViewedStream(StreamView view) {
        this.view = view;
    }

    @Override
    public final String name() {
        return view.name;
    }

    @Override
    public final long head() {
        return view.headOffset();
    }

    @Override
    public final long quarantineHead() {
        return view.quarantineHeadSeq();
    }

    /**
     * Entry {@code seq} of the view's quarantine (for a partition of a partitioned stream, partition 0 keeps the
     * stream's quarantine), as this node's view of it has it.
     */
    @Override
    public final Quarantined quarantined(long seq) {
        if (seq < 1 || seq > view.quarantineHeadSeq()) {
            return null;
        }
        Codec.ReplayMark mark = view.replayOf(seq);
        return mark != null ? new Quarantined(true, mark.offset()) : Quarantined.WAITING;
    }
}
