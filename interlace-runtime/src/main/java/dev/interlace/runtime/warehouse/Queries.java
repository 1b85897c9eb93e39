package dev.interlace.runtime.warehouse;

import java.util.List;

/**
 * Read-only access to the warehouse: ad-hoc queries ({@code POST /sql}) and the database's own parser applied to
 * model SQL (which tables a model reads, and reading them from other relations).
 */
public interface Queries {

    /**
     * Runs one query that cannot change the warehouse, whatever its text: the database's own parser must classify it
     * as exactly one query (no statement that writes, attaches, sets or commits, and none nested in it), and it runs
     * in a read-only transaction that is always rolled back, on connections used only for these queries. The answer
     * holds at most {@code limits.maxRows()} rows and about {@code limits.maxAnswerBytes()} bytes of values, each
     * row's bytes granted by {@code allowance} before the row is kept.
     *
     * @throws dev.interlace.runtime.sql.QueryException refused ({@code INVALID_SQL}, {@code NOT_READ_ONLY}), failed
     *     with the database's message ({@code FAILED}), cancelled at {@code limits.timeout()} ({@code TIMED_OUT}) or
     *     stopped when {@code allowance} refused its rows ({@code OVERLOADED})
     */
    dev.interlace.runtime.sql.QueryResult query(String sql, dev.interlace.runtime.sql.QueryLimits limits,
            dev.interlace.runtime.sql.RowAllowance allowance);

    /** A query whose rows are all granted: for callers that bound what they hold otherwise. */
    default dev.interlace.runtime.sql.QueryResult query(String sql, dev.interlace.runtime.sql.QueryLimits limits) {
        return query(sql, limits, dev.interlace.runtime.sql.RowAllowance.UNLIMITED);
    }

    /**
     * Cancels every query running now and refuses every later one, each with
     * {@link dev.interlace.runtime.sql.QueryException.Reason#SHUTTING_DOWN}; called when the server shuts down, so
     * that a long query is answered at once instead of holding the shutdown until its time limit.
     */
    void stopQueries();

    /** {@link #query(String, dev.interlace.runtime.sql.QueryLimits)} with the default answer size bound. */
    default dev.interlace.runtime.sql.QueryResult query(String sql, int maxRows, java.time.Duration timeout) {
        dev.interlace.runtime.sql.QueryLimits defaults = dev.interlace.runtime.sql.QueryLimits.DEFAULTS;
        return query(sql, new dev.interlace.runtime.sql.QueryLimits(maxRows, defaults.maxAnswerBytes(), timeout,
                defaults.maxConcurrent()));
    }

    /**
     * The tables a SELECT reads, found by the database's own parser (joins, CTEs, subqueries); CTE names are left
     * out. Unqualified names have an empty schema.
     *
     * @throws dev.interlace.runtime.sql.QueryException when the text is not one SELECT the parser accepts
     */
    List<TableReference> tablesReadBy(String select);

    /**
     * Rewrites a SELECT so that each table in {@code replacements} (keyed {@code schema.table}) is read from another
     * relation instead, using the database's parser rather than text substitution.
     */
    String replaceTables(String select, java.util.Map<String, String> replacements);

    /** A table named in a query: {@code schema} is empty when the query did not qualify it. */
    record TableReference(String schema, String table) {
        public String qualified() {
            return schema.isEmpty() ? table : schema + "." + table;
        }
    }
}
