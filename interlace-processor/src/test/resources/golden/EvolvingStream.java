package shop;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.StreamDescriptor;
import javax.annotation.processing.Generated;

/**
 * Stream {@code evolving} as declared on {@link Evolving}.
 */
@Generated("dev.interlace.processor.InterlaceProcessor")
public final class EvolvingStream {

    /**
     * Schema version f9d35a2fde69c7a6:
     * {@code device_id string not null}.
     */
    public static final StreamDescriptor DESCRIPTOR = describe();

    private EvolvingStream() {
    }

    private static StreamDescriptor describe() {
        StreamDescriptor.Builder stream = StreamDescriptor.builder("evolving");
        stream.column(Column.of("device_id", ColumnType.STRING, true));
        stream.onSchemaDrift(SchemaDrift.EVOLVE);
        stream.schemaVersion("f9d35a2fde69c7a6");
        stream.declaredBy("shop.Evolving");
        stream.decoder(new EvolvingDecoder());
        return stream.build();
    }
}
