package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.client.ServerException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.Map;

/**
 * {@code interlace quarantine list <stream>} and {@code interlace quarantine replay <stream> (--all | SEQ...)
 * [--dry-run]}: the events a {@code QUARANTINE} stream kept aside, and moving them into the stream once its schema
 * accepts them (re-validated by the server against the current schema; each entry is replayed at most once).
 *
 * <p>{@code replay} exits 0 when the server decided every entry, invalid ones included (they stay in the quarantine
 * and are listed with their errors); 1 when the server could not be used.
 */
final class QuarantineCommand extends RemoteCommand {

    /** Sequence numbers per replay request (the server's limit). */
    static final int SEQS_PER_REQUEST = 1000;
    /** How long a replay is retried while the server answers 429 or 503. */
    static final long RETRY_FOR_MILLIS = 10 * 60 * 1000;

    private final PrintStream err;

    /**
     * @param environment the process environment, for {@code INTERLACE_API_KEY}
     * @param err where retries are reported
     */
    QuarantineCommand(Map<String, String> environment, PrintStream err) {
        super(environment,
                "quarantine",
                "list <stream> [--after SEQ] [--limit N] " + ServerOptions.SYNOPSIS + " [--json]\n"
                        + "       interlace quarantine replay <stream> (--all | SEQ...) [--dry-run] "
                        + ServerOptions.SYNOPSIS + " [--json]",
                "list a stream's quarantined events, or replay them once the schema accepts them");
        this.err = err;
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        if (args.isEmpty()) {
            throw new UsageException("say list or replay");
        }
        return switch (args.get(0)) {
            case "list" -> list(args, out);
            case "replay" -> replay(args, out);
            default -> throw new UsageException("unknown subcommand " + args.get(0) + "; use list or replay");
        };
    }

    // ------------------------------------------------------------------------------------------------ list

