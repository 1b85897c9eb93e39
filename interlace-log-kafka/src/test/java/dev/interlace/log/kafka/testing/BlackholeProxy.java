package dev.interlace.log.kafka.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy a test puts between one client and a broker's listener to cut the network between them: while
 * {@linkplain #cut cut} it relays nothing either way and holds new connections without connecting them, as a network
 * that drops every packet would look to both sides (their sockets stay open, nothing arrives); {@link #heal} lets
 * the bytes held meanwhile through, as TCP's retransmissions would deliver them once the network is back. Nothing
 * else is touched: the client's other traffic and everyone else's reach their peers as before.
 *
 * <p>Each connection is two threads, one per direction; {@link #close} closes every socket and ends them.
 */
public final class BlackholeProxy implements AutoCloseable {

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private volatile boolean cut;
    private volatile boolean closed;

    /** Listens on {@code port} of the loopback address and relays each connection to {@code target}. */
    public BlackholeProxy(int port, InetSocketAddress target) {
        try {
            this.server = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("the proxy cannot listen on port " + port, e);
        }
        this.target = target;
        Thread acceptor = new Thread(this::accept, "blackhole-proxy-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** From now on nothing goes through, either way, on old connections or new ones. */
    public void cut() {
        cut = true;
    }

    /** Everything goes through again, what was held first. */
    public void heal() {
        synchronized (gate) {
            cut = false;
            gate.notifyAll();
        }
    }

    private void awaitHealed() throws InterruptedException {
        synchronized (gate) {
            while (cut && !closed) {
                gate.wait(100);
            }
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                sockets.add(client);
                Thread connector = new Thread(() -> connect(client), "blackhole-proxy-connect");
                connector.setDaemon(true);
                connector.start();
            } catch (IOException e) {
                if (!closed) {
                    throw new UncheckedIOException("the proxy stopped accepting", e);
                }
            }
        }
    }

    private void connect(Socket client) {
        try {
            awaitHealed(); // a connection opened during the cut gets no answer until the heal
            Socket upstream = new Socket();
            sockets.add(upstream);
            upstream.connect(target, 10_000);
            relay(client, upstream, "up");
            relay(upstream, client, "down");
        } catch (IOException e) {
            closeQuietly(client);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void relay(Socket from, Socket to, String direction) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    awaitHealed();
                    out.write(buffer, 0, read);
                    out.flush();
                }
                awaitHealed(); // the end of the stream goes through after what came before it
            } catch (IOException | InterruptedException e) {
                // one side went away: so does the other
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "blackhole-proxy-" + direction);
        pump.setDaemon(true);
        pump.start();
    }

    /** The port clients connect to. */
    public int port() {
        return server.getLocalPort();
    }

    @Override
    public void close() {
        closed = true;
        heal();
        closeQuietly(server);
        sockets.forEach(BlackholeProxy::closeQuietly);
    }

    private static void closeQuietly(java.io.Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
