package dev.interlace.log.kafka;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.stream.FieldError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * How the log's records look on Kafka: one codec for every stored format.
 *
 * <p>An accepted event: key = its idempotency key (UTF-8, absent without one), value = the payload as sent, headers
 * {@code offset} (the Interlace offset, 8 bytes), {@code last} (the last offset of its request: readers see a
 * request once all of it is read), {@code request}, {@code at} (arrival, epoch microseconds) and
 * {@code schema}. A quarantined event: value = the payload, headers {@code seq}, {@code request}, {@code at},
 * {@code schema}, {@code errors} (JSON). A publish record: JSON of {@link PublishRecord}. On {@code _state}: JSON of
 * {@link GroupState} under {@code group/<stream>/<group>}, of {@link TrimPoint} under {@code trim/<stream>}. A key
 * block (one per transaction that accepted keyed events): value = each new key's offset and hash (16 bytes a key),
 * headers {@code last} (the newest key's offset), {@code at} (when its request arrived) and {@code covers_after} (the
 * stream's head before the transaction: the blocks cover every key after it).
 */
final class Codec {

    static final ObjectMapper JSON = new ObjectMapper();

    static final String OFFSET = "offset";
    static final String LAST = "last";
    static final String SEQ = "seq";
    static final String REQUEST = "request";
    static final String AT = "at";
    static final String SCHEMA = "schema";
    static final String ERRORS = "errors";
    static final String COVERS_AFTER = "covers_after";

    private Codec() {}

    /**
     * A consumer group's state as the sequencer of its stream last decided it; {@code secret} and {@code keys} are
     * absent (null) in records written before groups had owners, {@code holderKey} in records written before leases
     * were their key's (see {@link Leases.Group}).
     */
    record GroupState(String stream, String group, long committedOffset, long token, String holder,
            String holderKey, long expiresAtMicros, String secret, List<String> keys) {

        static GroupState of(Leases.Group group) {
            return new GroupState(group.stream(), group.group(), group.committedOffset(), group.token(),
                    group.holder(), group.holderKey(), group.expiresAtMicros(), group.secret(), group.keys());
        }

        Leases.Group toGroup() {
            return new Leases.Group(stream, group, committedOffset, token, holder, holderKey, expiresAtMicros, secret,
                    keys);
        }
    }

    /** Everything of {@code stream} up to and including {@code throughOffset} is trimmed. */
    record TrimPoint(String stream, long throughOffset) {}

    /**
     * Quarantined entry {@code seq} of {@code stream} was replayed to {@code offset} of partition {@code partition}
     * (0 for a stream of one partition; marks written before partitions have none, and read as 0) by the replay
     * request {@code requestId}, committed at {@code atMicros}: written once, in the transaction that appended its
     * event, by the sequencer of that partition.
     */
    record ReplayMark(String stream, long seq, long offset, String requestId, long atMicros, int partition) {}

    static Headers eventHeaders(long offset, long lastOfRequest, String requestId, long atMicros,
            String schemaVersion) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(OFFSET, longBytes(offset));
        headers.add(LAST, longBytes(lastOfRequest));
        headers.add(REQUEST, text(requestId));
        headers.add(AT, longBytes(atMicros));
        headers.add(SCHEMA, text(schemaVersion));
        return headers;
    }

    static Headers keyBlockHeaders(long lastOffset, long atMicros, long coversAfter) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(LAST, longBytes(lastOffset));
        headers.add(AT, longBytes(atMicros));
        headers.add(COVERS_AFTER, longBytes(coversAfter));
        return headers;
    }

    static Headers quarantineHeaders(long seq, String requestId, long atMicros, String schemaVersion,
            List<FieldError> errors) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(SEQ, longBytes(seq));
        headers.add(REQUEST, text(requestId));
        headers.add(AT, longBytes(atMicros));
        headers.add(SCHEMA, text(schemaVersion));
        ArrayNode array = JSON.createArrayNode();
        for (FieldError error : errors) {
            array.addObject().put("field", error.field()).put("reason", error.reason());
        }
        headers.add(ERRORS, text(array.toString()));
        return headers;
    }

    /**
     * Builds the entries of one read of accepted events: one pass over each record's headers (the last of a name
     * counts, as in lastHeader), matched by their names' lengths before their text, and the request id and schema
     * version made into strings once per run of records that share them rather than once per record: a request's
     * events follow each other in the topic (a batch of 1 000 events is one request), and a stream has few schema
     * versions, so a backlog's read allocates one string per request instead of two per event.
     */
    static final class EntryDecoder {
        private final String stream;
        private byte[] requestBytes;
        private String request;
        private byte[] schemaBytes;
        private String schema;

        EntryDecoder(String stream) {
            this.stream = stream;
        }

        /** The entry of {@code record}, whose {@code offset} header (the last of that name) says {@code offset}. */
        LogEntry entry(ConsumerRecord<byte[], byte[]> record, long offset) {
            long at = 0;
            byte[] requestValue = null;
            byte[] schemaValue = null;
            for (Header header : record.headers()) {
                String key = header.key();
                switch (key.length()) {
                    case 2 -> {
                        if (key.equals(AT)) {
                            at = longValue(header);
                        }
                    }
                    case 6 -> {
                        if (key.equals(SCHEMA)) {
                            schemaValue = header.value();
                        }
                    }
                    case 7 -> {
                        if (key.equals(REQUEST)) {
                            requestValue = header.value();
                        }
                    }
                    default -> { }
                }
            }
            if (!java.util.Arrays.equals(requestValue, requestBytes)) {
                requestBytes = requestValue;
                request = text(requestValue);
            }
            if (!java.util.Arrays.equals(schemaValue, schemaBytes)) {
                schemaBytes = schemaValue;
                schema = text(schemaValue);
            }
            return new LogEntry(stream, offset, request, at, schema, record.value());
        }
    }

    /** A quarantined event as stored, with {@code replay}: where it was replayed to, or null. */
    static QuarantineEntry quarantined(String stream, ConsumerRecord<byte[], byte[]> record,
            QuarantineEntry.Replay replay) {
        Headers headers = record.headers();
        return new QuarantineEntry(stream, longHeader(headers, SEQ), textHeader(headers, REQUEST),
                longHeader(headers, AT), textHeader(headers, SCHEMA), record.value(), textHeader(headers, ERRORS),
                replay);
    }

    /**
     * A publish record's JSON, the bytes {@link #json(Object)} writes for it (the same fields in the same order),
     * written field by field: one goes on the topic with every publish, and the generic writer's reflection cost a
     * sequencer several microseconds a record.
     */
    static byte[] json(PublishRecord record) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(320);
        try (com.fasterxml.jackson.core.JsonGenerator out = JSON.getFactory().createGenerator(bytes)) {
            out.writeStartObject();
            out.writeStringField("requestId", record.requestId());
            out.writeStringField("stream", record.stream());
            out.writeNumberField("accepted", record.accepted());
            out.writeNumberField("deduplicated", record.deduplicated());
            out.writeNumberField("quarantined", record.quarantined());
            out.writeNumberField("firstOffset", record.firstOffset());
            out.writeNumberField("lastOffset", record.lastOffset());
            if (record.duplicateOffsets() == null) {
                out.writeNullField("duplicateOffsets");
            } else {
                out.writeArrayFieldStart("duplicateOffsets");
                for (long offset : record.duplicateOffsets()) {
                    out.writeNumber(offset);
                }
                out.writeEndArray();
            }
            out.writeNumberField("firstSeq", record.firstSeq());
            out.writeNumberField("lastSeq", record.lastSeq());
            out.writeNumberField("receivedAtMicros", record.receivedAtMicros());
            out.writeNumberField("committedAtMicros", record.committedAtMicros());
            out.writeStringField("keyId", record.keyId());
            out.writeStringField("keyName", record.keyName());
            out.writeStringField("traceId", record.traceId());
            out.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The high half of every publish record key's UUID this process makes: random, version 4. */
    private static final long PUBLISH_KEY_HIGH = new java.security.SecureRandom().nextLong() & ~0xF000L | 0x4000L;
    /** The low half's next value (62 bits; the variant's two bits are added): from a random start, counting up. */
    private static final java.util.concurrent.atomic.AtomicLong PUBLISH_KEY_LOW =
            new java.util.concurrent.atomic.AtomicLong(new java.security.SecureRandom().nextLong());

    /**
     * A new publish record's key on {@code _publishes}, {@code <stream>/<uuid>}: unique (a random half drawn once per
     * process and a counter), without drawing from the system's random source for each record as
     * {@code UUID.randomUUID} does.
     */
    static String publishKey(String stream) {
        long low = PUBLISH_KEY_LOW.getAndIncrement() & 0x3FFF_FFFF_FFFF_FFFFL | 0x8000_0000_0000_0000L;
        return stream + "/" + new java.util.UUID(PUBLISH_KEY_HIGH, low);
    }

    static byte[] json(Object value) {
        try {
            return JSON.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static <T> T json(byte[] bytes, Class<T> type) {
        try {
            return JSON.readValue(bytes, type);
        } catch (IOException e) {
            throw new UncheckedIOException("a record of the log cannot be read as " + type.getSimpleName(), e);
        }
    }

    static String groupKey(String stream, String group) {
        return "group/" + stream + "/" + group;
    }

    static String trimKey(String stream) {
        return "trim/" + stream;
    }

    static String replayKey(String stream, long seq) {
        return "replay/" + stream + "/" + seq;
    }

    static byte[] text(String value) {
        return value == null ? null : value.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] value) {
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }

    static long longHeader(Headers headers, String name) {
        Header header = headers.lastHeader(name);
        return header == null ? 0 : longValue(header);
    }

    private static long longValue(Header header) {
        byte[] value = header.value();
        long result = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            result = result << 8 | (value[i] & 0xFF);
        }
        return result;
    }

    static String textHeader(Headers headers, String name) {
        Header header = headers.lastHeader(name);
        return header == null ? null : text(header.value());
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }
}
