package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.stream.StreamPartitions;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Resolves the stream a route names to what the route serves ({@link Route.Partitions}): for a route that serves one
 * partition, {@code {name}} with {@code partition=} becomes the partition's log stream ({@link StreamPartitions}), so
 * that the route, {@link Forwarding} (a partition's sequencer) and the log all see the log stream. A stream with one
 * partition is served as it always was.
 */
final class PartitionParameter {

    /** The query parameter naming a partition. */
    static final String NAME = "partition";

    private final StreamCatalog catalog;

    @Inject
    PartitionParameter(StreamCatalog catalog) {
        this.catalog = catalog;
    }

    /**
     * The route's path parameters, the first one the partition's log stream when the route serves one partition.
     *
     * @throws Refusal 400 {@code partition_required} or {@code invalid_parameter}
     */
    List<String> resolve(Route route, List<String> parameters, HttpRequest request, String requestId) {
        if (route.partitions() == Route.Partitions.WHOLE || parameters.isEmpty()) {
            return parameters;
        }
        Optional<StreamDescriptor> declared = catalog.find(parameters.get(0));
        String given = request.query().get(NAME);
        if (declared.isEmpty()) {
            return parameters; // unknown here: the route answers as it does for any unknown stream
        }
        StreamDescriptor stream = declared.get();
        if (given == null) {
            if (!stream.partitioned()) {
                return parameters;
            }
            throw new Refusal(HttpResponses.error(ErrorCode.PARTITION_REQUIRED, "stream " + stream.name() + " has "
                    + stream.partitions() + " partitions: name one with partition=0 to partition="
                    + (stream.partitions() - 1) + " (GET /streams/" + stream.name() + " shows each one's head)",
                    requestId));
        }
        int partition;
        try {
            partition = Integer.parseInt(given);
        } catch (NumberFormatException e) {
            partition = -1;
        }
        if (partition < 0 || partition >= stream.partitions()) {
            throw new Refusal(HttpResponses.error(ErrorCode.INVALID_PARAMETER, "partition must be an integer from 0"
                    + " to " + (stream.partitions() - 1) + " for stream " + stream.name() + ", got \"" + given
                    + "\"", requestId));
        }
        List<String> resolved = new ArrayList<>(parameters);
        resolved.set(0, stream.logStream(partition).name());
        return resolved;
    }
}
