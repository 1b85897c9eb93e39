package dev.interlace.runtime.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The one memory budget of the HTTP API: the bytes that requests in flight hold, all connections together — bodies
 * being read and the events decoded from them, pages of events and {@code /sql} results being built and written.
 * Each request is bounded by its own limits; this bounds their sum, so that no mix of clients can take the heap.
 *
 * <p>A request reserves what it will hold before it holds it (a body from its {@code Content-Length}, before it is
 * read; a part of a streamed page entry by entry, before each payload is fetched), into its {@link Hold}, which the
 * transport releases once the request's answer is written or its connection is gone, whatever happened in between;
 * a streamed answer gives back each part's bytes as soon as the part is written to the socket. A reservation that
 * does not fit is refused, never waited for: the request is answered {@code 503 overloaded} with
 * {@code Retry-After} (or a reader gets a shorter page). A request holding all that is held may reserve past the
 * budget (at once, or step by step as a gzip body or a query's rows grow), so that a request the other limits allow
 * is never refused for ever.
 *
 * <p>What is reserved is an estimate of the heap a request's bytes take, counting the copies that exist at once:
 * {@link #BODY_COPIES} for a body, {@link #ANSWER_COPIES} for a whole answer's payload bytes,
 * {@link #STREAMED_COPIES} for a streamed part's.
 */
public final class InflightBytes {

    /**
     * Copies of a request body that exist at once, at worst: the bytes as read, the body handed to the route, and the
     * events decoded from it (their payloads and their decoded values, a string counted twice when it is not Latin-1).
     */
    public static final int BODY_COPIES = 4;
    /**
     * Copies of the stored bytes an answer carries that exist at once: the payloads read from the log, the JSON being
     * written (a growing buffer, then its final array), and the copy the network layer writes from.
     */
    public static final int ANSWER_COPIES = 3;
    /**
     * Copies of the stored bytes that a streamed answer's batch carries that exist at once: the payloads read from the
     * log, which its parts wrap as they are. The network layer's copy of the part being written (at most
     * {@link HttpAnswer.Part#MAX_BYTES}) is reserved besides, once per batch.
     */
    public static final int STREAMED_COPIES = 1;

    /** No budget: every reservation is granted (requests built by hand, benchmarks' transports). */
    public static final InflightBytes UNLIMITED = new InflightBytes(Long.MAX_VALUE);

    private final long limit;
    private final AtomicLong held = new AtomicLong();

    /** @param limit bytes that requests in flight may hold together */
    public InflightBytes(long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("the in-flight byte budget must be positive: " + limit);
        }
        this.limit = limit;
    }

    /** A new, empty reservation for one request. */
    public Hold hold() {
        return new Hold();
    }

    /** The budget's size in bytes. */
    public long limit() {
        return limit;
    }

    /** Bytes reserved now, all requests together. */
    public long held() {
        return held.get();
    }

    /** Reserves {@code bytes} for a request that holds {@code mine} already: past the limit only when it is alone. */
    private boolean tryReserve(long bytes, long mine) {
        if (limit == Long.MAX_VALUE) {
            return true;
        }
        while (true) {
            long now = held.get();
            if (now > mine && now + bytes > limit) {
                return false;
            }
            if (held.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    private void release(long bytes) {
        if (limit != Long.MAX_VALUE) {
            held.addAndGet(-bytes);
        }
    }

    /**
     * What one request reserved: added to while it is read and served (from the transport's thread and the route's),
     * released all at once by the transport when the request's memory is gone. Releasing twice releases nothing more,
     * and a released hold reserves nothing more: a route still reading for a request whose connection is gone (a
     * query, a page) is refused instead of taking budget that nobody would give back.
     */
    public final class Hold {

        private static final long RELEASED = -1;

        private final AtomicLong bytes = new AtomicLong();

        private Hold() {}

        /** Reserves {@code more} bytes for this request; false (and nothing reserved) when they do not fit. */
        public boolean reserve(long more) {
            if (more <= 0) {
                return bytes.get() != RELEASED;
            }
            long mine = bytes.get();
            if (mine == RELEASED || !tryReserve(more, mine)) {
                return false;
            }
            while (true) {
                long now = bytes.get();
                if (now == RELEASED) { // released while this reservation was made: it goes back at once
                    InflightBytes.this.release(more);
                    return false;
                }
                if (bytes.compareAndSet(now, now + more)) {
                    return true;
                }
            }
        }

        /** Bytes this request holds reserved. */
        public long bytes() {
            return Math.max(0, bytes.get());
        }

        /**
         * Gives back {@code less} of what this request reserved while it goes on (a part of a streamed answer that
         * is written); nothing once the hold is released, which gave back everything.
         */
        public void giveBack(long less) {
            if (less <= 0) {
                return;
            }
            while (true) {
                long now = bytes.get();
                if (now == RELEASED) {
                    return;
                }
                long returned = Math.min(less, now);
                if (bytes.compareAndSet(now, now - returned)) {
                    InflightBytes.this.release(returned);
                    return;
                }
            }
        }

        /** Gives back everything this request reserved; it reserves nothing more. */
        public void release() {
            long reserved = bytes.getAndSet(RELEASED);
            if (reserved > 0) {
                InflightBytes.this.release(reserved);
            }
        }
    }
}
