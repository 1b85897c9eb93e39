package dev.interlace.runtime.log.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.AppendResult.EntryResult;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.ColumnType;
import dev.interlace.runtime.stream.FieldError;
import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the log conformance suites share: the streams they register, a fresh data directory, a manual clock and
 * movable watermarks per test, the logs they opened (closed after each test) and helpers to append and read.
 *
 * <p>A backend does not extend this class directly: it extends {@link StreamLogContract}, which runs the suites of
 * {@link EventLogContract}, {@link ConsumerGroupsContract} and {@link PublishRecordsContract} against the logs its
 * {@link #openLog} returns (see there for what {@code openLog} must do). Each suite drives its concern through a
 * whole {@link StreamLog}, because consumer groups commit up to a stream's head and publish records are written by
 * appends.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class LogContractSupport {

    protected static final StreamDescriptor ORDERS = descriptor("orders", "id", 3_600_000L);
    /** No idempotency key, no retention: events are never deduplicated. */
    protected static final StreamDescriptor CLICKS = descriptor("clicks", null, 0);
    /** Keyed ({@code id}), no retention: keys deduplicate forever. */
    protected static final StreamDescriptor LEDGER = descriptor("ledger", "id", 0);

    /** Where every test's clock starts. */
    protected static final Instant START = Instant.parse("2026-11-29T08:00:00Z");
    /** A backlog limit no test reaches unless it means to. */
    protected static final LogSettings ROOMY = LogSettings.defaults(1_000_000);
    /** How long any single operation may take before the suite calls it hung. */
    protected static final long OPERATION_SECONDS = 30;
    protected static final Duration TTL = Duration.ofSeconds(30);

    /**
     * Opens (creating if needed) a log keeping its state under {@code dataDirectory}; see {@link StreamLogContract} for
     * what it must guarantee.
     */
    protected abstract StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock);

    @TempDir
    protected Path dataDirectory;

    protected final ManualClock clock = new ManualClock(START);
    protected final MutableWatermarks watermarks = new MutableWatermarks();

    private final List<StreamLog> opened = new CopyOnWriteArrayList<>();
    private final Map<StreamLog, LogSettings> settingsOf = new ConcurrentHashMap<>();
    private final AtomicInteger requestIds = new AtomicInteger();

    @AfterEach
    void closeEveryOpenedLog() {
        for (StreamLog log : opened) {
            log.close();
        }
        opened.clear();
    }

    // ================================================================== helpers for subclasses and tests

    /** Opens a log on {@link #dataDirectory} with room for every test and registers the suite's streams. */
    protected final StreamLog open() {
        return open(ROOMY);
    }

    /** Opens a log on {@link #dataDirectory} with {@code settings} and registers the suite's streams. */
    protected final StreamLog open(LogSettings settings) {
        StreamLog log = openLog(dataDirectory, settings, watermarks, clock);
        opened.add(log);
        settingsOf.put(log, settings);
        log.register(ORDERS);
        log.register(CLICKS);
        log.register(LEDGER);
        return log;
    }

    /** Closes {@code log} now (the suite does not close it again). */
    protected final void close(StreamLog log) {
        opened.remove(log);
        settingsOf.remove(log);
        log.close();
    }

    /** Closes {@code log} and opens the same directory again with the same settings. */
    protected final StreamLog reopen(StreamLog log) {
        return reopen(log, settingsOf.get(log));
    }

    /** Closes {@code log} and opens the same directory again with {@code settings}. */
    protected final StreamLog reopen(StreamLog log, LogSettings settings) {
        close(log);
        return open(settings);
    }

    /** A valid event of a keyed stream whose key is {@code key}. */
    protected static AppendRequest.Event event(String key) {
        return new AppendRequest.Event(payloadText(key).getBytes(StandardCharsets.UTF_8), key);
    }

    /** A valid event without an idempotency key. */
    protected static AppendRequest.Event keyless(String id) {
        return new AppendRequest.Event(payloadText(id).getBytes(StandardCharsets.UTF_8), null);
    }

    /** An invalid event for the quarantine. */
    protected static AppendRequest.Quarantined quarantined(String id) {
        return new AppendRequest.Quarantined(("{\"id\":" + id.length() + ",\"note\":\"" + id + "\"}")
                .getBytes(StandardCharsets.UTF_8), List.of(new FieldError("id", "is not a string")));
    }

    /** A request of {@code stream} with a fresh request id, arriving now by {@link #clock}. */
    protected final AppendRequest request(StreamDescriptor stream, AppendRequest.Entry... entries) {
        return new AppendRequest(stream.name(), "req-" + requestIds.incrementAndGet(), clock.micros(),
                stream.schemaVersion(), List.of(entries));
    }

    protected final AppendResult.Committed append(StreamLog log, StreamDescriptor stream,
            AppendRequest.Entry... entries) throws Exception {
        return append(log, request(stream, entries));
    }

    protected static AppendResult.Committed append(StreamLog log, AppendRequest request) throws Exception {
        AppendResult result = await(log.append(request));
        if (result instanceof AppendResult.Committed committed) {
            return committed;
        }
        return fail("expected " + request.requestId() + " to be committed, got " + result);
    }

    protected static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(OPERATION_SECONDS, TimeUnit.SECONDS);
    }

    protected static List<Long> offsets(AppendResult.Committed committed) {
        return committed.entries().stream().map(EntryResult::offset).toList();
    }

    protected static StreamHead head(StreamLog log, StreamDescriptor stream) {
        StreamHead head = log.heads().get(stream.name());
        assertThat(head).as("head of %s", stream.name()).isNotNull();
        return head;
    }

    protected static long committedOffset(StreamLog log, StreamDescriptor stream, String group) {
        return log.groups(stream.name()).stream().filter(candidate -> candidate.group().equals(group))
                .mapToLong(Leases.Group::committedOffset).findFirst().orElse(0);
    }

    protected static Leases.Granted grant(Leases.LeaseResult result) {
        assertThat(result).isInstanceOf(Leases.Granted.class);
        return (Leases.Granted) result;
    }

    protected static CompletableFuture<List<LogEntry>> poll(StreamLog log, StreamDescriptor stream, long after,
            Duration wait) {
        CompletableFuture<List<LogEntry>> result = new CompletableFuture<>();
        Thread poller = new Thread(() -> {
            try {
                result.complete(log.read(stream.name(), after, 100, wait));
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, "contract-long-poll");
        poller.setDaemon(true);
        poller.start();
        return result;
    }

    /**
     * One read of everything: a dense prefix from offset 1 in which every request appears whole; returns how many
     * entries it read.
     */
    protected static long checkSnapshot(StreamLog log, Map<String, Integer> sizes, List<String> violations)
            throws InterruptedException {
        List<LogEntry> snapshot = log.read(ORDERS.name(), 0, 100_000, Duration.ZERO);
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < snapshot.size(); i++) {
            LogEntry entry = snapshot.get(i);
            if (entry.offset() != i + 1) {
                violations.add("a read saw offset " + entry.offset() + " at position " + (i + 1));
                return snapshot.size();
            }
            seen.merge(entry.requestId(), 1, Integer::sum);
        }
        seen.forEach((requestId, count) -> {
            Integer size = sizes.get(requestId);
            if (size == null || size.intValue() != count) {
                violations.add("a read saw " + count + " of the " + size + " entries of " + requestId);
            }
        });
        return snapshot.size();
    }

    protected static String payloadText(String id) {
        return "{\"id\":\"" + id + "\"}";
    }

    protected static String text(byte[] payload) {
        return new String(payload, StandardCharsets.UTF_8);
    }

    protected static StreamDescriptor descriptor(String name, String key, long retentionMillis) {
        StreamDescriptor.Builder builder = StreamDescriptor.builder(name)
                .column(Column.of("id", ColumnType.STRING, true))
                .schemaVersion("v1-" + name)
                .declaredBy("dev.interlace.runtime.log.tck.StreamLogContract")
                .decoder(parser -> {
                    throw new UnsupportedOperationException("a log never decodes");
                });
        if (key != null) {
            builder.idempotencyKey(key);
        }
        if (retentionMillis > 0) {
            builder.retention(retentionMillis / 60_000 + "m", retentionMillis);
        }
        return builder.build();
    }

    /** Violations seen on worker threads, reported together by the test thread. */
    protected static final class Violations {
        private final ConcurrentLinkedQueue<String> items = new ConcurrentLinkedQueue<>();

        void add(String violation) {
            items.add(violation);
        }

        List<String> all() {
            return List.copyOf(items);
        }
    }

    /** Materialised positions a test sets by hand; 0 for every stream until then. */
    protected static final class MutableWatermarks implements Watermarks {
        private final Map<String, long[]> positions = new ConcurrentHashMap<>();

        public void set(String stream, long events, long quarantine) {
            positions.put(stream, new long[] {events, quarantine});
        }

        @Override
        public long events(String stream) {
            return positions.getOrDefault(stream, new long[2])[0];
        }

        @Override
        public long quarantine(String stream) {
            return positions.getOrDefault(stream, new long[2])[1];
        }
    }
}
