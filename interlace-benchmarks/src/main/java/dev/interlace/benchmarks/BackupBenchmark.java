package dev.interlace.benchmarks;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.backup.BackupManifest;
import dev.interlace.runtime.backup.Restore;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.flush.Flusher;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long an online backup and a restore take: {@code BackupBenchmark DIR EVENTS} publishes {@code EVENTS} orders
 * (arrays of 1 000, 4 clients) into a server on {@code DIR/data}, waits until they are flushed, then takes a backup
 * with nothing else going on and another while 4 clients publish, and restores the first; prints the bytes, the times
 * and the seconds per GB of each. Run it as
 * {@code java -cp examples/target/interlace-examples.jar:interlace-benchmarks/target/interlace-benchmarks.jar dev.interlace.benchmarks.BackupBenchmark DIR 2000000}.
 */
public final class BackupBenchmark {

    private static final int BATCH = 1_000;
    private static final int CLIENTS = 4;

    private BackupBenchmark() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: BackupBenchmark DIR EVENTS");
            System.exit(2);
        }
        Path directory = Path.of(args[0]).toAbsolutePath();
        long events = Long.parseLong(args[1]);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (Interlace server = Interlace.builder().config(ConfigLoader.load(new String[] {"--port", "0",
                "--data-dir", directory.resolve("data").toString(), "--max-pending", "100000000",
                "--backup-root", directory.toAbsolutePath().toString()}, Map.of())
                .config()).start()) {
            URI orders = server.uri().resolve("/streams/orders");
            long started = System.nanoTime();
            publish(http, orders, "o", events, new AtomicBoolean(false));
            server.instance(Flusher.class).drain(Duration.ofHours(1));
            System.out.printf("published and flushed %d events in %.1f s%n", events, seconds(started));

            report("idle", backup(http, server.uri(), directory.resolve("backup-idle")));

            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong during = new AtomicLong();
            Thread load = new Thread(() -> {
                try {
                    during.set(publish(http, orders, "p", Long.MAX_VALUE / 2, stop));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "backup-benchmark-load");
            load.start();
            Thread.sleep(2_000);
            long before = System.nanoTime();
            BackupManifest loaded = backup(http, server.uri(), directory.resolve("backup-under-load"));
            double backupSeconds = seconds(before);
            stop.set(true);
            load.join();
            report("under load", loaded);
            System.out.printf("  %d events published by the load (from 2 s before the backup to its end, %.1f s)%n",
                    during.get(), 2 + backupSeconds);
        }
        long before = System.nanoTime();
        BackupManifest restored = Restore.restore(directory.resolve("backup-idle"), directory.resolve("restored"));
        double restoreSeconds = seconds(before);
        long bytes = bytes(restored);
        System.out.printf("restore (checksums verified): %.1f s, %.1f s per GB%n", restoreSeconds,
                restoreSeconds / (bytes / 1e9));
    }

    private static BackupManifest backup(HttpClient http, URI server, Path target) throws Exception {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(server.resolve("/admin/backup"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"to\": \"" + target + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IllegalStateException("backup failed: " + answer.body());
        }
        return BackupManifest.readFrom(target);
    }

    private static void report(String what, BackupManifest manifest) {
        long bytes = bytes(manifest);
        System.out.printf("backup %s: %d bytes (%s) in %d ms: %.1f s per GB, %.0f MB/s%n", what, bytes,
                String.join(", ", manifest.files().stream().map(file -> file.name() + " " + file.bytes()).toList()),
                manifest.tookMillis(), manifest.tookMillis() / 1e3 / (bytes / 1e9),
                bytes / 1e6 / (manifest.tookMillis() / 1e3));
    }

    private static long bytes(BackupManifest manifest) {
        return manifest.files().stream().mapToLong(BackupManifest.FileEntry::bytes).sum();
    }

    /** Publishes up to {@code events} orders from {@link #CLIENTS} clients until done or stopped; returns how many. */
    private static long publish(HttpClient http, URI orders, String prefix, long events, AtomicBoolean stop)
            throws Exception {
        AtomicLong next = new AtomicLong();
        AtomicLong acknowledged = new AtomicLong();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            Thread client = new Thread(() -> {
                long first;
                while (!stop.get() && (first = next.getAndAdd(BATCH)) < events) {
                    StringBuilder body = new StringBuilder("[");
                    for (long n = first; n < Math.min(events, first + BATCH); n++) {
                        body.append(n == first ? "" : ",").append("{\"order_id\":\"").append(prefix).append(n)
                                .append("\",\"total\":").append(n % 10_000 / 100.0)
                                .append(",\"meta\":{\"channel\":\"web\",\"note\":\"benchmark order\"}}");
                    }
                    try {
                        HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(orders)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body.append(']').toString())).build(),
                                HttpResponse.BodyHandlers.discarding());
                        if (answer.statusCode() == 200) {
                            acknowledged.addAndGet(Math.min(events, first + BATCH) - first);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }, "backup-benchmark-client-" + c);
            client.start();
            clients.add(client);
        }
        for (Thread client : clients) {
            client.join();
        }
        return acknowledged.get();
    }

    private static double seconds(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9;
    }
}
