package dev.interlace.runtime.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.stream.StoredJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A JSON answer holding an array of stored events ({@code T}: log entries, quarantined entries), written part by part: the fields before the array, the events
 * batch by batch as they are read from the log, then the fields after it. Only one batch is held at a time — its
 * payloads ({@link InflightBytes#STREAMED_COPIES}) and the part being written ({@link HttpAnswer.Part#MAX_BYTES}),
 * reserved before the batch is read and given back once its last part is written to the socket — so a page of many
 * megabytes to a slow reader holds about one batch of the budget, not three copies of the page.
 *
 * <p>The first batch is read before the answer starts (a route refuses {@code 503 overloaded} when even its first
 * event does not fit), the others as the reader takes the parts: when the budget or the page slots refuse one, the
 * array ends there and the fields after it say so (a page's {@code next_after} says where to go on), as a page built
 * whole ended early. A batch that cannot be read at all fails the answer, which the transport then cuts.
 */
final class StreamedPage<T> implements HttpAnswer.Parts {

    /** Stored bytes one batch holds (it always holds one event, however large). */
    static final long BATCH_BYTES = 1L << 20;

    /** Reads the batch after the last event written; empty at the end of the page (or when refused). */
    @FunctionalInterface
    interface Batches<T> {
        List<T> next(T last, AnswerBudget budget) throws IOException, InterruptedException;
    }

    /** The fields after the array, given how many events were written and the last of them (null for none). */
    @FunctionalInterface
    interface Closing<T> {
        ObjectNode fields(int count, T last);
    }

    /**
     * How an event is written: the fields before its stored payload, which is written as it is under {@code event},
     * and the fields after it.
     */
    interface Item<T> {
        ObjectNode before(T item);

        byte[] payload(T item);

        ObjectNode after(T item);

        /**
         * The item without its payload: what the page keeps of the last event written (where to go on from), so that
         * a payload whose reservation was given back is not held by the page any longer.
         */
        T withoutPayload(T item);
    }

    private final HttpRequest request;
    private final Batches<T> batches;
    private final Closing<T> closing;
    private final Item<T> items;
    private final Executor executor;
    private final ArrayDeque<ByteBuffer> pending = new ArrayDeque<>();
    private String requestId;
    private long batchReserved;
    private T last;
    private int count;
    /** The last batch was read: what is pending is the last of the events. */
    private boolean arrayEnded;
    private boolean closingQueued;
    private boolean closed;

    /**
     * @param opening the answer's fields before the array, ending with the array's name (it is opened here)
     * @param first the first batch, read (and reserved, by {@code budget}) before the answer starts
     * @param firstIsAll whether the first batch is the whole page and smaller than {@link #BATCH_BYTES}: the answer
     *     is then sent whole, with a {@code Content-Length}, and holds the copies of an answer built whole, which are
     *     reserved here (without refusing: they are less than three batches)
     */
    StreamedPage(HttpRequest request, ObjectNode opening, String arrayName, Item<T> items, List<T> first,
            boolean firstIsAll, AnswerBudget budget, Batches<T> batches, Closing<T> closing, Executor executor) {
        this.request = request;
        this.items = items;
        this.batches = batches;
        this.closing = closing;
        this.executor = executor;
        String fields = write(opening);
        String open = (fields.length() <= 2 ? "{" : fields.substring(0, fields.length() - 1) + ",")
                + HttpResponses.JSON.valueToTree(arrayName).toString() + ":[";
        pending.add(ByteBuffer.wrap(open.getBytes(StandardCharsets.UTF_8)));
        batchReserved = budget.takeReserved();
        if (request.reserve(HttpAnswer.Part.MAX_BYTES)) {
            batchReserved += HttpAnswer.Part.MAX_BYTES;
        }
        render(first);
        if (firstIsAll) {
            long whole = payloadBytes(first, items) * (InflightBytes.ANSWER_COPIES - InflightBytes.STREAMED_COPIES);
            if (request.reserve(whole)) {
                batchReserved += whole;
            }
            arrayEnded = true;
        }
    }

    /** A 200 JSON answer of this page. */
    HttpAnswer answer() {
        return HttpAnswer.streamed(200, "application/json", this);
    }

    @Override
    public boolean whole() {
        return arrayEnded;
    }

    @Override
    public void requestId(String requestId) {
        this.requestId = requestId;
    }

    @Override
    public CompletableFuture<HttpAnswer.Part> next() {
        if (!pending.isEmpty()) {
            return CompletableFuture.completedFuture(part());
        }
        if (arrayEnded) {
            if (closingQueued || closed) {
                return CompletableFuture.completedFuture(null);
            }
            queueClosing();
            return CompletableFuture.completedFuture(part());
        }
        return CompletableFuture.supplyAsync(() -> {
            AnswerBudget budget = new AnswerBudget(request, InflightBytes.STREAMED_COPIES);
            List<T> batch = List.of();
            if (request.reserve(HttpAnswer.Part.MAX_BYTES)) {
                try {
                    batch = batches.next(last, budget);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted reading the next events", e);
                } catch (Refusal busy) { // no page slot freed in time: the page ends here
                    batch = List.of();
                } finally {
                    batchReserved = budget.takeReserved() + HttpAnswer.Part.MAX_BYTES;
                }
            }
            render(batch);
            if (arrayEnded && pending.isEmpty()) {
                queueClosing();
            }
            return part();
        }, executor);
    }

    @Override
    public void close() {
        closed = true;
        pending.clear();
        giveBack();
    }

    /** The next part: slices of what is pending, up to {@link HttpAnswer.Part#MAX_BYTES}. */
    private HttpAnswer.Part part() {
        List<ByteBuffer> slices = new ArrayList<>();
        int room = HttpAnswer.Part.MAX_BYTES;
        while (room > 0 && !pending.isEmpty()) {
            ByteBuffer head = pending.peek();
            if (head.remaining() <= room) {
                room -= head.remaining();
                slices.add(pending.poll());
            } else {
                ByteBuffer slice = head.slice();
                slice.limit(room);
                head.position(head.position() + room);
                slices.add(slice);
                room = 0;
            }
        }
        boolean batchDone = pending.isEmpty();
        return new HttpAnswer.Part(slices, batchDone ? this::giveBack : () -> { });
    }

    private void giveBack() {
        long reserved = batchReserved;
        batchReserved = 0;
        request.hold().giveBack(reserved);
    }

    /** Queues a batch's events as JSON; an empty batch ends the array and queues the closing fields. */
    private void render(List<T> batch) {
        if (closed) {
            return;
        }
        for (T entry : batch) {
            String before = write(items.before(entry));
            String opening = (count == 0 ? "" : ",")
                    + (before.length() <= 2 ? "{" : before.substring(0, before.length() - 1) + ",") + "\"event\":";
            pending.add(ByteBuffer.wrap(opening.getBytes(StandardCharsets.UTF_8)));
            byte[] payload = items.payload(entry);
            pending.add(ByteBuffer.wrap(payload != null && StoredJson.isOneJsonValue(payload) ? payload
                    : write(payload == null ? null : StoredJson.value(payload)).getBytes(StandardCharsets.UTF_8)));
            String after = write(items.after(entry));
            pending.add(ByteBuffer.wrap((after.length() <= 2 ? "}" : "," + after.substring(1))
                    .getBytes(StandardCharsets.UTF_8)));
            count++;
            last = items.withoutPayload(entry);
        }
        if (batch.isEmpty()) {
            arrayEnded = true;
        }
    }

    /** Queues the end of the array and the fields after it, with the request id. */
    private void queueClosing() {
        closingQueued = true;
        ObjectNode fields = closing.fields(count, last);
        if (requestId != null && !fields.has("request_id")) {
            fields.put("request_id", requestId);
        }
        String after = write(fields);
        String close = after.length() <= 2 ? "]}" : "]," + after.substring(1);
        pending.add(ByteBuffer.wrap(close.getBytes(StandardCharsets.UTF_8)));
    }

    /** Stored bytes that {@code entries} carry. */
    static <T> long payloadBytes(List<T> entries, Item<T> items) {
        long bytes = 0;
        for (T entry : entries) {
            byte[] payload = items.payload(entry);
            bytes += payload == null ? 0 : payload.length;
        }
        return bytes;
    }

    /** Log entries as pages show them: offset, request id and arrival, then the event. */
    static final Item<LogEntry> LOG_ENTRIES = new Item<>() {
        @Override
        public ObjectNode before(LogEntry entry) {
            return HttpResponses.JSON.createObjectNode().put("offset", entry.offset())
                    .put("request_id", entry.requestId())
                    .put("ingested_at", HttpResponses.time(entry.ingestedAtMicros()));
        }

        @Override
        public byte[] payload(LogEntry entry) {
            return entry.payload();
        }

        @Override
        public ObjectNode after(LogEntry entry) {
            return HttpResponses.JSON.createObjectNode();
        }

        @Override
        public LogEntry withoutPayload(LogEntry entry) {
            return new LogEntry(entry.stream(), entry.offset(), entry.requestId(), entry.ingestedAtMicros(),
                    entry.schemaVersion(), null);
        }
    };

    private static String write(Object node) {
        try {
            return HttpResponses.JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON answer: " + e.getMessage(), e);
        }
    }
}
