package dev.interlace.runtime.stream;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;

/**
 * An object in the payload names the same field twice. Such a payload is ambiguous, so it is refused as a whole
 * rather than resolved by picking one of the values.
 */
public final class DuplicateFieldException extends JsonParseException {

    private static final long serialVersionUID = 1L;

    private final String field;

    public DuplicateFieldException(JsonParser parser, String field) {
        super(parser, "duplicate field \"" + field + "\" in one object");
        this.field = field;
    }

    /** The field named twice. */
    public String field() {
        return field;
    }
}
