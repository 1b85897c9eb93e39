package dev.interlace.runtime.http;

import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * How many pages of stored events are read and rendered at once: one per core (at least two). A page of large
 * events keeps a core busy for tens of milliseconds; run on every worker at once, hundreds of readers leave the event
 * loops — which answer {@code /health/live} and read every request — waiting for a core for more than a second.
 * Readers beyond wait here, holding no core, for at most {@link #WAIT_SECONDS}; then they are answered
 * {@code 503 overloaded}.
 */
final class PageSlots {

    static final int WAIT_SECONDS = 10;

    /** Reads and renders a page. */
    interface Page {
        HttpAnswer render() throws IOException;
    }

    private final Semaphore slots = new Semaphore(Math.max(2, Runtime.getRuntime().availableProcessors()), true);

    /** Reads and renders a page in a slot; {@code what} names it in the 503 when no slot frees in time. */
    HttpAnswer render(String what, String requestId, Page page) throws IOException {
        boolean acquired;
        try {
            acquired = slots.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            acquired = false;
        }
        if (!acquired) {
            throw new Refusal(HttpResponses.error(503, "overloaded", "the server is busy reading other pages of"
                    + " events and could not read " + what + " within " + WAIT_SECONDS + " s; retry shortly",
                    requestId).header("Retry-After", "1"));
        }
        try {
            return page.render();
        } finally {
            slots.release();
        }
    }
}
