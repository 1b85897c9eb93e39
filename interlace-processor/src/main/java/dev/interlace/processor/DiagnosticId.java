package dev.interlace.processor;

/** The stable ids every processor error starts with; users search for them, so they never change. */
enum DiagnosticId {
    STREAM_NAME("InterlaceStreamName"),
    DUPLICATE_STREAM("InterlaceDuplicateStream"),
    EMPTY_SCHEMA("InterlaceEmptySchema"),
    COLUMN_SPEC("InterlaceColumnSpec"),
    UNKNOWN_TYPE("InterlaceUnknownType"),
    DUPLICATE_COLUMN("InterlaceDuplicateColumn"),
    RESERVED_COLUMN("InterlaceReservedColumn"),
    KEY_NOT_COLUMN("InterlaceKeyNotColumn"),
    KEY_TYPE("InterlaceKeyType"),
    RETENTION("InterlaceRetention"),
    DECIMAL_RANGE("InterlaceDecimalRange"),
    MODEL_NAME("InterlaceModelName"),
    DUPLICATE_MODEL("InterlaceDuplicateModel"),
    MODEL_KIND("InterlaceModelKind"),
    MODEL_DEPENDS_ON("InterlaceModelDependsOn"),
    MODEL_KEY("InterlaceModelKey"),
    PARTITIONS("InterlacePartitions");

    private final String tag;

    DiagnosticId(String tag) {
        this.tag = tag;
    }

    String tag() {
        return tag;
    }
}
