package dev.interlace.test;

import java.util.List;

/**
 * The answer to one publish: its HTTP status, its request id and one verdict per event. A refused publish (e.g.
 * {@code 422} for an event off a rejecting stream's schema) has no verdicts: {@link #error()} and {@link #message()}
 * say why, as the server answered.
 *
 * @param status the HTTP status code; 200 means every event is durable
 * @param requestId the request's id ({@code X-Request-Id}), the key of {@link TestInterlace#correlate(String)}
 * @param verdicts one per event, in the order sent; empty when the publish was refused
 * @param error the error code of a refused publish (e.g. {@code schema_mismatch}), else null
 * @param message the server's message for a refused publish, else null
 * @param errors a refused publish's field errors as {@code "event <index>, <field>: <reason>"}, else empty
 */
public record Publication(int status, String requestId, List<Verdict> verdicts, String error, String message,
        List<String> errors) {

    /** Whether the server acknowledged the publish (200: every event stored, deduplicated or quarantined). */
    public boolean acknowledged() {
        return status == 200;
    }

    /** The verdicts' statuses in order, e.g. {@code [accepted, duplicate]}: handy in assertions. */
    public List<String> statuses() {
        return verdicts.stream().map(Verdict::status).toList();
    }
}
