package dev.interlace.warehouse.duckdb;

import dev.interlace.runtime.ops.EpochMicros;

/** SQL helpers: every identifier the warehouse generates is quoted; every stored time is UTC. */
final class Sql {

    private Sql() {}

    /** {@code "name"}, with embedded quotes doubled. */
    static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    /** {@code streams."name"}. */
    static String streamsTable(String table) {
        return "streams." + quote(table);
    }

    /**
     * Now as epoch microseconds, for {@code make_timestamp(?)}: stored times are UTC whatever the session time zone
     * ({@code current_timestamp} into a {@code TIMESTAMP} column would be local wall-clock time).
     */
    static long nowMicros() {
        return EpochMicros.now(java.time.Clock.systemUTC());
    }
}
