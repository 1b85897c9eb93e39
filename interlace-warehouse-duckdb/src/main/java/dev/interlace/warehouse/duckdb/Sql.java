package dev.interlace.warehouse.duckdb;

/** SQL text helpers: every identifier the warehouse generates is quoted. */
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
}
