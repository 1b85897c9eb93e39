package dev.interlace.runtime.http;

/**
 * Thrown by a route's helper (parsing a body, finding a stream) to answer an error at once; the router sends its
 * answer. It carries no stack trace: it is an answer, not a failure.
 */
final class Refusal extends RuntimeException {

    private final transient HttpAnswer answer;

    Refusal(HttpAnswer answer) {
        super(answer.error(), null, false, false);
        this.answer = answer;
    }

    HttpAnswer answer() {
        return answer;
    }
}
