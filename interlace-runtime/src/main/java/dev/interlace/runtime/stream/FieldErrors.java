package dev.interlace.runtime.stream;

import java.util.ArrayList;
import java.util.List;

/** Collects the errors of one event while it is decoded, so that every problem is reported, not just the first. */
public final class FieldErrors {

    private List<FieldError> errors;

    /** Records that {@code field} failed for {@code reason}. */
    public void add(String field, String reason) {
        if (errors == null) {
            errors = new ArrayList<>(2);
        }
        errors.add(new FieldError(field, reason));
    }

    /** Whether no error was recorded. */
    public boolean isEmpty() {
        return errors == null;
    }

    /** The errors in the order they were found. */
    public List<FieldError> list() {
        return errors == null ? List.of() : List.copyOf(errors);
    }
}
