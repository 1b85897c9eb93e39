package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import java.util.concurrent.CompletableFuture;

/** What a transport calls: answers requests, and turns the transport's own refusals into JSON errors. */
public interface HttpDispatcher {

    /** Answers one request; the future always completes normally (an unexpected failure becomes a JSON 500). */
    CompletableFuture<HttpAnswer> dispatch(HttpRequest request);

    /**
     * An error the transport decided before any route ran (request line or headers too long, body too large or too
     * slow, too many connections): a JSON error with a request id, kept in the refused-requests ring like any other.
     *
     * @param method the request's method, or null when the request line could not be read
     * @param target the request target (truncated by the caller if huge), or null
     */
    HttpAnswer refuse(String method, String target, ErrorCode error, String message);
}
