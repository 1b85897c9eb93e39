package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * How many pages of stored events are read and rendered, and gzip bodies inflated, at once: one per core (at least
 * two). A page of large events keeps a core busy for tens of milliseconds; run on every worker at once, hundreds of
 * readers leave the event loops — which answer {@code /health/live} and read every request — waiting for a core for
 * more than a second. A gzip body reserves the in-flight budget step by step as it inflates: inflated all at once,
 * many bodies would each hold a part of the budget and every one of them be refused the rest. Work beyond the slots
 * waits here, holding no core, for at most {@link #WAIT_SECONDS}; then it is answered {@code 503 overloaded}.
 */
final class PageSlots {

    static final int WAIT_SECONDS = 10;

    /** Reads and renders a page. */
    interface Page {
        HttpAnswer render() throws IOException;
    }

    /** Work that holds a slot. */
    interface Work<T, E extends Exception> {
        T run() throws IOException, E;
    }

    private final Semaphore slots = new Semaphore(Math.max(2, Runtime.getRuntime().availableProcessors()), true);

    /** Reads and renders a page in a slot; {@code what} names it in the 503 when no slot frees in time. */
    HttpAnswer render(String what, String requestId, Page page) throws IOException {
        return run("read " + what, requestId, page::render);
    }

    /**
     * Runs {@code work} in a slot; {@code doing} says what it does in the 503 when no slot frees in time, e.g.
     * {@code "decompress this body"}.
     */
    <T, E extends Exception> T run(String doing, String requestId, Work<T, E> work) throws IOException, E {
        boolean acquired;
        try {
            acquired = slots.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            acquired = false;
        }
        if (!acquired) {
            throw new Refusal(HttpResponses.error(ErrorCode.OVERLOADED, "the server is busy reading other pages of"
                    + " events and decompressing other bodies and could not " + doing + " within " + WAIT_SECONDS
                    + " s; retry shortly", requestId).header("Retry-After", "1"));
        }
        try {
            return work.run();
        } finally {
            slots.release();
        }
    }
}
