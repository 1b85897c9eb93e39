package dev.interlace.runtime.stream;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The outcome of decoding one event object: the typed event, or every error found in it.
 *
 * @param <T> the stream's generated event record
 */
public sealed interface DecodeResult<T extends StreamEvent> {

    /**
     * The event matched the schema.
     *
     * @param event the typed event
     * @param undeclaredFields for streams that evolve: fields not in the declared schema, name to compact JSON text,
     *     in the order sent; always empty for other streams (undeclared fields are errors there)
     */
    record Valid<T extends StreamEvent>(T event, Map<String, String> undeclaredFields) implements DecodeResult<T> {
        public Valid {
            Objects.requireNonNull(event, "event");
            // Almost every event has none: no copy for those (decoding runs at publish and again at flush).
            undeclaredFields = undeclaredFields.isEmpty() ? Map.of()
                    : Collections.unmodifiableMap(new LinkedHashMap<>(undeclaredFields));
        }
    }

    /**
     * The event did not match the schema.
     *
     * @param errors the failing fields, in the order found (never empty; at most {@link FieldErrors#MAX_LISTED})
     * @param errorCount how many errors were found in all, listed or not
     */
    record Invalid<T extends StreamEvent>(List<FieldError> errors, int errorCount) implements DecodeResult<T> {
        public Invalid {
            errors = List.copyOf(errors);
            if (errors.isEmpty()) {
                throw new IllegalArgumentException("an invalid event has at least one error");
            }
            if (errorCount < errors.size()) {
                throw new IllegalArgumentException("errorCount " + errorCount + " is less than the errors listed");
            }
        }

        /** Every error listed (decoders generated before errors were counted). */
        public Invalid(List<FieldError> errors) {
            this(errors, errors.size());
        }

        /** Whether errors were found beyond those listed. */
        public boolean truncated() {
            return errorCount > errors.size();
        }
    }
}
