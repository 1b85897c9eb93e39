package dev.interlace.runtime.cluster;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Requests from this node to another node of the cluster: what a node cannot serve itself (a publish to a stream
 * another node sequences, a query on a node without the warehouse) goes to the node that can, once, signed with the
 * cluster secret so that the receiver knows a member of the cluster sent it.
 */
public interface Peers {

    /**
     * Sends {@code request} to the node at {@code nodeUrl} (its advertised URL) and returns the node's answer,
     * whatever its status.
     *
     * @throws IOException when the node cannot be reached or does not answer in time
     */
    Answer send(String nodeUrl, Request request) throws IOException;

    /**
     * Like {@link #send}, without holding the calling thread while the node answers; the future fails with the
     * {@link IOException} {@code send} would throw.
     */
    default CompletableFuture<Answer> sendAsync(String nodeUrl, Request request) {
        try {
            return CompletableFuture.completedFuture(send(nodeUrl, request));
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A request as the receiving node is to serve it.
     *
     * @param method the HTTP method
     * @param pathAndQuery the path with its query string, as the client sent it
     * @param contentType the body's content type, or null
     * @param body the body, empty for none
     * @param requestId the request's id, which the receiver keeps (one id from the client's request to the answer)
     * @param callerKeyId the id of the API key the sending node authenticated the client with, or null for none
     * @param callerKeyName that key's name (for the receiver's records), or null
     * @param contentEncoding the body's {@code Content-Encoding} as the client sent it (e.g. {@code gzip}), or null
     * @param accept the client's {@code Accept} header, or null
     */
    record Request(String method, String pathAndQuery, String contentType, byte[] body, String requestId,
            String callerKeyId, String callerKeyName, String contentEncoding, String accept, String traceparent,
            String tracestate) {

        /** A request outside any trace. */
        public Request(String method, String pathAndQuery, String contentType, byte[] body, String requestId,
                String callerKeyId, String callerKeyName, String contentEncoding, String accept) {
            this(method, pathAndQuery, contentType, body, requestId, callerKeyId, callerKeyName, contentEncoding,
                    accept, null, null);
        }

        /** A request without a caller name, content encoding or {@code Accept} (a node's own call). */
        public Request(String method, String pathAndQuery, String contentType, byte[] body, String requestId,
                String callerKeyId) {
            this(method, pathAndQuery, contentType, body, requestId, callerKeyId, null, null, null, null, null);
        }
    }

    /** The receiving node's answer, relayed to the client as it is. */
    record Answer(int status, Map<String, String> headers, byte[] body) {
    }
}
