package dev.interlace.runtime.records;

/**
 * One API request as {@code GET /logs/api} lists it: an acknowledged publish (from the durable publish records) or a
 * refused request (from the in-memory ring).
 *
 * @param source {@code store} (durable) or {@code ring} (in memory, bounded)
 * @param stream the stream the request was for, or null
 * @param status the HTTP status answered
 * @param error the error code of a refused request, else null
 * @param message the error message of a refused request, else null
 * @param durationMicros how long answering took (for publishes: from arrival to commit)
 * @param servedBy the node that served the request when this node forwarded it there (its answer relayed), else null
 */
public record ApiRecord(String source, String requestId, String method, String path, String stream, int status,
        String error, String message, long receivedAtMicros, long durationMicros, String keyId, String keyName,
        String servedBy) {

    /**
     * Which requests to list: every non-null field must match exactly; times are a half-open window
     * {@code [sinceMicros, untilMicros)} on arrival.
     */
    public record Filter(String stream, Integer status, String requestId, Long sinceMicros, Long untilMicros,
            int limit) {

        boolean matches(ApiRecord record) {
            return (stream == null || stream.equals(record.stream()))
                    && (status == null || status == record.status())
                    && (requestId == null || requestId.equals(record.requestId()))
                    && (sinceMicros == null || record.receivedAtMicros() >= sinceMicros)
                    && (untilMicros == null || record.receivedAtMicros() < untilMicros);
        }
    }
}
