package dev.interlace.runtime.stream;

/** The column types a stream schema can declare, with their canonical spelling and warehouse type. */
public enum ColumnType {
    STRING("string", "VARCHAR"),
    BIGINT("bigint", "BIGINT"),
    DOUBLE("double", "DOUBLE"),
    DECIMAL("decimal", "DECIMAL"),
    BOOLEAN("boolean", "BOOLEAN"),
    TIMESTAMP("timestamp", "TIMESTAMP"),
    DATE("date", "DATE"),
    JSON("json", "JSON");

    private final String canonicalName;
    private final String sqlName;

    ColumnType(String canonicalName, String sqlName) {
        this.canonicalName = canonicalName;
        this.sqlName = sqlName;
    }

    /** The lower-case name shown in APIs and schemas, e.g. {@code bigint}. */
    public String canonicalName() {
        return canonicalName;
    }

    /** The DuckDB type name without parameters, e.g. {@code VARCHAR}. */
    public String sqlName() {
        return sqlName;
    }

    /** Whether a column of this type may be an idempotency key (its typed value compares exactly). */
    public boolean canBeIdempotencyKey() {
        return this == STRING || this == BIGINT || this == DECIMAL || this == DATE || this == TIMESTAMP;
    }
}
