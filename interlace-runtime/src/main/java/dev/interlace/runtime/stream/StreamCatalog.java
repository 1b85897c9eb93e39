package dev.interlace.runtime.stream;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;

/** All streams an application declares, gathered from every {@link StreamRegistry} on the class path. */
public final class StreamCatalog {

    private final Map<String, StreamDescriptor> byName;

    private StreamCatalog(Map<String, StreamDescriptor> byName) {
        this.byName = Collections.unmodifiableMap(byName);
    }

    /** Loads every registry visible to {@code classLoader} with {@link ServiceLoader}. */
    public static StreamCatalog load(ClassLoader classLoader) {
        List<StreamRegistry> registries = ServiceLoader.load(StreamRegistry.class, classLoader).stream()
                .map(ServiceLoader.Provider::get)
                .toList();
        return of(registries.stream().flatMap(registry -> registry.streams().stream()).toList());
    }

    /**
     * A catalog of the given streams.
     *
     * @throws DuplicateStreamException when two descriptors share a name (e.g. two jars declare the same stream)
     */
    public static StreamCatalog of(Collection<StreamDescriptor> descriptors) {
        Map<String, StreamDescriptor> byName = new TreeMap<>();
        for (StreamDescriptor descriptor : descriptors) {
            StreamDescriptor previous = byName.putIfAbsent(descriptor.name(), descriptor);
            if (previous != null) {
                throw new DuplicateStreamException(descriptor.name(), previous.declaredBy(), descriptor.declaredBy());
            }
        }
        return new StreamCatalog(new LinkedHashMap<>(byName));
    }

    /** The streams ordered by name. */
    public Collection<StreamDescriptor> streams() {
        return byName.values();
    }

    /**
     * Every log stream of every stream, ordered by stream then partition: a stream with one partition is one log
     * stream of its own name ({@link StreamPartitions}).
     */
    public List<StreamDescriptor> logStreams() {
        List<StreamDescriptor> all = new ArrayList<>();
        for (StreamDescriptor stream : byName.values()) {
            all.addAll(stream.logStreams());
        }
        return all;
    }

    /** The descriptor of log stream {@code name} (a stream's own name is its partition 0), if declared. */
    public Optional<StreamDescriptor> findLogStream(String name) {
        StreamDescriptor stream = byName.get(StreamPartitions.streamOf(name));
        int partition = StreamPartitions.partitionOf(name);
        return stream == null || partition >= stream.partitions() ? Optional.empty()
                : Optional.of(stream.logStream(partition));
    }

    /** The stream called {@code name}, if declared. */
    public Optional<StreamDescriptor> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** Thrown at start-up when two classes on the class path declare a stream with the same name. */
    public static final class DuplicateStreamException extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        DuplicateStreamException(String name, String first, String second) {
            super("[InterlaceDuplicateStream] stream \"" + name + "\" is declared by both " + first + " and "
                    + second + "; stream names must be unique across the application, so rename one of them");
        }
    }
}
