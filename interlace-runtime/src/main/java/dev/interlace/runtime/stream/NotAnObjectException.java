package dev.interlace.runtime.stream;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;

/** A payload that should be one JSON object is another JSON value (an array, a string, a number...). */
public final class NotAnObjectException extends JsonParseException {

    private static final long serialVersionUID = 1L;

    public NotAnObjectException(JsonParser parser, String found) {
        super(parser, "expected a JSON object, got " + found);
    }
}
