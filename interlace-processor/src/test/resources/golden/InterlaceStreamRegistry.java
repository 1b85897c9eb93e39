package shop;

import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.StreamRegistry;
import java.util.List;
import javax.annotation.processing.Generated;

/**
 * The streams declared in this compilation, listed in {@code META-INF/services}.
 */
@Generated("dev.interlace.processor.InterlaceProcessor")
public final class InterlaceStreamRegistry implements StreamRegistry {

    @Override
    public List<StreamDescriptor> streams() {
        return List.of(EverythingStream.DESCRIPTOR, EvolvingStream.DESCRIPTOR);
    }
}
