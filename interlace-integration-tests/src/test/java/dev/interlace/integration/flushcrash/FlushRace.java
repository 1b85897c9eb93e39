package dev.interlace.integration.flushcrash;

import dev.interlace.integration.OrdersStream;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushLease;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.flush.FlushPositions;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.flush.RecentEvents;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.SqliteStreamLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.sql.QueryResult;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.Pause;
import dev.interlace.runtime.warehouse.Warehouse;
import dev.interlace.warehouse.duckdb.DuckDbWarehouseFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A log and a DuckDB warehouse in this JVM, without a server, for several test-only {@link Flusher} instances on the
 * same stream, each leasing it under its own name with a {@link #LEASE_TTL} lease. The warehouse's listener sleeps 0–2 ms inside each flush transaction so that other flushers' claims
 * and appends overlap it, and can stop the next flush inside its transaction ({@link #inTransaction}: after the
 * Appender wrote the rows, before the commit).
 */
final class FlushRace implements AutoCloseable {

    static final int BATCH_ROWS = 50;
    /**
     * Long enough that a flusher started while another holds the lease finds it held even on a loaded machine (at
     * 400 ms, starting one sometimes took longer than the lease lasted), short enough for a takeover to come quickly.
     */
    static final Duration LEASE_TTL = Duration.ofMillis(1500);
    static final Warehouse.Target EVENTS = Warehouse.Target.events(OrdersStream.DESCRIPTOR.name());

    /** Stops the next flush (whichever flusher's) after its rows are written, before its commit, once armed. */
    final Hold inTransaction = new Hold();
    /** While true, every flush fails just before its commit (a warehouse that cannot write). */
    volatile boolean failCommits;

    private final StreamCatalog catalog = StreamCatalog.of(List.of(OrdersStream.DESCRIPTOR));
    private final InterlaceConfig config;
    private final SqliteStreamLog log;
    private final Warehouse warehouse;
    private final List<Flusher> flushers = new ArrayList<>();
    private final List<SharedWarehouse> views = new ArrayList<>();
    private final List<String> names = new ArrayList<>();
    private final List<String> closeTimes = new ArrayList<>();
    private final SplittableRandom random = new SplittableRandom(7);
    private int requests;

    FlushRace(Path directory) {
        config = ConfigLoader.load(new String[] {"--data-dir", directory.toString(), "--flush-batch-rows",
                Integer.toString(BATCH_ROWS), "--flush-delay-ms", "1"}, Map.of()).config();
        Watermarks none = new Watermarks() {
            @Override
            public long events(String stream) {
                return 0; // backpressure is not under test
            }

            @Override
            public long quarantine(String stream) {
                return 0;
            }
        };
        log = new SqliteStreamLog(directory, LogSettings.defaults(10_000_000), none, CommitListener.NONE,
                Clock.systemUTC());
        log.register(OrdersStream.DESCRIPTOR);
        warehouse = new DuckDbWarehouseFactory().open(directory, new FlushListener() {
            @Override
            public void afterWatermarkUpdate(Warehouse.Target target, long newWatermark) {
                jitter();
            }

            @Override
            public void beforeCommit(Warehouse.Target target, long newWatermark, int rows) {
                inTransaction.here();
                if (failCommits) {
                    throw new IllegalStateException("the warehouse cannot write (test fault)");
                }
                jitter();
            }
        });
    }

    private static void jitter() {
        try {
            Pause.millis(ThreadLocalRandom.current().nextInt(3)); // widens the race windows
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A flusher listener that stops its flusher between batches (after a commit, outside any transaction). */
    static FlushListener holdingBetweenBatches(Hold hold) {
        return new FlushListener() {
            @Override
            public void afterCommit(Warehouse.Target target, long newWatermark) {
                hold.here();
            }
        };
    }

    /**
     * Constructs one more flusher over the shared log and warehouse and starts it (it prepares the stream, then
     * leases it, standing by while another flusher holds the lease); {@code afterPrepare} runs between the two.
     */
    Flusher startFlusher(String name, FlushListener listener, Consumer<Warehouse.Positions> afterPrepare) {
        SharedWarehouse view = new SharedWarehouse(warehouse, afterPrepare);
        Flusher flusher = new Flusher(catalog, log, log, Optional.of(view.view), new FlushPositions(), listener,
                new FlushLease(name, LEASE_TTL), new RequestIds(Clock.systemUTC()), SystemRecords.DISCARD,
                Clock.systemUTC(), config, RecentEvents.NONE,
                dev.interlace.runtime.health.ComponentHealth.unwatched());
        synchronized (this) {
            flushers.add(flusher);
            views.add(view);
            names.add(name);
        }
        flusher.start();
        return flusher;
    }

    Flusher startFlusher(String name, FlushListener listener) {
        return startFlusher(name, listener, positions -> {});
    }

    /** Appends {@code count} requests of {@code size} fresh events each, waiting for each to be durable. */
    void publish(String prefix, int count, int size) throws Exception {
        for (int r = 0; r < count; r++) {
            List<AppendRequest.Entry> entries = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                String key = prefix + "-" + r + "-" + i;
                entries.add(new AppendRequest.Event(PublishLoad.event(key, random).getBytes(StandardCharsets.UTF_8),
                        key));
            }
            Instant now = Instant.now();
            AppendResult result = log.append(new AppendRequest(OrdersStream.DESCRIPTOR.name(),
                    "race-" + prefix + "-" + (requests++), now.getEpochSecond() * 1_000_000L + now.getNano() / 1000,
                    OrdersStream.DESCRIPTOR.schemaVersion(), entries)).get(30, TimeUnit.SECONDS);
            if (!(result instanceof AppendResult.Committed committed)
                    || committed.count(AppendResult.Status.ACCEPTED) != size) {
                throw new IllegalStateException("append of " + size + " fresh events: " + result);
            }
            Pause.millis(1); // the publisher's pace
        }
    }

    /** {@link #publish} on a thread of its own; {@link Background#join} waits and rethrows its failure. */
    Background publishInBackground(String prefix, int count, int size) {
        AtomicReference<Exception> failure = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                publish(prefix, count, size);
            } catch (Exception e) {
                failure.set(e);
            }
        }, "race-publisher-" + prefix);
        thread.setDaemon(true);
        thread.start();
        return new Background(thread, failure);
    }

    record Background(Thread thread, AtomicReference<Exception> failure) {
        void join() throws Exception {
            thread.join(60_000);
            if (thread.isAlive()) {
                throw new IllegalStateException("publishing did not finish within 60 s");
            }
            if (failure.get() != null) {
                throw failure.get();
            }
        }
    }

    long head() {
        return log.heads().get(OrdersStream.DESCRIPTOR.name()).head();
    }

    long watermark() {
        return warehouse.watermark(EVENTS);
    }

    /** Waits until the committed watermark reaches {@code target}; false on timeout. */
    boolean awaitWatermark(long target, Duration timeout) throws InterruptedException {
        try {
            Eventually.until("the watermark reaches " + target, timeout, () -> watermark() >= target);
            return true;
        } catch (AssertionError timedOut) {
            return false;
        }
    }

    /** Waits until the committed watermark moves past {@code watermark}; false on timeout. */
    boolean awaitWatermarkPast(long watermark, Duration timeout) throws InterruptedException {
        return awaitWatermark(watermark + 1, timeout);
    }

    /**
     * How a race ended: the log's head, whether the watermark reached it in time, the rows' {@code count(*)},
     * {@code count(DISTINCT _offset)} and {@code max(_offset)} after that, and the state in one line for the
     * assertions' messages.
     */
    record Outcome(long head, boolean caughtUp, long rows, long distinctOffsets, long maxOffset, String state) {}

    /** Waits up to {@code timeout} for the watermark to reach the log's head as it is now, then tells how it ended. */
    Outcome outcome(Duration timeout) throws InterruptedException {
        long head = head();
        boolean caughtUp = awaitWatermark(head, timeout);
        long[] counts = counts();
        return new Outcome(head, caughtUp, counts[0], counts[1], counts[2], describe());
    }

    /** {@code count(*)}, {@code count(DISTINCT _offset)} and {@code max(_offset)} of {@code streams.orders}. */
    long[] counts() {
        QueryResult result = warehouse.query("SELECT count(*), count(DISTINCT _offset), coalesce(max(_offset), 0)"
                + " FROM streams.orders", 1, Duration.ofSeconds(30));
        List<Object> row = result.rows().get(0);
        return new long[] {((Number) row.get(0)).longValue(), ((Number) row.get(1)).longValue(),
                ((Number) row.get(2)).longValue()};
    }

    /** The state in one line: head, watermark, row counts and each flusher's appends. */
    synchronized String describe() {
        long[] counts = counts();
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < flushers.size(); i++) {
            parts.add(names.get(i) + ": " + views.get(i).describeAppends() + ", "
                    + flushers.get(i).status(OrdersStream.DESCRIPTOR.name()).state().wire());
        }
        Leases.Group group = log.groups(OrdersStream.DESCRIPTOR.name()).stream()
                .filter(g -> g.group().equals(FlushLease.GROUP)).findFirst().orElse(null);
        if (group != null) {
            parts.add("lease " + group.holder() + " token " + group.token() + " (warehouse token "
                    + warehouseToken() + ")");
        }
        return "head " + head() + ", _watermarks " + watermark() + ", count(*) " + counts[0]
                + ", count(DISTINCT _offset) " + counts[1] + ", max(_offset) " + counts[2] + "; appends "
                + String.join("; ", parts);
    }

    /** Stops the next append of the flusher called {@code name} before it reaches the warehouse, once armed. */
    synchronized Hold beforeAppend(String name) {
        return views.get(names.indexOf(name)).beforeAppend;
    }

    /** How many appends each flusher committed so far, by name. */
    synchronized Map<String, Integer> committedByName() {
        Map<String, Integer> counts = new java.util.HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            counts.put(names.get(i), views.get(i).committed());
        }
        return counts;
    }

    /** How many appends of the flusher called {@code name} committed. */
    synchronized int committed(String name) {
        return views.get(names.indexOf(name)).committed();
    }

    /** The flush state of the flusher called {@code name} ({@code standby} while another holds the lease). */
    synchronized String state(String name) {
        return flushers.get(names.indexOf(name)).status(OrdersStream.DESCRIPTOR.name()).state().wire();
    }

    /** The flusher's consumer group in the log: who holds the lease, with which token. */
    Leases.Group flusherGroup() {
        return log.groups(OrdersStream.DESCRIPTOR.name()).stream()
                .filter(group -> group.group().equals(FlushLease.GROUP)).findFirst().orElseThrow();
    }

    /** Whether the flusher group's lease has expired (its holder has not renewed it in time). */
    boolean leaseExpired() {
        return flusherGroup().expiresAtMicros() < EpochMicros.now(Clock.systemUTC());
    }

    /** The fencing token recorded in {@code streams._watermarks} for the stream's events. */
    long warehouseToken() {
        return ((Number) warehouse.query("SELECT fencing_token FROM streams._watermarks WHERE stream = 'orders'", 1,
                Duration.ofSeconds(30)).rows().get(0).get(0)).longValue();
    }

    /** How many appends of the flusher called {@code name} failed other than by the fence. */
    synchronized int failed(String name) {
        return views.get(names.indexOf(name)).failed();
    }

    /** How many appends of the flusher called {@code name} the fence refused. */
    synchronized int fenced(String name) {
        return views.get(names.indexOf(name)).fenced();
    }

    /** How long each flusher's {@code close()} took (see {@link #close()}). */
    synchronized List<String> closeTimes() {
        return List.copyOf(closeTimes);
    }

    /**
     * Closes the flushers (on threads of their own, waiting at most 2 s for each: a flusher backing off after a
     * refused append sits in a scheduled delay that its executor's shutdown waits out; how long each took is in
     * {@link #closeTimes()}), then the log and warehouse.
     */
    @Override
    public void close() {
        List<Thread> threads = new ArrayList<>();
        synchronized (this) {
            for (int i = 0; i < flushers.size(); i++) {
                Flusher flusher = flushers.get(i);
                String name = names.get(i);
                Thread thread = new Thread(() -> {
                    long start = System.nanoTime();
                    flusher.close();
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    synchronized (this) {
                        closeTimes.add(name + " " + millis + " ms");
                    }
                    if (millis > 2_000) {
                        System.out.println("[flush-crash] closing flusher " + name + " took " + millis + " ms");
                    }
                }, "close-flusher-" + name);
                thread.setDaemon(true);
                thread.start();
                threads.add(thread);
            }
        }
        for (int i = 0; i < threads.size(); i++) {
            try {
                threads.get(i).join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (threads.get(i).isAlive()) {
                synchronized (this) {
                    closeTimes.add(names.get(i) + " still closing after 2 s");
                }
            }
        }
        log.close();
        warehouse.close();
    }
}
