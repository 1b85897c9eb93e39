package dev.interlace.runtime.stream;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One declared column of a stream.
 *
 * @param name column name, {@code [a-z][a-z0-9_]{0,62}}
 * @param type column type
 * @param precision total digits for {@link ColumnType#DECIMAL}, 0 otherwise
 * @param scale digits after the point for {@link ColumnType#DECIMAL}, 0 otherwise
 * @param notNull whether the column rejects a missing or null value
 */
public record Column(String name, ColumnType type, int precision, int scale, boolean notNull) {

    /** What a column (and a stream) name must look like. */
    public static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");

    public Column {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("column name \"" + name + "\" must match " + NAME.pattern());
        }
        if (type == ColumnType.DECIMAL) {
            if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
                throw new IllegalArgumentException(
                        "decimal(" + precision + "," + scale + ") needs 1 <= precision <= 38 and 0 <= scale <= precision");
            }
        } else if (precision != 0 || scale != 0) {
            throw new IllegalArgumentException("only decimal columns have a precision and scale");
        }
    }

    /** A column of a type without parameters. */
    public static Column of(String name, ColumnType type, boolean notNull) {
        return new Column(name, type, 0, 0, notNull);
    }

    /** A {@code decimal(precision, scale)} column. */
    public static Column decimal(String name, int precision, int scale, boolean notNull) {
        return new Column(name, ColumnType.DECIMAL, precision, scale, notNull);
    }

    /** The canonical type, e.g. {@code decimal(12,2)} or {@code string}. */
    public String canonicalType() {
        return type == ColumnType.DECIMAL ? "decimal(" + precision + "," + scale + ")" : type.canonicalName();
    }

    /** The canonical type followed by {@code " not null"} when the column is not nullable. */
    public String canonicalTypeWithNullability() {
        return notNull ? canonicalType() + " not null" : canonicalType();
    }

    /** The canonical declaration, e.g. {@code order_id string not null}. */
    public String declaration() {
        return name + " " + canonicalTypeWithNullability();
    }

    /** The DuckDB column type, e.g. {@code DECIMAL(12,2)}. */
    public String sqlType() {
        return type == ColumnType.DECIMAL ? "DECIMAL(" + precision + "," + scale + ")" : type.sqlName();
    }
}
