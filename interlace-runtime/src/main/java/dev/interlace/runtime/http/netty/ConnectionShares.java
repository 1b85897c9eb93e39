package dev.interlace.runtime.http.netty;

import dev.interlace.runtime.http.HttpLimits;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Decides, as a connection opens, what it may do: everything while the server and the client's address are within
 * their connection limits; beyond either, only {@code /health/*} on one of a small reserve of connections (so a
 * liveness probe is answered while a client holds every other connection, and one address can take only a few of
 * the reserve); beyond the reserve, nothing but a 503. An address whose places in the reserve are all taken by
 * connections that have sent nothing yet gets a place anyway: its oldest silent one gives it up (answered 503 and
 * closed), so that a client holding every place open does not keep a probe from its own address from being
 * answered. The counts live in memory bounded by the open connections: an address leaves the table with its last
 * connection.
 */
final class ConnectionShares {

    /** Connections over a limit that may still ask for {@code /health/*}. */
    static final int HEALTH_RESERVE = 64;
    /** How many of the reserve one address may hold. */
    static final int HEALTH_RESERVE_PER_ADDRESS = 4;

    /**
     * The event a connection holding a place in the reserve receives when a newer one from its address takes the
     * place: if it has still sent nothing, it is answered 503 {@code too_many_connections} and closed.
     */
    static final Object EVICTED = new Object() {
        @Override
        public String toString() {
            return "reserve place taken";
        }
    };

    static final String MAX_CONNECTIONS = "max_connections";
    static final String MAX_CONNECTIONS_PER_ADDRESS = "max_connections_per_address";

    /**
     * What a connection may do.
     *
     * @param healthOnly whether only {@code /health/*} is served (one request, then the connection closes)
     * @param refused whether nothing is served: the connection is answered 503 as it opens, and closed
     * @param limit the limit it is over ({@link #MAX_CONNECTIONS} or {@link #MAX_CONNECTIONS_PER_ADDRESS}), or null
     * @param message the 503's message when a request is refused for it, or null
     */
    record Admission(boolean healthOnly, boolean refused, String limit, String message) {

        static final Admission FULL = new Admission(false, false, null, null);
    }

    /**
     * One address's open connections, how many of them hold a place in the reserve, and those of them that have sent
     * nothing yet, oldest first.
     */
    private static final class Share {
        int open;
        int reserved;
        final ArrayDeque<Channel> silent = new ArrayDeque<>(HEALTH_RESERVE_PER_ADDRESS);
    }

    private final int maxConnections;
    private final int maxPerAddress;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger reserved = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Share> byAddress = new ConcurrentHashMap<>();
    private final Counter refusedOverMax;
    private final Counter refusedOverPerAddress;

    ConnectionShares(HttpLimits limits, MeterRegistry registry) {
        this.maxConnections = limits.maxConnections();
        this.maxPerAddress = limits.maxConnectionsPerAddress();
        this.refusedOverMax = refusedCounter(registry, MAX_CONNECTIONS);
        this.refusedOverPerAddress = refusedCounter(registry, MAX_CONNECTIONS_PER_ADDRESS);
        Gauge.builder("interlace.http.connections.open", open, AtomicInteger::get)
                .description("HTTP connections open now, refused ones being answered included")
                .register(registry);
        Gauge.builder("interlace.http.connections.reserved", reserved, AtomicInteger::get)
                .description("Connections open over a connection limit that may ask only for /health/* (at most "
                        + HEALTH_RESERVE + ")")
                .register(registry);
    }

    private static Counter refusedCounter(MeterRegistry registry, String limit) {
        return Counter.builder("interlace.http.connections.refused")
                .description("Connections answered 503 too_many_connections because a connection limit was reached")
                .tag("limit", limit)
                .register(registry);
    }

    /** Counts {@code channel} in and decides what it may do; its place is given back when it closes. */
    Admission admit(Channel channel) {
        InetAddress address = address(channel);
        int total = open.incrementAndGet();
        Admission[] decided = new Admission[1];
        Channel[] evicted = new Channel[1];
        byAddress.compute(address, (key, share) -> {
            Share counted = share == null ? new Share() : share;
            counted.open++;
            decided[0] = decide(total, counted);
            if (decided[0].healthOnly()) {
                if (counted.reserved >= HEALTH_RESERVE_PER_ADDRESS) {
                    // The address's oldest silent place is handed over; it is counted out when it has closed.
                    evicted[0] = counted.silent.pollFirst();
                    reserved.incrementAndGet();
                }
                counted.reserved++;
                counted.silent.addLast(channel);
            }
            return counted;
        });
        Admission admission = decided[0];
        if (admission.refused()) {
            refused(admission);
        }
        channel.closeFuture().addListener(closed -> release(address, admission, channel));
        if (evicted[0] != null) {
            Channel silent = evicted[0];
            silent.eventLoop().execute(() -> silent.pipeline().fireUserEventTriggered(EVICTED));
        }
        return admission;
    }

    /** {@code channel}, which holds a place in the reserve, has sent its first byte: it keeps its place. */
    void spoke(Channel channel) {
        byAddress.computeIfPresent(address(channel), (key, share) -> {
            share.silent.remove(channel);
            return share;
        });
    }

    /** Counts a refusal of a request or a connection for being over {@code admission}'s limit. */
    void refused(Admission admission) {
        (MAX_CONNECTIONS.equals(admission.limit()) ? refusedOverMax : refusedOverPerAddress).increment();
    }

    /** Connections open now. */
    int open() {
        return open.get();
    }

    private Admission decide(int total, Share share) {
        String limit;
        String message;
        if (total > maxConnections) {
            limit = MAX_CONNECTIONS;
            message = "the server has " + maxConnections + " connections open, its limit (--max-connections);"
                    + " retry shortly";
        } else if (share.open > maxPerAddress) {
            limit = MAX_CONNECTIONS_PER_ADDRESS;
            message = "your address has " + maxPerAddress + " connections open, the limit for one address"
                    + " (--max-connections-per-address); reuse or close them";
        } else {
            return Admission.FULL;
        }
        boolean reserve = share.reserved < HEALTH_RESERVE_PER_ADDRESS;
        if (!reserve) {
            reserve = !share.silent.isEmpty(); // admit() takes the place of the oldest silent one
        } else if (reserved.incrementAndGet() > HEALTH_RESERVE) {
            reserved.decrementAndGet();
            reserve = false;
        }
        return new Admission(reserve, !reserve, limit, message);
    }

    private void release(InetAddress address, Admission admission, Channel channel) {
        open.decrementAndGet();
        byAddress.computeIfPresent(address, (key, share) -> {
            share.open--;
            if (admission.healthOnly()) {
                share.silent.remove(channel);
                share.reserved--;
                reserved.decrementAndGet();
            }
            return share.open == 0 ? null : share;
        });
    }

    private static InetAddress address(Channel channel) {
        return channel.remoteAddress() instanceof InetSocketAddress socket && socket.getAddress() != null
                ? socket.getAddress() : InetAddress.getLoopbackAddress();
    }
}
