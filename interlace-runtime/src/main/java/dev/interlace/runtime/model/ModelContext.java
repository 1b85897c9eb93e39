package dev.interlace.runtime.model;

import java.sql.Connection;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a {@link JavaModel} gets for one run.
 *
 * @param connection a warehouse (DuckDB) connection with auto-commit off; {@code ((DuckDBConnection) connection)
 *     .createAppender(schema, table)} gives the fast Appender
 * @param schema the model's schema
 * @param table the model's table name, unquoted
 * @param deltas for incremental models: per stream it reads, the offsets to process (per partition for a stream of
 *     several partitions); empty for table models
 */
public record ModelContext(Connection connection, String schema, String table, Map<String, Delta> deltas) {

    /** {@code "schema"."table"}, quoted for SQL. */
    public String qualifiedTable() {
        return "\"" + schema.replace("\"", "\"\"") + "\".\"" + table.replace("\"", "\"\"") + "\"";
    }

    /**
     * The rows of one stream to process: {@code _offset} in ({@code afterOffset}, {@code throughOffset}]. For a stream
     * of several partitions, whose offsets are per partition, one such range per partition ({@code partitions}, by
     * partition; {@code afterOffset} and {@code throughOffset} are then partition 0's): each partition's flushes move
     * its own range, and the model's watermark of each moves in the transaction of its output, so every event is
     * processed once whatever the order the partitions flush in. {@link #condition()} covers them all.
     *
     * @param stream the stream (the table {@code streams.<stream>})
     * @param partitions for a stream of several partitions, each partition's range; empty otherwise
     */
    public record Delta(String stream, long afterOffset, long throughOffset, SortedMap<Integer, Range> partitions) {

        public Delta {
            partitions = Collections.unmodifiableSortedMap(new TreeMap<>(partitions));
        }

        /** The rows of a stream of one partition. */
        public Delta(String stream, long afterOffset, long throughOffset) {
            this(stream, afterOffset, throughOffset, new TreeMap<>());
        }

        /**
         * A SQL condition selecting exactly these rows, e.g. {@code _offset > 10 AND _offset <= 42}; for a stream of
         * several partitions {@code (_partition = 0 AND _offset > 10 AND _offset <= 42) OR (_partition = 1 AND ...)}.
         */
        public String condition() {
            if (partitions.isEmpty()) {
                return range(afterOffset, throughOffset);
            }
            StringBuilder condition = new StringBuilder();
            partitions.forEach((partition, range) -> condition.append(condition.length() == 0 ? "(" : " OR (")
                    .append("_partition = ").append(partition).append(" AND ")
                    .append(range(range.afterOffset(), range.throughOffset())).append(')'));
            return condition.toString();
        }

        private static String range(long after, long through) {
            return "_offset > " + after + " AND _offset <= " + through;
        }
    }

    /** One partition's rows to process: {@code _offset} in ({@code afterOffset}, {@code throughOffset}]. */
    public record Range(long afterOffset, long throughOffset) {}
}
