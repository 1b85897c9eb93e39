package dev.interlace.runtime.stream;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.JsonParseException;
import java.io.IOException;

/** The one JSON factory used to read event payloads, with the limits every payload is held to. */
public final class EventJson {

    /** How deeply objects and arrays may nest inside one payload. */
    public static final int MAX_NESTING_DEPTH = 128;

    /**
     * Factory for event parsers. Duplicate fields are detected by the decoders themselves (they report the field
     * by type, not by message text), so Jackson's own duplicate detection stays off.
     */
    public static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build())
            .build();

    private EventJson() {}

    /** Fails unless the parser has nothing left after the value it just finished. */
    static void requireEnd(JsonParser parser) throws IOException {
        JsonToken trailing = parser.nextToken();
        if (trailing != null) {
            throw new JsonParseException(parser, "unexpected content after the JSON value: " + trailing);
        }
    }
}
