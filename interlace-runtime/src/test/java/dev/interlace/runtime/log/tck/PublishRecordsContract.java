package dev.interlace.runtime.log.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.ops.TraceParent;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite of {@link dev.interlace.runtime.log.PublishRecords}: the record of every publish.
 *
 * <p>It specifies that every committed request has a publish record with its counts, offsets and the original
 * offsets of its duplicates; the filters, the arrival window, the limit and the total; and record retention.
 *
 * <p>Run it through {@link StreamLogContract}, which a backend extends; it is abstract so that it runs only
 * there.
 */
public abstract class PublishRecordsContract extends LogContractSupport {

    // ================================================================== publish records

    @Test
    void everyCommittedRequestHasAPublishRecordWithItsCountsOffsetsAndDuplicatesOriginals() throws Exception {
        StreamLog log = open();
        AppendRequest first = request(ORDERS, event("a"), event("b"), quarantined("bad"));
        append(log, first);
        clock.advance(Duration.ofSeconds(1));
        AppendRequest retry = request(ORDERS, event("b"), event("c"), event("a"));
        AppendResult.Committed committed = append(log, retry);
        append(log, CLICKS, keyless("x"));

        PublishRecord.Page all = log.publishes(new PublishRecord.Filter(null, null, null, null, 10));
        assertThat(all.total()).isEqualTo(3);
        assertThat(all.records()).extracting(PublishRecord::stream).as("newest first")
                .containsExactly(CLICKS.name(), ORDERS.name(), ORDERS.name());

        PublishRecord original = only(log.publishes(new PublishRecord.Filter(null, first.requestId(), null, null,
                10)));
        assertThat(original.stream()).isEqualTo(ORDERS.name());
        assertThat(List.of(original.accepted(), original.deduplicated(), original.quarantined()))
                .containsExactly(2L, 0L, 1L);
        assertThat(List.of(original.firstOffset(), original.lastOffset())).containsExactly(1L, 2L);
        assertThat(List.of(original.firstSeq(), original.lastSeq())).containsExactly(1L, 1L);
        assertThat(original.duplicateOffsets()).isEmpty();
        assertThat(original.receivedAtMicros()).isEqualTo(first.receivedAtMicros());

        PublishRecord second = only(log.publishes(new PublishRecord.Filter(ORDERS.name(), retry.requestId(), null,
                null, 10)));
        assertThat(List.of(second.accepted(), second.deduplicated())).containsExactly(1L, 2L);
        assertThat(List.of(second.firstOffset(), second.lastOffset())).containsExactly(3L, 3L);
        assertThat(second.duplicateOffsets()).as("the offsets that first carried the keys").containsExactly(1L, 2L);
        assertThat(second.committedAtMicros()).isEqualTo(committed.committedAtMicros());

        // Exact filters and a half-open time window on arrival.
        assertThat(log.publishes(new PublishRecord.Filter(ORDERS.name(), null, null, null, 10)).total())
                .isEqualTo(2);
        assertThat(log.publishes(new PublishRecord.Filter(null, null, retry.receivedAtMicros(), null, 10)).total())
                .isEqualTo(2);
        assertThat(log.publishes(new PublishRecord.Filter(null, null, null, retry.receivedAtMicros(), 10)).total())
                .isEqualTo(1);
        PublishRecord.Page limited = log.publishes(new PublishRecord.Filter(null, null, null, null, 1));
        assertThat(limited.records()).hasSize(1);
        assertThat(limited.total()).isEqualTo(3);

        assertThat(log.trimPublishes(retry.receivedAtMicros())).as("records received before").isEqualTo(1);
        assertThat(log.publishes(new PublishRecord.Filter(null, first.requestId(), null, null, 10)).total())
                .isZero();
        assertThat(reopen(log).publishes(new PublishRecord.Filter(null, null, null, null, 10)).total())
                .as("durable").isEqualTo(2);
    }

