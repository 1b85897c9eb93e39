package dev.interlace.runtime.warehouse;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** What happened to one model in a run: it wrote its output, it failed, or it was skipped (a dependency failed). */
public enum ModelOutcome {
    SUCCEEDED, FAILED, SKIPPED;

    /** The form in JSON answers and the run history: {@code succeeded}, {@code failed}, {@code skipped}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The outcome whose {@link #wire()} form is {@code text}, if any. */
    public static Optional<ModelOutcome> fromWire(String text) {
        return Arrays.stream(values()).filter(outcome -> outcome.wire().equals(text)).findFirst();
    }
}
