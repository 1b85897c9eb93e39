package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushPositions;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.model.ModelRunner;
import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.stream.StreamCatalog;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Read-your-writes: a warehouse request carrying {@value #HEADER} (the {@code position} of one or more publish answers)
 * is served once this node's warehouse has materialised those positions — and with {@code models} in the list, once the
 * model runs those flushes triggered have succeeded — waiting up to {@code --read-wait-ms}; past that it is refused
 * {@code 503 not_materialised} with how far each stream lags.
 *
 * <p>A position is {@code <stream>:<offset>}: the stream's highest offset the publish stored or found (opaque to
 * clients, who pass it back as they got it). Waiting takes no thread: while requests wait they are checked every few
 * milliseconds on one timer thread of the process, and at most {@link #MAX_WAITERS} wait at once (beyond,
 * {@code 503 overloaded}).
 */
@Singleton
final class ReadAfter {

    /** The request header naming the positions to wait for. */
    static final String HEADER = "Interlace-After";
    /** The element of {@value #HEADER} that also waits for the models the positions' flushes triggered. */
    static final String MODELS = "models";
    static final int MAX_WAITERS = 4096;
    private static final long CHECK_EVERY_MILLIS = 5;
    static final int MAX_POSITIONS = 64;

    /** What a request waits for. */
    record Wanted(Map<String, Long> offsets, boolean models) {}

