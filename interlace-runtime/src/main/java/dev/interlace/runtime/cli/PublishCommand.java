package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ServerException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code interlace publish <stream> [FILE|-]}: publishes the events of a file or of standard input (a JSON array or
 * NDJSON) in batches, and says what became of them: accepted, deduplicated, quarantined, refused.
 *
 * <p>A batch the server refuses for some of its events (400 naming one event, 422 listing the events that break the
 * schema) stored nothing, so those events are counted as refused and the rest of the batch is sent again; a batch
 * over the server's limits (413) is split. {@code 429} and {@code 503} are retried after their {@code Retry-After}.
 * Resending is safe: a stream with an idempotency key acknowledges an event it already holds as a duplicate.
 *
 * <p>Exit codes: 0 when every event was stored (accepted, deduplicated or quarantined), 1 when any was refused or the
 * server could not be used, 2 for a command line that cannot be understood.
 */
final class PublishCommand extends RemoteCommand {

    static final int DEFAULT_BATCH = 1000;
    static final int MAX_BATCH = 100_000;
    /** The most bytes one request carries, whatever {@code --batch} says: well under the server's default limit. */
    static final int MAX_BATCH_BYTES = 4 * 1024 * 1024;
    /** How many refused events the summary describes; the rest are counted. */
    static final int ERRORS_SHOWN = 10;
    /** How long one batch is retried while the server answers 429 or 503. */
    static final long RETRY_FOR_MILLIS = 10 * 60 * 1000;
    /** How often the progress line is redrawn at most. */
    private static final long PROGRESS_EVERY_NANOS = 100_000_000L;

    private final Supplier<InputStream> stdin;
    private final PrintStream err;
    private final boolean terminal;

    /**
     * @param environment the process environment, for {@code INTERLACE_API_KEY}
     * @param stdin standard input, read for {@code -} or when no file is given
     * @param err where progress and retries are reported (never the summary)
     * @param terminal whether {@code err} is a terminal: only then is a progress line drawn
     */
    PublishCommand(Map<String, String> environment, Supplier<InputStream> stdin, PrintStream err, boolean terminal) {
        super(environment,
                "publish",
                "<stream> [FILE|-] [--batch N] [--then-sql QUERY] [--route] " + ServerOptions.SYNOPSIS,
                "publish a JSON array or NDJSON file (or stdin) to a stream, in batches");
        this.stdin = stdin;
        this.err = err;
        this.terminal = terminal;
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        ServerOptions server = new ServerOptions();
        Arguments arguments = Arguments.parse(args, server, Set.of("--route"), Set.of("--batch", "--then-sql"));
        String thenSql = arguments.value("--then-sql");
        if (thenSql != null && thenSql.isBlank()) {
            throw new UsageException("--then-sql needs a query");
        }
        List<String> positional = arguments.positionals();
        int batch = DEFAULT_BATCH;
        String batchText = arguments.value("--batch");
        if (batchText != null) {
            try {
                batch = Integer.parseInt(batchText);
            } catch (NumberFormatException e) {
                batch = 0;
            }
            if (batch < 1 || batch > MAX_BATCH) {
                throw new UsageException("--batch must be between 1 and " + MAX_BATCH + ", got " + batchText);
            }
        }
        if (positional.isEmpty()) {
            throw new UsageException("no stream given");
        }
        if (positional.size() > 2) {
            throw new UsageException("unexpected argument " + positional.get(2) + "; give one stream and one file");
        }
        String stream = positional.get(0);
        String file = positional.size() == 2 ? positional.get(1) : "-";
        ServerClient client = client(server, arguments.flag("--route"));
        long size = -1;
        InputStream input;
        if (file.equals("-")) {
            input = stdin.get();
        } else {
            try {
                size = Files.size(Path.of(file));
                input = Files.newInputStream(Path.of(file));
            } catch (NoSuchFileException e) {
                throw new CommandFailedException("no such file: " + file);
            } catch (IOException e) {
                throw new CommandFailedException("cannot read " + file + ": " + e.getMessage());
            }
        }
        Publishing publishing = new Publishing(client, stream, batch, size);
        try (EventInput events = new EventInput(input)) {
            publishing.publishAll(events);
        } catch (CommandFailedException | UncheckedIOException e) {
            publishing.endProgress();
            publishing.printSummary(out);
            throw new CommandFailedException(e.getMessage() + (publishing.stored() > 0 ? " (" + publishing.stored()
                    + " events before it are stored; publishing the same input again is safe on a stream with an"
                    + " idempotency key)" : ""));
        }
        publishing.endProgress();
        publishing.printSummary(out);
        if (thenSql != null && publishing.refused() == 0) {
            // Read-your-writes: the query waits until what was just published is materialised.
            SqlCommand.print(SqlCommand.run(client, thenSql, publishing.position()), false, out, err);
        }
        return publishing.refused() > 0 ? Main.FAILED : 0;
    }

