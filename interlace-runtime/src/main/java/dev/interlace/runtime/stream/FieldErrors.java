package dev.interlace.runtime.stream;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects the errors of one event while it is decoded, so that every problem is reported, not just the first.
 *
 * <p>Bounded: every error is counted, but only the first {@link #MAX_LISTED} are kept, each field name and reason
 * cut to {@link FieldError#MAX_TEXT} characters. One event with a million undeclared fields must not cost a million
 * error objects, nor a response or a quarantine row listing them all.
 */
public final class FieldErrors {

    /** How many errors of one event are kept (and listed in responses and the quarantine). */
    public static final int MAX_LISTED = 100;

    private List<FieldError> errors;
    private int count;

    /** Records that {@code field} failed for {@code reason}. */
    public void add(String field, String reason) {
        count++;
        if (errors == null) {
            errors = new ArrayList<>(2);
        }
        if (errors.size() < MAX_LISTED) {
            errors.add(FieldError.bounded(field, reason));
        }
    }

    /** Whether no error was recorded. */
    public boolean isEmpty() {
        return count == 0;
    }

    /** The first {@link #MAX_LISTED} errors, in the order they were found. */
    public List<FieldError> list() {
        return errors == null ? List.of() : List.copyOf(errors);
    }

    /** How many errors were recorded, listed or not. */
    public int count() {
        return count;
    }
}
