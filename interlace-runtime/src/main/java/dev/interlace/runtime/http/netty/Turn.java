package dev.interlace.runtime.http.netty;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.http.HttpRequest;
import dev.interlace.runtime.http.InflightBytes;

/** What waits on a {@link Connection} for its turn to be answered: a request read whole, or a refusal decided there. */
sealed interface Turn permits Turn.Complete, Turn.Refused {

    /**
     * A request read whole, waiting for its turn, with what it holds of the in-flight budget; {@code http10} when it
     * came as HTTP/1.0, which has no chunked encoding (a streamed answer to it ends when the connection closes).
     */
    record Complete(HttpRequest request, boolean keepAlive, boolean http10, InflightBytes.Hold hold)
            implements Turn {}

    /**
     * A refusal decided by the connection rather than by a route: its answer is the dispatcher's JSON error; the
     * connection stays open after it only when {@code keepAlive} (a request refused whole, its framing intact).
     *
     * @param target the request target as it may be recorded (control bytes escaped, cut), or null
     */
    record Refused(String method, String target, ErrorCode error, String message, String retryAfter,
            boolean keepAlive) implements Turn {}
}
