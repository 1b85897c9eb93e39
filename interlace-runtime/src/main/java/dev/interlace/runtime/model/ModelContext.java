package dev.interlace.runtime.model;

import java.sql.Connection;
import java.util.Map;

/**
 * What a {@link JavaModel} gets for one run.
 *
 * @param connection a warehouse (DuckDB) connection with auto-commit off; {@code ((DuckDBConnection) connection)
 *     .createAppender(schema, table)} gives the fast Appender
 * @param schema the model's schema
 * @param table the model's table name, unquoted
 * @param deltas for incremental models: per stream it reads, the offsets to process; empty for table models
 */
public record ModelContext(Connection connection, String schema, String table, Map<String, Delta> deltas) {

    /** {@code "schema"."table"}, quoted for SQL. */
    public String qualifiedTable() {
        return "\"" + schema.replace("\"", "\"\"") + "\".\"" + table.replace("\"", "\"\"") + "\"";
    }

    /**
     * The rows of one stream to process: {@code _offset} in ({@code afterOffset}, {@code throughOffset}].
     */
    public record Delta(String stream, long afterOffset, long throughOffset) {

        /** A SQL condition selecting exactly these rows, e.g. {@code _offset > 10 AND _offset <= 42}. */
        public String condition() {
            return "_offset > " + afterOffset + " AND _offset <= " + throughOffset;
        }
    }
}
