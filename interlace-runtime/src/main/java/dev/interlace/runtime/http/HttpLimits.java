package dev.interlace.runtime.http;

import java.time.Duration;

/**
 * Bounds on what one client may make the server hold: bytes, connections and time.
 *
 * @param maxBodyBytes the largest body read (a larger one is refused 413 before it is read)
 * @param maxHeaderBytes the largest header block (431 beyond)
 * @param maxUrlBytes the longest request line (414 beyond)
 * @param maxConnections connections open at once; more are answered 503 and closed
 * @param headerTimeout time from a request's first byte to the end of its headers (408 and closed beyond)
 * @param bodyTimeout time from the end of the headers to the end of the body
 * @param idleTimeout how long a keep-alive connection may wait for its next request
 */
public record HttpLimits(long maxBodyBytes, int maxHeaderBytes, int maxUrlBytes, int maxConnections,
        Duration headerTimeout, Duration bodyTimeout, Duration idleTimeout) {

    public static final int MAX_HEADER_BYTES = 16 * 1024;
    public static final int MAX_URL_BYTES = 8 * 1024;

    /** The limits with the defaults for everything but the body size. */
    public static HttpLimits defaults(long maxBodyBytes) {
        return new HttpLimits(maxBodyBytes, MAX_HEADER_BYTES, MAX_URL_BYTES, 10_000, Duration.ofSeconds(10),
                Duration.ofSeconds(30), Duration.ofSeconds(60));
    }
}