    @Test
    void aRetryOfStoredEventsOnlyIsRecordedWithTheOffsetsThatFirstCarriedItsKeys() throws Exception {
        StreamLog log = open();
        append(log, request(ORDERS, event("a"), event("b"), event("c")));
        clock.advance(Duration.ofSeconds(1));
        AppendRequest retry = request(ORDERS, event("c"), event("a"), event("c"));
        AppendResult.Committed committed = append(log, retry);
        assertThat(committed.entries()).extracting(AppendResult.EntryResult::status).containsOnly(
                AppendResult.Status.DUPLICATE);
        assertThat(committed.entries()).extracting(AppendResult.EntryResult::offset).containsExactly(3L, 1L, 3L);

        PublishRecord record = only(log.publishes(new PublishRecord.Filter(null, retry.requestId(), null, null, 10)));
        assertThat(List.of(record.accepted(), record.deduplicated(), record.quarantined()))
                .containsExactly(0L, 3L, 0L);
        assertThat(List.of(record.firstOffset(), record.lastOffset())).containsExactly(0L, 0L);
        assertThat(record.duplicateOffsets()).containsExactly(1L, 3L);
        assertThat(record.receivedAtMicros()).isEqualTo(retry.receivedAtMicros());
        assertThat(reopen(log).publishes(new PublishRecord.Filter(null, retry.requestId(), null, null, 10))
                .records()).as("durable").containsExactly(record);
    }

    @Test
    void aRequestsTraceIdIsKeptInItsRecordAndFindsItWithOrWithoutAKey() throws Exception {
        StreamLog log = open();
        String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        String otherTrace = "00f067aa0ba902b700f067aa0ba902b7";
        AppendRequest stored = traced(request(ORDERS, event("a"), event("b")), trace, "key_1");
        AppendRequest retry = traced(request(ORDERS, event("b")), trace, null);
        AppendRequest other = traced(request(ORDERS, event("c")), otherTrace, null);
        AppendRequest untraced = request(CLICKS, keyless("x"));
        for (AppendRequest request : List.of(stored, retry, other, untraced)) {
            append(log, request);
        }

        PublishRecord.Filter byTrace = new PublishRecord.Filter(null, null, null, null, 10, trace);
        PublishRecord.Page page = log.publishes(byTrace);
        assertThat(page.total()).isEqualTo(2);
        assertThat(page.records()).extracting(PublishRecord::requestId).as("newest first, the retry included")
                .containsExactly(retry.requestId(), stored.requestId());
        assertThat(page.records()).extracting(PublishRecord::traceId).containsOnly(trace);
        assertThat(page.records().get(1).keyId()).isEqualTo("key_1");
        assertThat(only(log.publishes(new PublishRecord.Filter(null, untraced.requestId(), null, null, 10)))
                .traceId()).as("a request outside any trace").isNull();
        assertThat(log.publishes(new PublishRecord.Filter(CLICKS.name(), null, null, null, 10, trace)).total())
                .as("the other filters still apply").isZero();
        assertThat(reopen(log).publishes(byTrace).records()).extracting(PublishRecord::requestId).as("durable")
                .containsExactly(retry.requestId(), stored.requestId());
    }