    private int list(List<String> args, PrintStream out) {
        if (args.size() < 2 || args.get(1).startsWith("-")) {
            throw new UsageException("no stream given");
        }
        String stream = args.get(1);
        ListOptions options = ListOptions.parse(args, 2, Map.of("after", "after", "limit", "limit"),
                "quarantine list");
        JsonNode body = client(options.server()).send("GET",
                options.path("/streams/" + encode(stream) + "/quarantine"), null, null);
        if (options.json()) {
            out.println(TerminalText.prettyJson(body));
            return 0;
        }
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode item : body.get("items")) {
            rows.add(List.of(item.get("seq").asText(), item.get("received_at").asText(),
                    Table.cell(item.get("replayed_offset")), Table.cell(item.get("event")),
                    Table.fullCell(errorsText(item.get("errors")))));
        }
        Table.print(List.of("seq", "received_at", "replayed_to", "event", "errors"), rows, out);
        long count = body.get("count").asLong();
        long total = body.get("total").asLong();
        long next = body.get("next_after").asLong();
        out.println("(" + count + " of " + total + " entries" + (count > 0 && next < total ? "; next page: --after "
                + next : "") + ")");
        return 0;
    }

    // ------------------------------------------------------------------------------------------------ replay

    private int replay(List<String> args, PrintStream out) {
        ServerOptions server = new ServerOptions();
        Arguments arguments = Arguments.parse(args.subList(1, args.size()), server,
                Set.of("--all", "--dry-run", "--json"), Set.of());
        boolean all = arguments.flag("--all");
        boolean dryRun = arguments.flag("--dry-run");
        boolean json = arguments.flag("--json");
        if (arguments.positionals().isEmpty()) {
            throw new UsageException("no stream given");
        }
        String stream = arguments.positionals().get(0);
        List<Long> seqs = new ArrayList<>();
        for (String arg : arguments.positionals().subList(1, arguments.positionals().size())) {
            try {
                long seq = Long.parseLong(arg);
                if (seq < 1) {
                    throw new NumberFormatException();
                }
                seqs.add(seq);
            } catch (NumberFormatException e) {
                throw new UsageException("a sequence number is a whole number, 1 or more; got " + arg);
            }
        }
        if (all == !seqs.isEmpty()) {
            throw new UsageException("give --all or the sequence numbers to replay (see quarantine list)");
        }
        ServerClient client = client(server);
        String path = "/streams/" + encode(stream) + "/quarantine/replay";
        ArrayNode results = ServerClient.JSON.createArrayNode();
        long after = 0;
        int from = 0;
        while (true) {
            ObjectNode request = ServerClient.JSON.createObjectNode();
            if (all) {
                request.put("all", true).put("after", after);
            } else {
                ArrayNode chunk = request.putArray("seqs");
                seqs.subList(from, Math.min(seqs.size(), from + SEQS_PER_REQUEST)).forEach(chunk::add);
                from += chunk.size();
            }
            request.put("dry_run", dryRun);
            JsonNode answer = sendPatiently(client, path, request.toString());
            results.addAll((ArrayNode) answer.get("results"));
            if (all ? !answer.path("more").asBoolean() : from >= seqs.size()) {
                break;
            }
            after = answer.path("next_after").asLong();
        }
        ObjectNode summary = ServerClient.JSON.createObjectNode();
        summary.set("results", results);
        for (String status : List.of("accepted", "deduplicated", "invalid", "already_replayed")) {
            long count = 0;
            for (JsonNode result : results) {
                count += result.get("status").asText().equals(status) ? 1 : 0;
            }
            summary.put(status, count);
        }
        summary.put("dry_run", dryRun);
        if (json) {
            out.println(TerminalText.prettyJson(summary));
            return 0;
        }
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode result : results) {
            // On a stream of several partitions an offset is a partition's: "2:17" is offset 17 of partition 2.
            String offset = result.has("partition") && !result.get("offset").isNull()
                    ? result.get("partition").asInt() + ":" + result.get("offset").asLong()
                    : Table.cell(result.get("offset"));
            rows.add(List.of(result.get("seq").asText(), result.get("status").asText(), offset,
                    Table.fullCell(errorsText(result.get("errors")))));
        }
        if (rows.isEmpty()) {
            out.println(all ? "nothing to replay: every entry of the quarantine of " + stream + " is replayed already"
                    : "nothing to replay");
        } else {
            Table.print(List.of("seq", "status", "offset", "errors"), rows, out);
        }
        out.println((dryRun ? "dry run, nothing was written: " : "") + summary.get("accepted").asLong()
                + (dryRun ? " would be accepted, " : " accepted, ") + summary.get("deduplicated").asLong()
                + " deduplicated, " + summary.get("invalid").asLong() + " still invalid (they stay in the quarantine), "
                + summary.get("already_replayed").asLong() + " already replayed");
        return 0;
    }

    /** Sends a replay, waiting out 429 and 503 answers for as long as their {@code Retry-After} says. */
    private JsonNode sendPatiently(ServerClient client, String path, String body) {
        long retryUntil = System.nanoTime() + RETRY_FOR_MILLIS * 1_000_000L;
        while (true) {
            try {
                return client.exchange("POST", path, "application/json", body.getBytes(StandardCharsets.UTF_8));
            } catch (ServerException failure) {
                long waitSeconds = Math.max(1, failure.retryAfterSeconds().orElse(1));
                boolean busy = failure.status() == 429 || failure.status() == 503;
                if (!busy || System.nanoTime() + waitSeconds * 1_000_000_000L > retryUntil) {
                    throw new CommandFailedException(client.describe(failure));
                }
                err.println(TerminalText.escape("interlace quarantine: " + failure.status() + " " + failure.code()
                        + ": " + failure.serverMessage() + "; retrying in " + waitSeconds + " s"));
                try {
                    Thread.sleep(waitSeconds * 1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CommandFailedException("interrupted");
                }
            }
        }
    }

    /** {@code field: reason; field: reason}. */
    private static JsonNode errorsText(JsonNode errors) {
        List<String> parts = new ArrayList<>();
        if (errors != null) {
            for (JsonNode error : errors) {
                parts.add(error.has("field") ? error.path("field").asText() + ": " + error.path("reason").asText()
                        : error.asText());
            }
        }
        return ServerClient.JSON.getNodeFactory().textNode(String.join("; ", parts));
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
