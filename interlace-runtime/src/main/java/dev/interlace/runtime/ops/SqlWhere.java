package dev.interlace.runtime.ops;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The tail of a SQL query filtered by optional criteria, {@code FROM ... WHERE ... AND ...}, and its parameters in
 * order: a criterion joins the clause only when it is given.
 */
public final class SqlWhere {

    private final StringBuilder sql;
    private final List<Object> parameters = new ArrayList<>();

    /** Starts from {@code clause}, which ends in a {@code WHERE} condition (e.g. {@code " FROM t WHERE 1 = 1"}). */
    public SqlWhere(String clause) {
        this.sql = new StringBuilder(clause);
    }

    /** Adds {@code AND condition} when {@code value} is not null, {@code value} filling each of its {@code ?}. */
    public SqlWhere and(String condition, Object value) {
        if (value != null) {
            sql.append(" AND ").append(condition);
            condition.chars().filter(c -> c == '?').forEach(c -> parameters.add(value));
        }
        return this;
    }

    /**
     * Adds {@code AND condition} when {@code first} is not null, {@code first} and then {@code more} filling its
     * {@code ?} in order (one value each).
     */
    public SqlWhere andInOrder(String condition, Object first, Object... more) {
        if (first != null) {
            if (condition.chars().filter(c -> c == '?').count() != 1 + more.length) {
                throw new IllegalArgumentException("one value for each ? of " + condition);
            }
            sql.append(" AND ").append(condition);
            parameters.add(first);
            parameters.addAll(java.util.Arrays.asList(more));
        }
        return this;
    }

    /** Binds the parameters from the first {@code ?} of {@code statement} on; returns the index after the last. */
    public int bind(PreparedStatement statement) throws SQLException {
        int index = 1;
        for (Object parameter : parameters) {
            statement.setObject(index++, parameter);
        }
        return index;
    }

    @Override
    public String toString() {
        return sql.toString();
    }
}
