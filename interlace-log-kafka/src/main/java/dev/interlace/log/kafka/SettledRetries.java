package dev.interlace.log.kafka;

import dev.interlace.runtime.log.AppendDecision;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.PublishRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;

/**
 * The retries of a {@link Sequencer}'s stream that are settled by what is already committed, answered on the
 * publishing thread without waiting for the sequencer's: a request whose every event carries a key already stored
 * within the window. Such a retry used to wait in the sequencer's queue behind the transaction under way (tens of
 * milliseconds in the slowest retries after a takeover), though nothing the sequencer does can change its answer.
 *
 * <p>Its answer is the one the sequencer gives it: each entry {@code DUPLICATE} of the newest event of the window that
 * carries its key. It is exact for the reasons the sequencer's is: the index only gives candidates, and each offset
 * answered is an event at or below the committed head, read back (from this node's copy of the keys or from the
 * topic) with that key and an arrival inside the window. A key being accepted by the transaction under way is not in
 * the index until that commits, so such a request, like any request with a new key, an event without a key or an
 * invalid event, goes to the sequencer, which decides it among the others (two publishes of one new key are decided
 * there one after the other, exactly one accepted). An event committed in the log stays a duplicate's original for as
 * long as the window and retention keep it, whichever node holds the stream: a node that lost it answers only while
 * its sequencer still serves, and from events read in the log, never from its index alone; a key its stale index
 * lacks goes to its sequencer, whose commit is fenced. A retry racing a trim is answered as just before the trim.
 */
record SettledRetries(StreamView view, SequencerKeys keys) {

    /**
     * The answer to {@code request} if it is settled by committed events (looked up on the calling thread: an
     * in-memory lookup of the index, then for a request whose every key has candidates, their confirmation, one short
     * read); null when the sequencer must decide it.
     */
    AppendResult.Committed settled(AppendRequest request, long nowMicros) {
        if (!view.keyed() || request.entries().isEmpty() || !keys.indexed()) {
            return null;
        }
        Map<String, Long> stored = keys.settledOffsets(request, AppendDecision.windowStart(keys, nowMicros));
        if (stored == null) {
            return null;
        }
        List<AppendResult.EntryResult> fates = new ArrayList<>(request.size());
        for (AppendRequest.Entry entry : request.entries()) {
            long original = stored.get(((AppendRequest.Event) entry).idempotencyKey());
            fates.add(new AppendResult.EntryResult(AppendResult.Status.DUPLICATE, original));
        }
        return new AppendResult.Committed(fates, nowMicros);
    }

    /**
     * Whether {@link #settled} certainly answers null, known at once without a read or a wait (a request with a new
     * key, an unkeyed stream's): such a request may go straight to the sequencer.
     */
    boolean certainlyUnsettled(AppendRequest request, long nowMicros) {
        return !view.keyed() || request.entries().isEmpty() || !keys.indexed()
                || keys.certainlyUnsettled(request, AppendDecision.windowStart(keys, nowMicros));
    }

    /**
     * Answers a settled request (a retry of events already stored) without a transaction: its publish record goes
     * through the node's plain producer, and the answer once the cluster has acknowledged the record. A retry then
     * costs one produce instead of a transaction's commit, and the sequencer does not wait for it.
     *
     * <p>The answer is given in the send's callback, on the plain producer's I/O thread, not handed to the
     * acknowledging thread: that producer sends nothing but these records and the tombstones of old ones, so no
     * commit waits behind it, and a hand-off costs the retry a wake-up of another thread, which on a busy machine is
     * milliseconds in the slowest retries (docs/performance.md). The callers' dependent stages run there as on the
     * acknowledging thread: they build a short answer and hand it to the HTTP transport. Without publish records,
     * the answer is handed to {@code acknowledger}.
     */
    static void answer(SequencerContext context, StreamView view, AppendRequest request,
            AppendResult.Committed committed, CompletableFuture<AppendResult> future, Executor acknowledger) {
        if (!context.settings().publishRecords()) {
            acknowledger.execute(() -> future.complete(committed));
            return;
        }
        PublishRecord publish = PublishRecord.of(view.name, request, committed);
        String key = Codec.publishKey(view.name);
        byte[] json = Codec.json(publish);
        try {
            context.plainProducer().get().send(new ProducerRecord<>(context.topics().publishes().topic(), 0,
                    Codec.text(key), json), (metadata, error) -> {
                        if (error != null) {
                            future.completeExceptionally(new LogUnavailableException(
                                    "the Kafka cluster did not store the publish record: " + error.getMessage(),
                                    error));
                            return;
                        }
                        try {
                            context.publishes().apply(key, publish, json, metadata.offset(), true);
                        } finally {
                            future.complete(committed); // the record is stored whatever this node's copy
                        }
                    });
        } catch (KafkaException e) {
            future.completeExceptionally(new LogUnavailableException(
                    "the Kafka cluster did not store the publish record: " + e.getMessage(), e));
        }
    }
}
