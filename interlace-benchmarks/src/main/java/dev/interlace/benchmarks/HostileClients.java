package dev.interlace.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients that try to make a server hold resources, all driven by one NIO thread of the benchmark: slowloris
 * connections that send a request line and then one header byte every {@code dribbleMillis}, and long polls
 * ({@code GET /streams/<stream>/events?after=<head>&wait_ms=30000}) that park until an event arrives. Counts what the
 * server did to them: answered (any bytes back) or closed.
 */
final class HostileClients implements AutoCloseable {

    private final InetSocketAddress server;
    private final int slowloris;
    private final int longPolls;
    private final String pollTarget;
    private final long dribbleMillis;
    private final List<SocketChannel> dribbling = new ArrayList<>();
    private final Tally slowlorisTally = new Tally();
    private final Tally pollTally = new Tally();
    private final AtomicInteger connectFailures = new AtomicInteger();
    private final CountDownLatch opened = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean stopping;
    private Selector selector;

    /** What a connection is for, attached to its key. */
    private enum Kind { SLOWLORIS, LONG_POLL }

    /** What became of the connections of one kind: how many are still open, were answered, were closed. */
    private static final class Tally {
        final AtomicInteger open = new AtomicInteger();
        final AtomicInteger answered = new AtomicInteger();
        final AtomicInteger closed = new AtomicInteger();

        @Override
        public String toString() {
            return open.get() + " still open (" + answered.get() + " answered, " + closed.get()
                    + " closed by the server)";
        }
    }

    private Tally tally(Kind kind) {
        return kind == Kind.SLOWLORIS ? slowlorisTally : pollTally;
    }

    HostileClients(InetSocketAddress server, int slowloris, int longPolls, String stream, long head,
            long dribbleMillis) {
        this.server = server;
        this.slowloris = slowloris;
        this.longPolls = longPolls;
        this.pollTarget = "/streams/" + stream + "/events?after=" + head + "&wait_ms=30000";
        this.dribbleMillis = dribbleMillis;
        this.thread = new Thread(this::run, "bench-hostile");
        thread.setDaemon(true);
    }

    /** Opens every connection and sends what each sends first; returns once all are open. */
    void start() throws InterruptedException {
        thread.start();
        opened.await();
    }

    private void run() {
        try (Selector created = Selector.open()) {
            selector = created;
            byte[] slowStart = ("GET /health/live HTTP/1.1\r\nHost: " + server.getHostString() + "\r\nX-Slow: ")
                    .getBytes(StandardCharsets.US_ASCII);
            byte[] poll = ("GET " + pollTarget + " HTTP/1.1\r\nHost: " + server.getHostString() + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < Math.max(slowloris, longPolls); i++) {
                if (i < slowloris) {
                    open(Kind.SLOWLORIS, slowStart);
                }
                if (i < longPolls) {
                    open(Kind.LONG_POLL, poll);
                }
            }
            opened.countDown();
            ByteBuffer sink = ByteBuffer.allocate(4096);
            ByteBuffer dribble = ByteBuffer.allocate(1);
            long nextDribble = System.nanoTime() + dribbleMillis * 1_000_000L;
            while (!stopping) {
                selector.select(Math.max(1, (nextDribble - System.nanoTime()) / 1_000_000L));
                for (SelectionKey key : selector.selectedKeys()) {
                    read(key, sink);
                }
                selector.selectedKeys().clear();
                if (System.nanoTime() >= nextDribble) {
                    nextDribble += dribbleMillis * 1_000_000L;
                    for (SocketChannel channel : dribbling) {
                        if (channel.isOpen()) {
                            try {
                                dribble.clear();
                                dribble.put((byte) 'x').flip();
                                channel.write(dribble);
                            } catch (IOException e) {
                                closed(channel.keyFor(selector));
                            }
                        }
                    }
                }
            }
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
        } catch (IOException e) {
            System.out.println("hostile clients failed: " + e);
        } finally {
            opened.countDown();
        }
    }

    private void open(Kind kind, byte[] first) {
        try {
            SocketChannel channel = SocketChannel.open(server);
            channel.write(ByteBuffer.wrap(first));
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ, kind);
            if (kind == Kind.SLOWLORIS) {
                dribbling.add(channel);
            }
            tally(kind).open.incrementAndGet();
        } catch (IOException e) {
            connectFailures.incrementAndGet();
        }
    }

    private void read(SelectionKey key, ByteBuffer sink) {
        SocketChannel channel = (SocketChannel) key.channel();
        try {
            sink.clear();
            int read = channel.read(sink);
            if (read < 0) {
                closed(key);
            } else if (read > 0 && key.attachment() instanceof Kind kind) {
                tally(kind).answered.incrementAndGet();
                synchronized (this) {
                    notifyAll(); // see awaitPollsAnswered
                }
                key.attach(new Answered(kind));
            }
        } catch (IOException e) {
            closed(key);
        }
    }

    /** A connection that has been answered once (counted once). */
    private record Answered(Kind kind) {}

    private void closed(SelectionKey key) {
        if (key == null || !key.isValid()) {
            return;
        }
        Kind kind = key.attachment() instanceof Answered answered ? answered.kind() : (Kind) key.attachment();
        tally(kind).open.decrementAndGet();
        tally(kind).closed.incrementAndGet();
        key.cancel();
        try {
            key.channel().close();
        } catch (IOException ignored) {
            // closed anyway
        }
    }

    /** A one-line account, e.g. {@code slowloris 500 open (0 answered, 0 closed by the server); ...}. */
    String state() {
        return "slowloris " + slowlorisTally + "; long polls " + pollTally + "; " + connectFailures.get()
                + " connects failed";
    }

    int pollsOpen() {
        return pollTally.open.get();
    }

    int pollsAnswered() {
        return pollTally.answered.get();
    }

    /** Waits until {@code count} long polls were answered in all, or until {@code deadlineNanos} (System.nanoTime). */
    synchronized void awaitPollsAnswered(int count, long deadlineNanos) throws InterruptedException {
        long left;
        while (pollTally.answered.get() < count && (left = (deadlineNanos - System.nanoTime()) / 1_000_000) > 0) {
            wait(left);
        }
    }

    int slowlorisClosed() {
        return slowlorisTally.closed.get();
    }

    @Override
    public void close() throws InterruptedException {
        stopping = true;
        if (selector != null) {
            selector.wakeup();
        }
        thread.join(10_000);
    }
}
