package dev.interlace.runtime.stream;

import java.util.Objects;

/**
 * Why one field of an event failed validation.
 *
 * @param field the field (column) name as sent
 * @param reason what is wrong and what is expected, in plain words
 */
public record FieldError(String field, String reason) {

    public FieldError {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(reason, "reason");
    }

    @Override
    public String toString() {
        return field + ": " + reason;
    }
}