    @Test
    void aTraceIdThatIsItsRequestIdsOwnIsKeptAndFindsItsRecordsBeforeAndAfterIndexing() throws Exception {
        StreamLog log = open();
        RequestIds ids = new RequestIds(clock);
        AppendRequest own = renamed(request(ORDERS, event("a"), event("b")), ids.mint());
        String ownTrace = TraceParent.ofRequestId(own.requestId());
        AppendRequest quarantinedOnly = renamed(request(ORDERS, quarantined("bad")), ids.mint());
        String quarantinedTrace = TraceParent.ofRequestId(quarantinedOnly.requestId());
        AppendRequest untraced = renamed(request(ORDERS, event("c")), ids.mint());
        AppendRequest elsewhere = renamed(request(ORDERS, event("d")), ids.mint()); // sent with another trace
        append(log, traced(own, ownTrace, null));
        append(log, traced(quarantinedOnly, quarantinedTrace, "key_1")); // a record of its own, no event row
        append(log, untraced);
        append(log, traced(elsewhere, ownTrace, null));

        StreamLog reading = log;
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) {
                reading = reopen(log); // the records on event rows, then copied and indexed
            }
            PublishRecord.Page page = reading.publishes(new PublishRecord.Filter(null, null, null, null, 10,
                    ownTrace));
            assertThat(page.records()).extracting(PublishRecord::requestId).as("newest first")
                    .containsExactly(elsewhere.requestId(), own.requestId());
            assertThat(page.total()).isEqualTo(2);
            assertThat(page.records()).extracting(PublishRecord::traceId).containsOnly(ownTrace);
            assertThat(only(reading.publishes(new PublishRecord.Filter(null, null, null, null, 10,
                    quarantinedTrace))).requestId()).isEqualTo(quarantinedOnly.requestId());
            assertThat(only(reading.publishes(new PublishRecord.Filter(null, untraced.requestId(), null, null, 10)))
                    .traceId()).as("a request outside any trace").isNull();
            assertThat(reading.publishes(new PublishRecord.Filter(null, null, null, null, 10,
                    TraceParent.ofRequestId(untraced.requestId()))).total()).as("nor found by its id's").isZero();
            assertThat(only(reading.publishes(new PublishRecord.Filter(null, elsewhere.requestId(), null, null, 10)))
                    .traceId()).as("the sender's trace, not its id's").isEqualTo(ownTrace);
            assertThat(reading.traceIds(ORDERS.name(), 0, 4)).containsExactly(ownTrace, ownTrace);
        }
    }

    @Test
    void theTraceIdsOfAnOffsetRangeAreThoseOfTheRequestsWithEventsInItInOrder() throws Exception {
        StreamLog log = open();
        String a = "a".repeat(32);
        String b = "b".repeat(32);
        String c = "c".repeat(32);
        append(log, traced(request(ORDERS, event("1"), event("2"), event("3")), a, null)); // offsets 1-3
        append(log, request(ORDERS, event("4"))); // 4, outside any trace
        append(log, traced(request(ORDERS, event("5"), event("6")), b, null)); // 5-6
        append(log, traced(request(ORDERS, event("7")), a, null)); // 7, the first trace again
        append(log, traced(request(CLICKS, keyless("x")), c, null)); // another stream's offset 1
        append(log, traced(request(ORDERS, event("2")), c, null)); // only a duplicate: no offset of its own

        assertThat(log.traceIds(ORDERS.name(), 0, 7)).containsExactly(a, b, a);
        assertThat(log.traceIds(ORDERS.name(), 2, 5)).as("requests reaching over either end count")
                .containsExactly(a, b);
        assertThat(log.traceIds(ORDERS.name(), 3, 4)).as("a request outside any trace has none").isEmpty();
        assertThat(log.traceIds(ORDERS.name(), 6, 100)).containsExactly(a);
        assertThat(log.traceIds(CLICKS.name(), 0, 1)).containsExactly(c);
        assertThat(reopen(log).traceIds(ORDERS.name(), 0, 7)).as("durable").containsExactly(a, b, a);
    }

    private static AppendRequest traced(AppendRequest request, String traceId, String keyId) {
        return new AppendRequest(request.stream(), request.requestId(), request.receivedAtMicros(),
                request.schemaVersion(), request.entries(), keyId, keyId == null ? null : "shop", traceId);
    }

    private static AppendRequest renamed(AppendRequest request, String requestId) {
        return new AppendRequest(request.stream(), requestId, request.receivedAtMicros(), request.schemaVersion(),
                request.entries());
    }

    private static PublishRecord only(PublishRecord.Page page) {
        assertThat(page.records()).hasSize(1);
        assertThat(page.total()).isEqualTo(1);
        return page.records().get(0);
    }
}
