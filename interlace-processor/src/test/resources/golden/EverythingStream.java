package shop;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.StreamDescriptor;
import javax.annotation.processing.Generated;

/**
 * Stream {@code everything} as declared on {@link Everything}.
 */
@Generated("dev.interlace.processor.InterlaceProcessor")
public final class EverythingStream {

    /**
     * Schema version ff62c1e8716660b3:
     * {@code id string not null},
     * {@code note string},
     * {@code title string},
     * {@code quantity bigint not null},
     * {@code small bigint},
     * {@code medium bigint},
     * {@code large bigint},
     * {@code ratio double not null},
     * {@code score double},
     * {@code price decimal(12,2) not null},
     * {@code exact decimal(38,10)},
     * {@code paid boolean not null},
     * {@code gift boolean},
     * {@code at timestamp not null},
     * {@code day date},
     * {@code payload json},
     * {@code class string},
     * {@code hash_code bigint},
     * {@code errors string},
     * {@code seen boolean}.
     */
    public static final StreamDescriptor DESCRIPTOR = describe();

    private EverythingStream() {
    }

    private static StreamDescriptor describe() {
        StreamDescriptor.Builder stream = StreamDescriptor.builder("everything");
        stream.column(Column.of("id", ColumnType.STRING, true));
        stream.column(Column.of("note", ColumnType.STRING, false));
        stream.column(Column.of("title", ColumnType.STRING, false));
        stream.column(Column.of("quantity", ColumnType.BIGINT, true));
        stream.column(Column.of("small", ColumnType.BIGINT, false));
        stream.column(Column.of("medium", ColumnType.BIGINT, false));
        stream.column(Column.of("large", ColumnType.BIGINT, false));
        stream.column(Column.of("ratio", ColumnType.DOUBLE, true));
        stream.column(Column.of("score", ColumnType.DOUBLE, false));
        stream.column(Column.decimal("price", 12, 2, true));
        stream.column(Column.decimal("exact", 38, 10, false));
        stream.column(Column.of("paid", ColumnType.BOOLEAN, true));
        stream.column(Column.of("gift", ColumnType.BOOLEAN, false));
        stream.column(Column.of("at", ColumnType.TIMESTAMP, true));
        stream.column(Column.of("day", ColumnType.DATE, false));
        stream.column(Column.of("payload", ColumnType.JSON, false));
        stream.column(Column.of("class", ColumnType.STRING, false));
        stream.column(Column.of("hash_code", ColumnType.BIGINT, false));
        stream.column(Column.of("errors", ColumnType.STRING, false));
        stream.column(Column.of("seen", ColumnType.BOOLEAN, false));
        stream.idempotencyKey("id");
        stream.retention("36h", 129600000L);
        stream.onSchemaDrift(SchemaDrift.QUARANTINE);
        stream.schemaVersion("ff62c1e8716660b3");
        stream.declaredBy("shop.Everything");
        stream.decoder(new EverythingDecoder());
        return stream.build();
    }
}
