package dev.interlace.runtime.stream;

import java.util.List;

/**
 * The streams declared in one compilation. The annotation processor generates one implementation per compilation
 * and lists it in {@code META-INF/services/dev.interlace.runtime.stream.StreamRegistry}.
 */
public interface StreamRegistry {

    /** The streams of this compilation, ordered by name. */
    List<StreamDescriptor> streams();
}
