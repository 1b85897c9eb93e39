package dev.interlace.processor;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The column types a schema may name, their aliases and how generated code represents them. The constant names
 * match {@code dev.interlace.runtime.stream.ColumnType}, which generated descriptors refer to.
 */
enum ColumnKind {
    STRING("string", List.of("string", "text", "varchar"), "String", null, "readString"),
    BIGINT("bigint", List.of("bigint", "int", "integer", "long"), "Long", "long", "readBigint"),
    DOUBLE("double", List.of("double", "float"), "Double", "double", "readDouble"),
    DECIMAL("decimal", List.of(), "java.math.BigDecimal", null, "readDecimal"),
    BOOLEAN("boolean", List.of("boolean", "bool"), "Boolean", "boolean", "readBoolean"),
    TIMESTAMP("timestamp", List.of("timestamp"), "java.time.Instant", null, "readTimestamp"),
    DATE("date", List.of("date"), "java.time.LocalDate", null, "readDate"),
    JSON("json", List.of("json"), "String", null, "readJson");

    /** The spellings listed in error messages, in the order a user reads them. */
    static final String VALID_TYPES =
            "string (or text, varchar), bigint (or int, integer, long), double (or float), decimal(p,s), "
                    + "boolean (or bool), timestamp, date, json";

    private final String canonicalName;
    private final List<String> aliases;
    private final String boxedType;
    private final String primitiveType;
    private final String reader;

    ColumnKind(String canonicalName, List<String> aliases, String boxedType, String primitiveType, String reader) {
        this.canonicalName = canonicalName;
        this.aliases = aliases;
        this.boxedType = boxedType;
        this.primitiveType = primitiveType;
        this.reader = reader;
    }

    /** The type named by {@code spelling} (case-insensitive), except decimal which has parameters. */
    static Optional<ColumnKind> forName(String spelling) {
        String lower = spelling.toLowerCase(Locale.ROOT);
        for (ColumnKind kind : values()) {
            if (kind.aliases.contains(lower)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }

    String canonicalName() {
        return canonicalName;
    }

    /** The Java type of a nullable value, fully qualified outside {@code java.lang}. */
    String boxedType() {
        return boxedType;
    }

    /** The Java type of a record component: primitive when the column is not null and has one. */
    String componentType(boolean notNull) {
        return notNull && primitiveType != null ? primitiveType : boxedType;
    }

    /** The {@code Values} method that applies this type's decoding rules. */
    String reader() {
        return reader;
    }

    boolean canBeIdempotencyKey() {
        return this == STRING || this == BIGINT || this == DECIMAL || this == DATE || this == TIMESTAMP;
    }
}
