package dev.interlace.processor;

/** One column of a validated schema. */
record ColumnSpec(String name, ColumnKind kind, int precision, int scale, boolean notNull) {

    /** The canonical type, e.g. {@code decimal(12,2)}. */
    String canonicalType() {
        return kind == ColumnKind.DECIMAL ? "decimal(" + precision + "," + scale + ")" : kind.canonicalName();
    }

    /** The canonical declaration, e.g. {@code order_id string not null}. */
    String declaration() {
        return name + " " + canonicalType() + (notNull ? " not null" : "");
    }
}
