package dev.interlace.runtime.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.FieldErrors;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.Values;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;

/**
 * The canonical text of a typed key value, so that equal values deduplicate however they were written: {@code 49.5}
 * and {@code "49.50"} in a {@code decimal(12,2)} key, or the same instant written with different UTC offsets.
 */
public final class IdempotencyKeys {

    private static final JsonFactory JSON = new JsonFactory();

    private IdempotencyKeys() {}

    /**
     * The canonical text of a key value written as text (a query parameter, a command-line argument), read the way
     * a published event's key column is read, so that looking a key up finds what publishing stored.
     *
     * @throws IllegalArgumentException when the stream has no key, or {@code text} is not a value of its type
     */
    public static String canonical(StreamDescriptor stream, String text) {
        if (stream.idempotencyKey() == null) {
            throw new IllegalArgumentException("stream " + stream.name() + " has no idempotency key");
        }
        Column column = stream.columns().get(stream.idempotencyKeyIndex());
        FieldErrors errors = new FieldErrors();
        Object value;
        String json = switch (column.type()) {
            case BIGINT -> text;
            default -> "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + "\"";
        };
        try (JsonParser parser = JSON.createParser(json)) {
            parser.nextToken();
            value = switch (column.type()) {
                case STRING -> text;
                case BIGINT -> Values.readBigint(parser, column.name(), true, errors);
                case DECIMAL -> Values.readDecimal(parser, column.name(), column.precision(), column.scale(), true,
                        errors);
                case DATE -> Values.readDate(parser, column.name(), true, errors);
                case TIMESTAMP -> Values.readTimestamp(parser, column.name(), true, errors);
                default -> throw new IllegalArgumentException("keys of type " + column.type() + " are not supported");
            };
        } catch (IOException e) {
            throw new IllegalArgumentException("key " + text + " is not a valid " + column.type().canonicalName()
                    + " for column " + column.name());
        }
        if (!errors.isEmpty() || value == null) {
            throw new IllegalArgumentException("key " + text + " is not a valid " + column.type().canonicalName()
                    + " for column " + column.name() + ": " + errors.list());
        }
        return canonical(value);
    }

    /** The canonical text, or null when the event has no key value (it is then not deduplicated). */
    static String canonical(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof String text) {
            return text;
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (value instanceof Long || value instanceof Instant || value instanceof LocalDate) {
            return value.toString();
        }
        throw new IllegalArgumentException("type " + value.getClass().getName() + " cannot be an idempotency key");
    }
}
