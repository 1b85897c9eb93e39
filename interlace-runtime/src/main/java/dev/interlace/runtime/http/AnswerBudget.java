package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.log.PayloadAllowance;

/**
 * What one request's answer may hold of the in-flight budget, asked by a read before it fetches each payload: the
 * payload's {@link InflightBytes#ANSWER_COPIES} are reserved into the request, until its answer is written. A page
 * that does not fit whole is answered in part (its {@code next_after} says where to go on); one whose first entry
 * does not fit is refused {@code 503 overloaded}.
 */
final class AnswerBudget implements PayloadAllowance {

    private final HttpRequest request;
    private final int copies;
    private boolean refused;
    private long reserved;

    AnswerBudget(HttpRequest request) {
        this(request, InflightBytes.ANSWER_COPIES);
    }

    /** A budget reserving {@code copies} of each payload (fewer for a streamed answer, which holds one batch). */
    AnswerBudget(HttpRequest request, int copies) {
        this.request = request;
        this.copies = copies;
    }

    @Override
    public boolean admit(long payloadBytes) {
        if (request.reserve(payloadBytes * copies)) {
            reserved += payloadBytes * copies;
            return true;
        }
        refused = true;
        return false;
    }

    /** What was reserved since the last call, now the caller's to give back. */
    long takeReserved() {
        long taken = reserved;
        reserved = 0;
        return taken;
    }

    /** Whether a payload was refused: the page ended early for want of memory. */
    boolean refused() {
        return refused;
    }

    /** The refusal of a request whose answer cannot be held now. */
    static Refusal overloaded(String what, String requestId) {
        return new Refusal(HttpResponses.error(ErrorCode.OVERLOADED, "the server holds as much as it may for requests"
                + " in flight (--max-inflight-bytes) and cannot hold " + what + " now; retry shortly", requestId)
                .header("Retry-After", "1"));
    }
}
