package dev.interlace.runtime.stream;

import java.util.Objects;

/**
 * Why one field of an event failed validation.
 *
 * @param field the field (column) name as sent
 * @param reason what is wrong and what is expected, in plain words
 */
public record FieldError(String field, String reason) {

    /** The longest field name or reason kept, in characters; longer ones are cut and end with "…". */
    public static final int MAX_TEXT = 256;

    public FieldError {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(reason, "reason");
    }

    /** An error whose field name and reason are cut to {@link #MAX_TEXT} characters. */
    public static FieldError bounded(String field, String reason) {
        return new FieldError(truncate(field), truncate(reason));
    }

    /** {@code text} cut to {@link #MAX_TEXT} characters (never splitting a surrogate pair), "…" marking a cut. */
    public static String truncate(String text) {
        if (text == null || text.length() <= MAX_TEXT) {
            return text;
        }
        int end = MAX_TEXT - 1;
        if (Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(0, end) + "\u2026";
    }

    @Override
    public String toString() {
        return field + ": " + reason;
    }
}
