package dev.interlace.log.kafka;

import dev.interlace.runtime.log.PayloadAllowance;
import dev.interlace.runtime.log.QuarantineEntry;
import java.util.List;
import java.util.Set;
import java.util.function.LongPredicate;

/**
 * Reads of a stream's quarantine on any node: pages after a sequence number, and the entries a replay request moved,
 * each with where it was replayed as the stream's {@link StreamView} knows from the replay marks on {@code _state}.
 */
record QuarantineReads(StreamViews views, Topics topics, TopicPages pages) {

    /** The quarantined entries after {@code afterSeq} (see {@code QuarantineStore#readQuarantine}). */
    List<QuarantineEntry> read(String stream, long afterSeq, int limit, long maxBytes, PayloadAllowance allowance) {
        StreamView view = views.find(stream);
        if (view == null || limit <= 0) {
            return List.of();
        }
        long head = view.quarantineHeadSeq();
        long from = afterSeq + 1;
        if (from > head) {
            return List.of();
        }
        long through = Math.min(head, from + limit - 1);
        return quarantined(view, from, through, maxBytes, seq -> true, allowance);
    }

    /** The entries replay request {@code requestId} moved, up to {@code limit} of them. */
    List<QuarantineEntry> replayedBy(String stream, String requestId, int limit) {
        StreamView view = views.find(stream);
        if (view == null || limit <= 0) {
            return List.of();
        }
        List<Long> seqs = view.replayedBy(requestId, limit);
        if (seqs.isEmpty()) {
            return List.of();
        }
        Set<Long> wanted = Set.copyOf(seqs);
        long last = seqs.get(seqs.size() - 1);
        return quarantined(view, seqs.get(0), last, Long.MAX_VALUE, wanted::contains, PayloadAllowance.UNLIMITED);
    }

    /** The quarantined entries from {@code from} through {@code through} that {@code wanted} takes. */
    private List<QuarantineEntry> quarantined(StreamView view, long from, long through, long maxBytes,
            LongPredicate wanted, PayloadAllowance allowance) {
        return pages.read(topics.quarantine(view.name), view.quarantined(), Codec.SEQ, from, through, maxBytes,
                wanted, allowance, (record, seq) -> Codec.quarantined(view.name, record, replayOf(view, seq)));
    }

    private static QuarantineEntry.Replay replayOf(StreamView view, long seq) {
        Codec.ReplayMark mark = view.replayOf(seq);
        return mark == null ? null : new QuarantineEntry.Replay(mark.offset(), mark.requestId(), mark.atMicros(),
                mark.partition());
    }
}
