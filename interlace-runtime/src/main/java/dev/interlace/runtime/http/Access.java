package dev.interlace.runtime.http;

import dev.interlace.runtime.auth.Scope;
import java.util.List;

/** Who may call a route: anyone (health), or a key holding one of the scopes it names. */
@FunctionalInterface
interface Access {

    /** The scopes of which a key must hold one, for these path parameters; empty for a route open to all. */
    List<Scope> anyOf(List<String> pathParameters);

    /** Open to anyone, key or not: {@code /health/*}. */
    Access PUBLIC = path -> List.of();
    Access READ = path -> List.of(Scope.of(Scope.Kind.READ));
    Access OPERATE = path -> List.of(Scope.of(Scope.Kind.OPERATE));
    Access METRICS = path -> List.of(Scope.of(Scope.Kind.METRICS));
    /** Only an admin key: granting a consumer group to a key. */
    Access ADMIN = path -> List.of(Scope.of(Scope.Kind.ADMIN));
    /** {@code publish} or {@code publish:<stream>}, the stream being the first path parameter. */
    Access PUBLISH_TO_STREAM = path -> List.of(Scope.publish(stream(path)));
    /** {@code consume} or {@code consume:<stream>}: leases and commits. */
    Access CONSUME_STREAM = path -> List.of(Scope.consume(stream(path)));
    /** Reading a stream's events or consumer list: {@code read}, or consuming that stream. */
    Access READ_OR_CONSUME_STREAM = path -> List.of(Scope.of(Scope.Kind.READ), Scope.consume(stream(path)));

    /** The stream a scope names: the declared stream, whichever of its partitions the route was resolved to. */
    private static String stream(List<String> path) {
        return dev.interlace.runtime.stream.StreamPartitions.streamOf(path.get(0));
    }
}
