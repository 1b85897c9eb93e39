package dev.interlace.runtime.warehouse;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Where a model run is: waiting for the run thread, running, or finished one way or the other. */
public enum RunStatus {
    QUEUED, RUNNING, SUCCEEDED, FAILED;

    /** The form in JSON answers, filters and the run history: {@code queued}, {@code running}, …. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The status whose {@link #wire()} form is {@code text}, if any. */
    public static Optional<RunStatus> fromWire(String text) {
        return Arrays.stream(values()).filter(status -> status.wire().equals(text)).findFirst();
    }

    /** Every wire form, in declaration order (for error messages that list what is accepted). */
    public static List<String> wireForms() {
        return Arrays.stream(values()).map(RunStatus::wire).toList();
    }
}
