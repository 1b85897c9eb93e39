package dev.interlace.runtime.stream;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Decodes one event object of a stream into its typed record. The annotation processor generates one per stream,
 * specialised to the schema; it is the single place where the decoding rules apply, at publish time (validation)
 * and at flush time (coercion).
 *
 * @param <T> the stream's generated event record
 */
public interface EventDecoder<T extends StreamEvent> {

    /**
     * Decodes the object whose {@code START_OBJECT} is the parser's current token, consuming it up to and including
     * its {@code END_OBJECT}.
     *
     * @return the typed event, or every field error found
     * @throws DuplicateFieldException when an object in the event names a field twice
     * @throws IOException when the input is not well-formed JSON
     */
    DecodeResult<T> decode(JsonParser parser) throws IOException;

    /**
     * Decodes a complete JSON document that must be exactly one object.
     *
     * @throws NotAnObjectException when the document is another kind of JSON value
     * @throws DuplicateFieldException when an object in the event names a field twice
     * @throws IOException when the input is not well-formed JSON or has content after the object
     */
    default DecodeResult<T> decode(byte[] json) throws IOException {
        try (JsonParser parser = EventJson.FACTORY.createParser(json)) {
            JsonToken first = parser.nextToken();
            if (first != JsonToken.START_OBJECT) {
                throw new NotAnObjectException(parser, Values.describe(first));
            }
            DecodeResult<T> result = decode(parser);
            EventJson.requireEnd(parser);
            return result;
        }
    }

    /** {@link #decode(byte[])} for JSON text. */
    default DecodeResult<T> decode(String json) throws IOException {
        return decode(json.getBytes(StandardCharsets.UTF_8));
    }
}
