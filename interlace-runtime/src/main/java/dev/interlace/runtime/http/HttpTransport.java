package dev.interlace.runtime.http;

import java.io.IOException;

/**
 * The network side of the HTTP API: accepts connections, reads each request whole within {@link HttpLimits},
 * hands it to the {@link HttpDispatcher} and writes the answer. Routes never see the server library, so a
 * transport can be swapped (a benchmark compares two) without touching them.
 */
public interface HttpTransport {

    /** Binds {@code bind:port} (port 0: an ephemeral one) and starts serving; returns the bound port. */
    int start(String bind, int port, HttpDispatcher dispatcher) throws IOException;

    /** Closes every connection and releases the transport's threads. */
    void stop();

    /** What serves the requests, for the log at start-up, e.g. {@code netty 4.2 (nio, 2 event loops)}. */
    String description();
}