    /** One run of the command: the batches sent, the counts and the first errors. */
    private final class Publishing {

        private final ServerClient client;
        private final String stream;
        private final int batchSize;
        private final long inputBytes;
        private final long startedNanos = System.nanoTime();
        private long lastProgressNanos;
        private EventInput input;

        private long read;
        private long accepted;
        private long deduplicated;
        private long quarantined;
        private long refused;
        private long requests;
        private long retries;
        /** The highest offset of each log stream the answers named (one for a stream of one partition). */
        private final java.util.TreeMap<String, Long> positions = new java.util.TreeMap<>();
        /** For a stream of several partitions, the highest offset the answers gave each partition. */
        private final java.util.TreeMap<Integer, Long> partitions = new java.util.TreeMap<>();
        private final List<String> errors = new ArrayList<>();

        Publishing(ServerClient client, String stream, int batchSize, long inputBytes) {
            this.client = client;
            this.stream = stream;
            this.batchSize = batchSize;
            this.inputBytes = inputBytes;
        }

        /** What a query reads after: the furthest position of each partition the events fell in, or null. */
        String position() {
            StringBuilder joined = new StringBuilder();
            positions.forEach((log, offset) -> joined.append(joined.length() == 0 ? "" : ",").append(log).append(':')
                    .append(offset));
            return joined.length() == 0 ? null : joined.toString();
        }

        void publishAll(EventInput events) {
            this.input = events;
            List<EventInput.Event> batch = new ArrayList<>();
            long batchBytes = 0;
            for (EventInput.Event event = events.next(); event != null; event = events.next()) {
                read++;
                if (event.problem() != null) {
                    refuse(event, event.problem());
                    continue;
                }
                if (!batch.isEmpty() && (batch.size() == batchSize
                        || batchBytes + event.payload().length + 1 > MAX_BATCH_BYTES)) {
                    send(batch);
                    batch = new ArrayList<>();
                    batchBytes = 0;
                }
                batch.add(event);
                batchBytes += event.payload().length + 1;
            }
            if (!batch.isEmpty()) {
                send(batch);
            }
        }

        /** Sends one batch until every event in it is stored or refused. */
        private void send(List<EventInput.Event> batch) {
            List<EventInput.Event> pending = new ArrayList<>(batch);
            long retryUntil = System.nanoTime() + RETRY_FOR_MILLIS * 1_000_000L;
            while (!pending.isEmpty()) {
                try {
                    requests++;
                    JsonNode answer = client.publish(stream, "application/x-ndjson", ndjson(pending));
                    accepted += answer.path("accepted").asLong();
                    for (String item : answer.path("position").asText("").split(",")) {
                        int colon = item.lastIndexOf(':');
                        if (colon > 0) {
                            positions.merge(item.substring(0, colon), Long.parseLong(item.substring(colon + 1)),
                                    Math::max);
                        }
                    }
                    for (JsonNode part : answer.path("partitions")) {
                        if (part.path("last_offset").isNumber()) {
                            partitions.merge(part.get("partition").asInt(), part.get("last_offset").asLong(),
                                    Math::max);
                        }
                    }
                    deduplicated += answer.path("deduplicated").asLong();
                    quarantined += answer.path("quarantined").asLong();
                    progress(false);
                    return;
                } catch (ServerException failure) {
                    pending = handle(failure, pending, retryUntil);
                }
            }
        }

        /** What is left to send of {@code pending} after the server refused it with {@code failure}. */
        private List<EventInput.Event> handle(ServerException failure, List<EventInput.Event> pending,
                long retryUntil) {
            int status = failure.status();
            JsonNode body = failure.json();
            String code = failure.code() == null ? "error" : failure.code();
            if (status == 429 || status == 503) {
                long waitSeconds = Math.max(1, failure.retryAfterSeconds().orElse(1));
                if (System.nanoTime() + waitSeconds * 1_000_000_000L > retryUntil) {
                    throw new CommandFailedException("the server still refuses after retrying for "
                            + RETRY_FOR_MILLIS / 60_000 + " minutes: " + client.describe(failure));
                }
                retries++;
                note(status + " " + code + ": " + failure.serverMessage() + "; retrying in " + waitSeconds + " s");
                pause(waitSeconds * 1000);
                return pending;
            }
            if (status == 413 && pending.size() > 1) {
                int half = pending.size() / 2;
                send(pending.subList(0, half));
                return new ArrayList<>(pending.subList(half, pending.size()));
            }
            if (status == 413) {
                refuse(pending.get(0), code + ": " + failure.serverMessage());
                return List.of();
            }
            if (status == 422 && body != null && body.path("errors").isArray() && !body.path("errors").isEmpty()) {
                List<Boolean> failed = new ArrayList<>(java.util.Collections.nCopies(pending.size(), false));
                for (JsonNode error : body.get("errors")) {
                    int index = error.path("index").asInt(-1);
                    if (index >= 0 && index < pending.size()) {
                        if (!failed.get(index)) {
                            failed.set(index, true);
                            refused++;
                        }
                        addError(pending.get(index), error.path("field").asText() + ": "
                                + error.path("reason").asText() + " (" + code + ")");
                    }
                }
                return unrefused(pending, failed);
            }
            if (status == 400 && body != null && body.path("index").isInt()
                    && body.get("index").asInt() < pending.size()) {
                List<Boolean> failed = new ArrayList<>(java.util.Collections.nCopies(pending.size(), false));
                failed.set(body.get("index").asInt(), true);
                refuse(pending.get(body.get("index").asInt()), code + ": " + failure.serverMessage());
                return unrefused(pending, failed);
            }
            throw new CommandFailedException(client.describe(failure));
        }

