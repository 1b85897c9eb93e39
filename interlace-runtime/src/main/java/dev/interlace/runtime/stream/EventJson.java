package dev.interlace.runtime.stream;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.IOException;

/** The one JSON factory used to read event payloads, with the limits every payload is held to. */
public final class EventJson {

    /** How deeply objects and arrays may nest inside one payload. */
    public static final int MAX_NESTING_DEPTH = 128;

    /** The most digits (with sign, point and exponent) one number may have. */
    public static final int MAX_NUMBER_LENGTH = 1000;

    /** The most characters one field name may have. */
    public static final int MAX_NAME_LENGTH = 50_000;

    /**
     * Factory for event parsers. Duplicate fields are detected by the decoders themselves (they report the field
     * by type, not by message text), so Jackson's own duplicate detection stays off.
     */
    public static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_NESTING_DEPTH)
                    .maxNumberLength(MAX_NUMBER_LENGTH)
                    .maxNameLength(MAX_NAME_LENGTH)
                    .build())
            .build();

    private EventJson() {}

    /**
     * Names the limit a payload went past, in the words of the API ("JSON nested deeper than 128 levels"), with
     * where the parser stood. Jackson's constraint errors carry no location and name Java methods; the wording is
     * chosen from its message, which only ever selects the text of a 400, never a status.
     */
    public static String limitExceeded(StreamConstraintsException e, JsonParser parser) {
        String message = String.valueOf(e.getOriginalMessage());
        String limit;
        if (message.startsWith("Document nesting depth")) {
            limit = "JSON nested deeper than " + MAX_NESTING_DEPTH + " levels (the limit for one event)";
        } else if (message.startsWith("Number value length")) {
            limit = "a number longer than " + MAX_NUMBER_LENGTH + " digits (the limit); send longer numbers"
                    + " as strings";
        } else if (message.startsWith("Name length")) {
            limit = "a field name longer than " + MAX_NAME_LENGTH + " characters (the limit)";
        } else {
            limit = "a value past a parser limit: " + message;
        }
        JsonLocation at = parser == null ? null : parser.currentLocation();
        return at == null ? limit : limit + " at line " + at.getLineNr() + ", column " + at.getColumnNr();
    }

    /** Fails unless the parser has nothing left after the value it just finished. */
    static void requireEnd(JsonParser parser) throws IOException {
        JsonToken trailing = parser.nextToken();
        if (trailing != null) {
            throw new JsonParseException(parser, "unexpected content after the JSON value: " + trailing);
        }
    }
}