    private final StreamCatalog catalog;
    private final FlushPositions watermarks;
    private final Optional<ModelRunner> runner;
    private final Flusher flusher;
    private final long waitMillis;
    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();
    private final AtomicInteger waiting = new AtomicInteger();
    /** Whether a check is scheduled: one is while anything waits. */
    private final AtomicBoolean checking = new AtomicBoolean();
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("interlace-read-after"));

    @Inject
    ReadAfter(StreamCatalog catalog, FlushPositions watermarks, Optional<ModelRunner> runner, Flusher flusher,
            InterlaceConfig config) {
        this.catalog = catalog;
        this.flusher = flusher;
        this.watermarks = watermarks;
        this.runner = runner;
        this.waitMillis = config.readWaitMillis();
    }

    /**
     * The positions {@code header} names, or null when there is none.
     *
     * @throws Refusal {@code 400 invalid_position} for a header that is not a list of positions, {@code 404
     *     unknown_stream} for a position in a stream this server does not have
     */
    Wanted parse(String header, String requestId) {
        if (header == null) {
            return null;
        }
        Map<String, Long> offsets = new LinkedHashMap<>();
        boolean models = false;
        for (String element : header.split(",", -1)) {
            String item = element.strip();
            if (item.equals(MODELS)) {
                models = true;
                continue;
            }
            int colon = item.lastIndexOf(':');
            long offset = -1;
            if (colon > 0) {
                try {
                    offset = Long.parseLong(item.substring(colon + 1));
                } catch (NumberFormatException e) {
                    offset = -1;
                }
            }
            if (offset < 0 || offsets.size() >= MAX_POSITIONS) {
                throw new Refusal(HttpResponses.error(ErrorCode.INVALID_POSITION, HEADER + " must list at most "
                        + MAX_POSITIONS + " positions as publish answers give them (<stream>:<offset>, or <stream>__p<n>:<offset> for partition n, comma-separated,"
                        + " optionally with \"" + MODELS + "\"); got " + quoted(item), requestId));
            }
            String stream = item.substring(0, colon);
            if (catalog.findLogStream(stream).isEmpty()) {
                throw new Refusal(HttpResponses.error(ErrorCode.UNKNOWN_STREAM, HEADER + " names stream "
                        + quoted(stream) + ", which this server does not have; GET /streams lists them", requestId));
            }
            offsets.merge(stream, offset, Math::max);
        }
        if (offsets.isEmpty()) {
            throw new Refusal(HttpResponses.error(ErrorCode.INVALID_POSITION, HEADER + " names no position",
                    requestId));
        }
        return new Wanted(Map.copyOf(offsets), models);
    }

    /**
     * Completes once {@code wanted} is materialised here; fails with a {@link Refusal} ({@code 503 not_materialised},
     * naming the lag) when it is not within {@code --read-wait-ms}.
     */
    CompletableFuture<Void> await(Wanted wanted, String requestId) {
        if (reached(wanted)) {
            return CompletableFuture.completedFuture(null);
        }
        if (waiting.incrementAndGet() > MAX_WAITERS) {
            waiting.decrementAndGet();
            return CompletableFuture.failedFuture(new Refusal(HttpResponses.error(ErrorCode.OVERLOADED, MAX_WAITERS
                    + " requests already wait for " + HEADER + " positions to be materialised; retry shortly",
                    requestId).header("Retry-After", "1")));
        }
        Waiter waiter = new Waiter(wanted, requestId, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis));
        waiters.add(waiter);
        hurry(wanted);
        scheduleCheck();
        return waiter.done;
    }

    private void scheduleCheck() {
        if (checking.compareAndSet(false, true)) {
            TIMER.schedule(this::checkAndGoOn, CHECK_EVERY_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private void checkAndGoOn() {
        try {
            check();
        } finally {
            checking.set(false);
            if (!waiters.isEmpty()) {
                scheduleCheck();
            }
        }
    }

    private void check() {
        long now = System.nanoTime();
        for (Iterator<Waiter> each = waiters.iterator(); each.hasNext(); ) {
            Waiter waiter = each.next();
            boolean reached = reached(waiter.wanted);
            if (reached || now - waiter.deadlineNanos >= 0) {
                each.remove();
                waiting.decrementAndGet();
                if (reached) {
                    waiter.done.complete(null);
                } else {
                    waiter.done.completeExceptionally(notMaterialised(waiter));
                }
            } else {
                hurry(waiter.wanted);
            }
        }
    }

    /** Brings forward the flushes of the streams {@code wanted} waits for (a query process flushes lazily). */
    private void hurry(Wanted wanted) {
        for (Map.Entry<String, Long> position : wanted.offsets().entrySet()) {
            if (watermarks.events(position.getKey()) < position.getValue()) {
                flusher.hurry(position.getKey());
            }
        }
    }

    private boolean reached(Wanted wanted) {
        for (Map.Entry<String, Long> position : wanted.offsets().entrySet()) {
            if (watermarks.events(position.getKey()) < position.getValue()) {
                return false;
            }
            if (wanted.models() && runner.isPresent()
                    && runner.get().modelsCaughtUp(position.getKey()) < position.getValue()) {
                return false;
            }
        }
        return true;
    }

    private Refusal notMaterialised(Waiter waiter) {
        ObjectNode body = HttpResponses.errorBody(ErrorCode.NOT_MATERIALISED, "", waiter.requestId);
        ObjectNode lag = body.putObject("lag");
        List<String> behind = new ArrayList<>();
        for (Map.Entry<String, Long> position : waiter.wanted.offsets().entrySet()) {
            String stream = position.getKey();
            long materialised = watermarks.events(stream);
            if (waiter.wanted.models() && runner.isPresent()) {
                materialised = Math.min(materialised, runner.get().modelsCaughtUp(stream));
            }
            long behindBy = Math.max(0, position.getValue() - materialised);
            lag.put(stream, behindBy);
            if (behindBy > 0) {
                behind.add(stream + " by " + behindBy);
            }
        }
        body.put("message", "this node's warehouse has not materialised " + HEADER + " within " + waitMillis
                + " ms (" + String.join(", ", behind) + (waiter.wanted.models() ? ", models included" : "")
                + "); nothing was run: retry");
        return new Refusal(HttpResponses.error(ErrorCode.NOT_MATERIALISED, body).header("Retry-After", "1"));
    }

    private static String quoted(String text) {
        String cut = text.length() > 100 ? text.substring(0, 100) + "\u2026" : text;
        return "\"" + cut + "\"";
    }

    private record Waiter(Wanted wanted, String requestId, long deadlineNanos, CompletableFuture<Void> done) {
        Waiter(Wanted wanted, String requestId, long deadlineNanos) {
            this(wanted, requestId, deadlineNanos, new CompletableFuture<>());
        }
    }
}
