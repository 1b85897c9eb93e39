package dev.interlace.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Polls one {@code POST /sql} query on a thread of its own and offers each cell of the first row, with the arrival
 * time of the answer, to a {@link Seen} of its own: publish-to-queryable latencies are read from them. An answer that
 * cannot be read (e.g. a model table not created yet) counts as "not yet" for every cell.
 */
final class SqlPoller implements AutoCloseable {

    /** What the poller saw, one per column of the query. */
    final Seen[] seen;
    final LatencyLog roundTrips = new LatencyLog();
    final AtomicLong polls = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    private SqlPoller(URI sql, String query, int columns, long pollMillis) {
        seen = new Seen[columns];
        for (int i = 0; i < columns; i++) {
            seen[i] = new Seen();
        }
        byte[] body = query.getBytes(StandardCharsets.UTF_8);
        thread = new Thread(() -> poll(sql, body, pollMillis), "bench-sql-poller");
        thread.setDaemon(true);
    }

    /**
     * Starts polling {@code query} (of {@code columns} integer columns) at {@code sql}, pausing {@code pollMillis}
     * between answers; returns once it has polled for 200 ms, so that the load starts against a running poller.
     */
    static SqlPoller start(URI sql, String query, int columns, long pollMillis) throws InterruptedException {
        SqlPoller poller = new SqlPoller(sql, query, columns, pollMillis);
        poller.thread.start();
        Thread.sleep(200);
        return poller;
    }

    private void poll(URI sql, byte[] query, long pollMillis) {
        try (RawHttpClient client = new RawHttpClient(sql, "text/plain")) {
            while (!stop.get()) {
                long before = System.nanoTime();
                RawHttpClient.Response response;
                try {
                    response = client.post(query);
                } catch (IOException e) {
                    errors.incrementAndGet();
                    continue;
                }
                long after = System.nanoTime();
                polls.incrementAndGet();
                roundTrips.add(after - before, 0);
                long[] cells = response.status() == 200 ? firstRow(response.body(), seen.length) : null;
                if (cells == null) {
                    if (errors.incrementAndGet() <= 3) {
                        System.out.println("poll not answered yet: " + response.status() + " " + response.body());
                    }
                } else {
                    for (int i = 0; i < seen.length; i++) {
                        seen[i].offer(cells[i], after);
                    }
                }
                LockSupport.parkNanos(pollMillis * 1_000_000L);
            }
        }
    }

    /** The cells of the first row of a {@code POST /sql} JSON result (SQL NULL as -1), or null when unreadable. */
    static long[] firstRow(String body, int columns) {
        int at = body.indexOf("\"rows\":[[");
        if (at < 0) {
            return null;
        }
        int end = body.indexOf(']', at + 9);
        String[] cells = body.substring(at + 9, end < 0 ? body.length() : end).split(",");
        if (cells.length < columns) {
            return null;
        }
        long[] values = new long[columns];
        try {
            for (int i = 0; i < columns; i++) {
                String cell = cells[i].strip().replace("\"", "");
                values[i] = cell.equals("null") ? -1 : Long.parseLong(cell);
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return values;
    }

    /** Stops polling; returns once the poller has ended. */
    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join();
    }
}