        private List<EventInput.Event> unrefused(List<EventInput.Event> pending, List<Boolean> failed) {
            if (!failed.contains(true)) {
                // The server named no event of the batch: nothing can be dropped, so the batch cannot be sent.
                throw new CommandFailedException("the server refused a batch without naming an event of it");
            }
            List<EventInput.Event> rest = new ArrayList<>();
            for (int i = 0; i < pending.size(); i++) {
                if (!failed.get(i)) {
                    rest.add(pending.get(i));
                }
            }
            return rest;
        }

        private void refuse(EventInput.Event event, String why) {
            refused++;
            addError(event, why);
        }

        private void addError(EventInput.Event event, String why) {
            if (errors.size() < ERRORS_SHOWN) {
                errors.add(event.position() + ": " + why);
            }
        }

        private byte[] ndjson(List<EventInput.Event> events) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            for (EventInput.Event event : events) {
                body.write(event.payload(), 0, event.payload().length);
                body.write('\n');
            }
            return body.toByteArray();
        }

        long stored() {
            return accepted + deduplicated + quarantined;
        }

        long refused() {
            return refused;
        }

        /** A note on stderr (a retry): on its own line, the progress line drawn again after it. */
        private void note(String text) {
            if (terminal) {
                err.print("\r\033[K");
            }
            err.println("interlace publish: " + TerminalText.escape(text));
            progress(true);
        }

        /** Redraws the progress line on a terminal, at most every 100 ms unless {@code now}. */
        private void progress(boolean now) {
            if (!terminal) {
                return;
            }
            long nanos = System.nanoTime();
            if (!now && nanos - lastProgressNanos < PROGRESS_EVERY_NANOS) {
                return;
            }
            lastProgressNanos = nanos;
            err.print("\r\033[K" + progressLine(nanos));
            err.flush();
        }

        /** {@code [#####-----]  45%  12,345 events  3,210 events/s} (without the bar when the size is unknown). */
        String progressLine(long nanos) {
            StringBuilder line = new StringBuilder();
            if (inputBytes > 0 && input != null) {
                double done = Math.min(1.0, (double) input.bytesRead() / inputBytes);
                int filled = (int) Math.round(done * 30);
                line.append('[').append("#".repeat(filled)).append("-".repeat(30 - filled)).append("] ")
                        .append(String.format(Locale.ROOT, "%3d%%  ", Math.round(done * 100)));
            }
            line.append(String.format(Locale.ROOT, "%,d events  %,.0f events/s", stored() + refused,
                    rate(stored() + refused, nanos)));
            if (refused > 0) {
                line.append(String.format(Locale.ROOT, "  %,d refused", refused));
            }
            return line.toString();
        }

        void endProgress() {
            if (terminal) {
                progress(true);
                err.println();
            }
        }

        void printSummary(PrintStream out) {
            long nanos = System.nanoTime();
            // Not "published": the counts below say what became of them, refused ones included.
            out.println(String.format(Locale.ROOT, "%d event%s for %s in %d request%s (%.1f s, %.0f events/s)",
                    read, read == 1 ? "" : "s", stream, requests, requests == 1 ? "" : "s",
                    (nanos - startedNanos) / 1e9, rate(read, nanos)));
            out.println("  accepted      " + accepted);
            out.println("  deduplicated  " + deduplicated);
            out.println("  quarantined   " + quarantined);
            out.println("  refused       " + refused);
            if (!partitions.isEmpty()) {
                out.println("by partition (offsets are per partition):");
                partitions.forEach((partition, last) -> out.println("  partition " + partition + "  last offset "
                        + last));
            }
            if (retries > 0) {
                out.println("  (" + retries + " retries after the server asked to wait: 429 or 503)");
            }
            if (!errors.isEmpty()) {
                out.println(refused > errors.size() ? "first errors (" + errors.size() + " of " + refused + "):"
                        : "errors:");
                errors.forEach(error -> out.println("  " + TerminalText.escape(error)));
            }
        }

        private double rate(long events, long nanos) {
            double seconds = Math.max(1e-3, (nanos - startedNanos) / 1e9);
            return events / seconds;
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailedException("interrupted");
        }
    }
}
