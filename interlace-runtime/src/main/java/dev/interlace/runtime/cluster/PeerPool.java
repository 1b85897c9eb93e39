package dev.interlace.runtime.cluster;

import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLContext;

/**
 * The connections to one node: at most {@link #MAX_CONNECTIONS}, each with at most {@link #MAX_IN_FLIGHT} requests
 * pipelined on it; a request goes to the connection with the fewest in flight, a new connection opens while each has
 * {@link #OPEN_AT} or more, and a request that finds every connection full waits in a queue of at most
 * {@link #MAX_WAITING} (beyond, it fails at once: the node is that far behind). The bytes of the requests and of
 * their answers count against the sending node's in-flight budget (the request's own hold, the answer's allowance).
 *
 * <p>A connection that closes fails what it had in flight and leaves the pool; the next request opens a new one, so a
 * node that restarted is reconnected to. When a connection cannot be opened at all (refused, timed out, the secret
 * not proved) the requests waiting for one fail with that cause.
 */
final class PeerPool {

    /** Connections to one node: enough to spread its answers over its event loops. */
    static final int MAX_CONNECTIONS = 4;
    /** Requests pipelined on one connection: what the node serves at once on a session without refusing more. */
    static final int MAX_IN_FLIGHT = 16;
    /** Requests in flight on every connection beyond which another one opens. */
    static final int OPEN_AT = 2;
    /** Requests waiting for a place on a connection. */
    static final int MAX_WAITING = 1024;

    private final String nodeUrl;
    private final String host;
    private final int port;
    private final SSLContext tls;
    private final ForwardSignature signature;
    private final EventLoopGroup loop;
    private final List<PeerConnection> connections = new ArrayList<>();
    private final ArrayDeque<PeerConnection.Exchange> waiting = new ArrayDeque<>();

    PeerPool(String nodeUrl, String host, int port, SSLContext tls, ForwardSignature signature, EventLoopGroup loop) {
        this.nodeUrl = nodeUrl;
        this.host = host;
        this.port = port;
        this.tls = tls;
        this.signature = signature;
        this.loop = loop;
    }

    CompletableFuture<Peers.Answer> send(Peers.Request request, Peers.AnswerAllowance allowance) {
        PeerConnection.Exchange exchange = new PeerConnection.Exchange(request, allowance);
        resend(exchange);
        return exchange.answer();
    }

    /** Places {@code exchange} on a connection, or among those waiting for one (also: one never sent on its first). */
    void resend(PeerConnection.Exchange exchange) {
        PeerConnection chosen;
        synchronized (this) {
            chosen = leastLoaded();
            if ((chosen == null || chosen.inFlight() >= OPEN_AT) && connections.size() < MAX_CONNECTIONS) {
                open();
            }
            if (chosen == null || chosen.inFlight() >= MAX_IN_FLIGHT) {
                if (waiting.size() >= MAX_WAITING) {
                    exchange.answer().completeExceptionally(new IOException(MAX_WAITING + " requests already wait"
                            + " for a connection to " + nodeUrl));
                    return;
                }
                waiting.add(exchange);
                return;
            }
            chosen.reserve();
        }
        chosen.submit(exchange);
    }

    /** Whether {@code connection}, idle, may close: nothing was placed on it meanwhile (it then takes no more). */
    synchronized boolean retireIfIdle(PeerConnection connection) {
        return connection.retire();
    }

    /** The ready connection with the fewest requests in flight, or null when none is ready. */
    private PeerConnection leastLoaded() {
        PeerConnection least = null;
        for (PeerConnection connection : connections) {
            if (connection.ready() && (least == null || connection.inFlight() < least.inFlight())) {
                least = connection;
            }
        }
        return least;
    }

    private void open() {
        connections.add(PeerConnection.open(this, nodeUrl, host, port, tls, signature, loop));
    }

    /** A connection is ready, or has room again: waiting requests go to it while it has room. */
    void room(PeerConnection connection) {
        List<PeerConnection.Exchange> sent = new ArrayList<>();
        synchronized (this) {
            while (!waiting.isEmpty() && connection.ready() && connection.inFlight() < MAX_IN_FLIGHT) {
                connection.reserve();
                sent.add(waiting.poll());
            }
        }
        for (PeerConnection.Exchange exchange : sent) {
            connection.submit(exchange);
        }
    }

    /**
     * {@code connection} closed; {@code cause} is why, and whether it was ever ready. One that never was fails the
     * waiting requests when no other connection can take them (the node cannot be reached); otherwise they wait
     * for a new connection.
     */
    void closed(PeerConnection connection, IOException cause, boolean wasReady) {
        List<PeerConnection.Exchange> failed = new ArrayList<>();
        synchronized (this) {
            connections.remove(connection);
            if (!waiting.isEmpty()) {
                if (!wasReady && connections.stream().noneMatch(PeerConnection::ready)) {
                    failed.addAll(waiting);
                    waiting.clear();
                } else if (connections.isEmpty()) {
                    open();
                }
            }
        }
        for (PeerConnection.Exchange exchange : failed) {
            exchange.answer().completeExceptionally(cause);
        }
    }
}
