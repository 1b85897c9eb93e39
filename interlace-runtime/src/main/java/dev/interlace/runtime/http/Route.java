package dev.interlace.runtime.http;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * A handler for one method and path pattern; {@code {name}} segments are passed in order.
 *
 * @param access who may call it
 * @param inline which requests the handler serves without blocking, so that they may run on the transport's I/O
 *     thread and skip the hand-off to a worker and back: every request of a liveness route (answered even when every
 *     worker is busy), small publishes; none of a route that may block
 * @param placement which node of a cluster serves it: any node, the stream's sequencer, or the warehouse's node
 */
record Route(String method, String pattern, Access access, Handler handler, Predicate<HttpRequest> inline,
        Placement placement, Partitions partitions) {

    /** What a route that names a stream ({@code {name}} first) does with a stream of several partitions. */
    enum Partitions {
        /** The route serves the stream as a whole (or names no stream). */
        WHOLE,
        /**
         * The route serves one partition, named by {@code partition=} (0 when the stream has one; required when it
         * has several): the router hands it the partition's log stream as the stream parameter.
         */
        EACH
    }

    Route(String method, String pattern, Access access, Handler handler, Predicate<HttpRequest> inline,
            Placement placement) {
        this(method, pattern, access, handler, inline, placement, Partitions.WHOLE);
    }

    /** This route, serving a partitioned stream as {@code how} says. */
    Route partitions(Partitions how) {
        return new Route(method, pattern, access, handler, inline, placement, how);
    }

    private static final Predicate<HttpRequest> ALWAYS = request -> true;
    private static final Predicate<HttpRequest> NEVER = request -> false;

    /** Which node of a cluster serves a route; the router forwards the request there when it is another node. */
    enum Placement {
        /** Any node: served where it arrives. */
        ANY,
        /** The node sequencing the stream named by the first path parameter (appends, leases, commits). */
        SEQUENCER,
        /** The node running the warehouse (queries, runs, models, correlation). */
        WAREHOUSE
    }

    /** This route, served by the node {@code where} says. */
    Route placedOn(Placement where) {
        if (inline == ALWAYS && where != Placement.ANY) {
            throw new IllegalArgumentException("an inline route is served where it arrives: " + pattern);
        }
        return new Route(method, pattern, access, handler, inline, where, partitions);
    }

    /**
     * This route, its requests that {@code when} accepts served on the I/O thread: the handler must neither block
     * nor take long for them (and the route must not be forwarded: the router asks that on a worker).
     */
    Route inlineWhen(Predicate<HttpRequest> when) {
        return new Route(method, pattern, access, handler, when, placement, partitions);
    }

    /** A route that answers when its work is done, without holding a thread meanwhile (publish, long polls). */
    @FunctionalInterface
    interface Handler {
        CompletableFuture<HttpAnswer> handle(HttpRequest request, List<String> pathParameters, String requestId)
                throws IOException;
    }

    /** A route that computes its answer on a worker thread and may block doing so (a database read). */
    @FunctionalInterface
    interface BlockingHandler {
        HttpAnswer handle(HttpRequest request, List<String> pathParameters, String requestId) throws IOException;
    }

    static Route blocking(String method, String pattern, Access access, BlockingHandler handler) {
        return new Route(method, pattern, access, (request, path, requestId) ->
                CompletableFuture.completedFuture(handler.handle(request, path, requestId)), NEVER,
                Placement.ANY);
    }

    static Route async(String method, String pattern, Access access, Handler handler) {
        return new Route(method, pattern, access, handler, NEVER, Placement.ANY);
    }

    static Route inline(String method, String pattern, Access access, BlockingHandler handler) {
        return new Route(method, pattern, access, (request, path, requestId) ->
                CompletableFuture.completedFuture(handler.handle(request, path, requestId)), ALWAYS,
                Placement.ANY);
    }

    /** Every route's pattern split at {@code /}, worked out once: the router tries the routes on every request. */
    private static final java.util.Map<String, String[]> SEGMENTS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The path parameters if the path, split at {@code /} ({@link #segments}), matches the pattern, else null.
     */
    List<String> match(String[] have) {
        String[] want = SEGMENTS.computeIfAbsent(pattern, Route::segments);
        if (want.length != have.length) {
            return null;
        }
        // Checked before anything is allocated: the router tries most routes on every request, and few match.
        int parameterCount = 0;
        for (int i = 0; i < want.length; i++) {
            if (want[i].startsWith("{")) {
                if (have[i].isEmpty()) {
                    return null;
                }
                parameterCount++;
            } else if (!want[i].equals(have[i])) {
                return null;
            }
        }
        if (parameterCount == 0) {
            return List.of();
        }
        String[] parameters = new String[parameterCount];
        for (int i = 0, p = 0; i < want.length; i++) {
            if (want[i].startsWith("{")) {
                parameters[p++] = have[i];
            }
        }
        return java.util.Arrays.asList(parameters);
    }

    /** A path or pattern split at {@code /}, empty segments kept. */
    static String[] segments(String path) {
        return path.split("/", -1);
    }
}
