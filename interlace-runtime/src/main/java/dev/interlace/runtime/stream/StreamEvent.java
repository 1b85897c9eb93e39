package dev.interlace.runtime.stream;

/**
 * A decoded event of a stream: the generated record of each stream implements this so the runtime can read its
 * values by column position without reflection.
 */
public interface StreamEvent {

    /**
     * The typed value of the column at {@code index} in declaration order: {@code String}, {@code Long},
     * {@code Double}, {@code java.math.BigDecimal}, {@code Boolean}, {@code java.time.Instant},
     * {@code java.time.LocalDate}, or for json columns the value as compact JSON text; {@code null} when absent.
     */
    Object value(int index);
}
