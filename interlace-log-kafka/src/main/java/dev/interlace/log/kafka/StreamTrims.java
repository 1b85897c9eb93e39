package dev.interlace.log.kafka;

import dev.interlace.runtime.log.LogUnavailableException;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Trims of a stream's events: the stream's sequencer stores the trim point on {@code _state} (every node's view then
 * starts the stream after it), and the records before it are deleted from the events topic.
 */
record StreamTrims(StreamViews views, SequencerPlacement placement, Topics topics) {

    private static final Logger LOG = Logger.getLogger(StreamTrims.class.getName());

    /** Trims {@code stream} through {@code throughOffset} (at most its head); how many events it removed. */
    long trim(String stream, long throughOffset) {
        StreamView view = views.registeredView(stream);
        return placement.await(stream, "trim " + stream, sequencer -> sequencer.control(now -> {
            long through = Math.min(throughOffset, view.headOffset());
            long trimmed = view.trimmedThrough();
            if (through <= trimmed) {
                return ControlDecision.answerOnly(0L);
            }
            // At or before the first kept event's position (the records between go at the next trim).
            long before = view.readFrom(through + 1);
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topics.state().topic(), 0,
                    Codec.text(Codec.trimKey(stream)), Codec.json(new Codec.TrimPoint(stream, through)));
            return new ControlDecision<>(through - trimmed, List.of(record), position -> {
                view.applyTrim(through);
                sequencer.trimmed(through);
                try {
                    topics.deleteBefore(topics.events(stream), before);
                } catch (LogUnavailableException e) {
                    // The trim point is durable; the records go at the next trim or by hand.
                    LOG.log(Level.WARNING, "deleting the trimmed records of " + stream + " failed", e);
                }
            });
        }));
    }
}
