package dev.interlace.runtime.sql;

import java.util.List;

/**
 * The result of a read-only query.
 *
 * @param columns name and SQL type of each column
 * @param rows the rows, each value as JDBC returned it
 * @param truncated whether more rows existed than the cap allowed
 */
public record QueryResult(List<ResultColumn> columns, List<List<Object>> rows, boolean truncated) {

    /** A result column. */
    public record ResultColumn(String name, String type) {}
}
