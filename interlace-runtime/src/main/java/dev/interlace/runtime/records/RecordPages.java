package dev.interlace.runtime.records;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a page of records (system, publish or flush records) with JDBC: how many match in all, and the rows of the
 * page. The stores run both statements in one read transaction, so that the total never disagrees with the page.
 */
public final class RecordPages {

    private RecordPages() {}

    /** Reads one record from the current row of a result. */
    @FunctionalInterface
    public interface RowReader<T> {
        T read(ResultSet row) throws SQLException;
    }

    /** The number a {@code SELECT count(*)} statement gives. */
    public static long count(PreparedStatement count) throws SQLException {
        try (ResultSet row = count.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }

    /** The records of every row {@code select} gives, in its order. */
    public static <T> List<T> rows(PreparedStatement select, RowReader<T> reader) throws SQLException {
        List<T> records = new ArrayList<>();
        try (ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                records.add(reader.read(rows));
            }
        }
        return records;
    }
}
