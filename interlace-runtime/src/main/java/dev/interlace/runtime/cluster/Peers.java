package dev.interlace.runtime.cluster;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Requests from this node to another node of the cluster: what a node cannot serve itself (a publish to a stream
 * another node sequences, a query on a node without the warehouse) goes to the node that can, once, authenticated with
 * the cluster secret so that the receiver knows a member of the cluster sent it.
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
        return sendAsync(nodeUrl, request, AnswerAllowance.UNLIMITED);
    }

    /**
     * Like {@link #sendAsync(String, Request)}, asking {@code allowance} for the answer's bytes before they are
     * kept; the future fails with {@link AnswerRefused} when it refuses them. This default asks once the answer is
     * whole; {@link PeerClient} asks as each part of it arrives.
     */
    default CompletableFuture<Answer> sendAsync(String nodeUrl, Request request, AnswerAllowance allowance) {
        try {
            Answer answer = send(nodeUrl, request);
            if (!allowance.admit(answer.body().length)) {
                return CompletableFuture.failedFuture(new AnswerRefused(nodeUrl, answer.body().length));
            }
            return CompletableFuture.completedFuture(answer);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Asked as another node's answer arrives, before its bytes are kept: whether this node may hold them too. */
    @FunctionalInterface
    interface AnswerAllowance {

        /** Grants every answer whole. */
        AnswerAllowance UNLIMITED = bytes -> true;

        /** Whether {@code bytes} more of the answer may be kept; false ends the answer there. */
        boolean admit(long bytes);
    }

    /**
     * The other node answered, but its answer did not fit in what this node may hold now: the rest of it was not
     * read. The request was served there.
     */
    final class AnswerRefused extends IOException {

        private static final long serialVersionUID = 1L;

        public AnswerRefused(String nodeUrl, long bytes) {
            super("the answer of " + nodeUrl + " did not fit in memory after " + bytes + " bytes");
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
            String tracestate, String interlaceAfter) {

        /** A request outside any trace. */
        public Request(String method, String pathAndQuery, String contentType, byte[] body, String requestId,
                String callerKeyId, String callerKeyName, String contentEncoding, String accept) {
            this(method, pathAndQuery, contentType, body, requestId, callerKeyId, callerKeyName, contentEncoding,
                    accept, null, null, null);
        }

        /** A request without a caller name, content encoding or {@code Accept} (a node's own call). */
        public Request(String method, String pathAndQuery, String contentType, byte[] body, String requestId,
                String callerKeyId) {
            this(method, pathAndQuery, contentType, body, requestId, callerKeyId, null, null, null, null, null, null);
        }
    }

    /** The receiving node's answer, relayed to the client as it is. */
    record Answer(int status, Map<String, String> headers, byte[] body) {
    }
}
