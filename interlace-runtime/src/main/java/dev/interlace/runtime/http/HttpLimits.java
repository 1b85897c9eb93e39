package dev.interlace.runtime.http;

import dev.interlace.runtime.config.Connections;
import java.time.Duration;

/**
 * Bounds on what one client may make the server hold: bytes, connections and time.
 *
 * @param maxBodyBytes the largest body read (a larger one is refused 413 before it is read)
 * @param maxHeaderBytes the largest header block (431 beyond)
 * @param maxUrlBytes the longest request line (414 beyond)
 * @param maxConnections connections open at once; beyond, a few are kept for {@code /health/*} and the rest are
 *     answered 503 and closed
 * @param maxConnectionsPerAddress connections open at once from one client address; beyond, the same
 * @param headerTimeout time from a request's first byte to the end of its headers (408 and closed beyond)
 * @param bodyTimeout time from the end of the headers to the end of the body
 * @param firstRequestTimeout how long a new connection may wait before its first request starts (closed beyond)
 * @param idleTimeout how long a keep-alive connection may wait for its next request
 */
public record HttpLimits(long maxBodyBytes, int maxHeaderBytes, int maxUrlBytes, int maxConnections,
        int maxConnectionsPerAddress, Duration headerTimeout, Duration bodyTimeout, Duration firstRequestTimeout,
        Duration idleTimeout) {

    public static final int MAX_HEADER_BYTES = 16 * 1024;
    public static final int MAX_URL_BYTES = 8 * 1024;
    public static final Duration FIRST_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    /** Limits without a cap per address, a new connection waiting for its first request as long as an idle one. */
    public HttpLimits(long maxBodyBytes, int maxHeaderBytes, int maxUrlBytes, int maxConnections,
            Duration headerTimeout, Duration bodyTimeout, Duration idleTimeout) {
        this(maxBodyBytes, maxHeaderBytes, maxUrlBytes, maxConnections, maxConnections, headerTimeout, bodyTimeout,
                idleTimeout, idleTimeout);
    }

    /** The limits with the defaults for everything but the body size and the connections. */
    public static HttpLimits defaults(long maxBodyBytes, Connections connections) {
        return new HttpLimits(maxBodyBytes, MAX_HEADER_BYTES, MAX_URL_BYTES, connections.max(),
                connections.perAddress(), Duration.ofSeconds(10), Duration.ofSeconds(30), FIRST_REQUEST_TIMEOUT,
                Duration.ofSeconds(60));
    }
}
