package dev.interlace.runtime.http.netty;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.http.HttpRequest;
import dev.interlace.runtime.http.InflightBytes;

/** What waits on a {@link Connection} for its turn to be answered: a request read whole, or a refusal decided there. */
sealed interface Turn permits Turn.Complete, Turn.Dispatched, Turn.Refused {

    /**
     * A request read whole, waiting for its turn, with what it holds of the in-flight budget; {@code http10} when it
     * came as HTTP/1.0, which has no chunked encoding (a streamed answer to it ends when the connection closes).
     */
    record Complete(HttpRequest request, boolean keepAlive, boolean http10, InflightBytes.Hold hold)
            implements Turn {}

    /**
     * A request of another node's authenticated session, read while earlier ones are answered and served at once:
     * its answer waits for its turn to be written.
     */
    record Dispatched(Complete request, java.util.concurrent.CompletableFuture<dev.interlace.runtime.http.HttpAnswer>
            answer) implements Turn {}

    /**
     * A refusal decided by the connection rather than by a route: its answer is the dispatcher's JSON error; the
     * connection stays open after it only when {@code keepAlive} (a request refused whole, its framing intact).
     *
     * @param target the request target as it may be recorded (control bytes escaped, cut), or null
     */
    record Refused(String method, String target, ErrorCode error, String message, String retryAfter,
            boolean keepAlive) implements Turn {

        /** The dispatcher's JSON error for this refusal. */
        dev.interlace.runtime.http.HttpAnswer answer(dev.interlace.runtime.http.HttpDispatcher dispatcher) {
            dev.interlace.runtime.http.HttpAnswer answer = dispatcher.refuse(method, target, error, message);
            if (retryAfter != null) {
                answer.header("Retry-After", retryAfter);
            }
            return answer;
        }
    }
}
