package dev.interlace.runtime.config;

import java.util.Locale;

/**
 * Where {@code POST /sql} queries run ({@code --sql-isolation}).
 */
public enum SqlIsolation {
    /**
     * In a query process of their own, a local replica of the warehouse that the server kills at a query's deadline:
     * a computation DuckDB cannot interrupt ends with the process, and the server's flusher, publishes and health
     * never share a core's time with it past the deadline.
     */
    PROCESS,
    /**
     * In the server's own warehouse, cancelled between vectors of rows: an expression that runs long within one
     * vector keeps running, and its query slot held, past the deadline.
     */
    INLINE;

    /** The isolation {@code text} names ({@code process} or {@code inline}, in any case), empty for another text. */
    public static java.util.Optional<SqlIsolation> parse(String text) {
        for (SqlIsolation isolation : values()) {
            if (isolation.wire().equalsIgnoreCase(text)) {
                return java.util.Optional.of(isolation);
            }
        }
        return java.util.Optional.empty();
    }

    /** The form of the flag: {@code process}, {@code inline}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
