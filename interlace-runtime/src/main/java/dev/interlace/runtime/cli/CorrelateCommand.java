package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.Map;

/**
 * {@code interlace correlate <request-id>} (or {@code --stream S --key K}, or {@code --trace-id T}): "where is my
 * event?" — what happened to one request, from {@code GET /correlate}: its publish (or its refusal), its events, the
 * flushes and model runs that took them further, and its quarantined events, each section saying how much of it is
 * shown and how complete it is. By trace id, the newest request of the trace, and the trace's requests listed.
 */
final class CorrelateCommand extends RemoteCommand {

    /** @param environment the process environment, for {@code INTERLACE_API_KEY} */
    CorrelateCommand(Map<String, String> environment) {
        super(environment,
                "correlate",
                "<request-id> | --stream S --key K | --trace-id T  " + ServerOptions.SYNOPSIS + " [--json]",
                "where is my event? a request's publish, events, flushes, runs and quarantine");
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        ServerOptions server = new ServerOptions();
        Arguments arguments = Arguments.parse(args, server, Set.of("--json"), Set.of("--stream", "--key",
                "--trace-id"));
        boolean json = arguments.flag("--json");
        String requestId = arguments.optional("request id");
        String stream = arguments.value("--stream");
        String key = arguments.value("--key");
        String traceId = arguments.value("--trace-id");
        String query;
        if (traceId != null) {
            if (requestId != null || stream != null || key != null) {
                throw new UsageException("give a request id, --stream and --key, or --trace-id: one of them");
            }
            query = "trace_id=" + encode(traceId);
        } else if (requestId != null) {
            if (stream != null || key != null) {
                throw new UsageException("give a request id or --stream and --key, not both");
            }
            query = "request_id=" + encode(requestId);
        } else if (stream != null && key != null) {
            query = "stream=" + encode(stream) + "&key=" + encode(key);
        } else if (stream == null && key == null) {
            throw new UsageException("no request id given (or --stream S --key K to start from an event's key)");
        } else {
            throw new UsageException("--stream and --key go together");
        }
        JsonNode body = client(server).send("GET", "/correlate?" + query, null, null);
        if (json) {
            out.println(TerminalText.prettyJson(body));
        } else {
            // The report quotes what clients sent (paths, messages, keys, request ids): each line is printed with
            // its control characters escaped, as the tables are.
            ByteArrayOutputStream report = new ByteArrayOutputStream();
            printReport(body, new PrintStream(report, true, StandardCharsets.UTF_8));
            report.toString(StandardCharsets.UTF_8).lines().forEach(line -> out.println(TerminalText.escape(line)));
        }
        return 0;
    }

    private static void printReport(JsonNode body, PrintStream out) {
        JsonNode trace = body.get("trace");
        if (trace != null) {
            out.println("trace " + trace.get("trace_id").asText() + ": " + trace.get("total").asLong()
                    + " request(s), newest first; the newest is followed below");
            for (JsonNode request : trace.get("items")) {
                out.println("  " + request.get("received_at").asText() + "  " + request.get("request_id").asText()
                        + "  " + request.get("stream").asText() + "  accepted " + request.get("accepted").asLong()
                        + ", deduplicated " + request.get("deduplicated").asLong());
            }
            out.println();
        }
        out.println("request " + body.get("request_id").asText());
        JsonNode key = body.get("key");
        if (key != null) {
            out.println("  found by key " + key.get("key").asText() + " of " + key.get("stream").asText()
                    + ": the event at offset " + key.get("offset").asLong() + " was first written by this request");
        }
        if (body.get("publish").isNull()) {
            printRefusedOnly(body, out);
            return;
        }
        printPublish(body, out);
        printEvents(body.get("events"), out);
        printDeduplicated(body.get("deduplicated"), out);
        printFlushes(body.get("flushes"), out);
        printRuns(body.get("runs"), out);
        printQuarantine(body.get("quarantine"), out);
        JsonNode replayedFrom = body.get("replayed_from");
        boolean replay = replayedFrom != null && replayedFrom.get("total").asLong() > 0;
        if (replay) {
            printReplayedFrom(replayedFrom, out);
        }
        out.println();
        StringBuilder overall = new StringBuilder("completeness: " + body.get("completeness").asText() + " —");
        String separator = " ";
        for (String section : replay ? List.of("flushes", "runs", "quarantine", "replayed_from")
                : List.of("flushes", "runs", "quarantine")) {
            overall.append(separator).append(section).append(' ').append(body.get("counts").get(section).asLong())
                    .append(" of ").append(body.get("totals").get(section).asLong());
            separator = ", ";
        }
        out.println(overall);
    }

    /** A request that was only refused: it is known from the in-memory ring alone, and nothing of it was stored. */
    private static void printRefusedOnly(JsonNode body, PrintStream out) {
        out.println();
        out.println("refused (from the in-memory ring of refused requests: nothing of this request was stored)");
        printRefusal(body.get("refused"), out);
        out.println();
        JsonNode ring = body.get("ring");
        out.println("completeness: ring — refused requests kept in memory since " + ring.get("since").asText()
                + " (at most " + ring.get("capacity").asLong() + "), " + ring.get("dropped").asLong()
                + " dropped; no events, flushes, runs or quarantine to show");
    }

    private static void printPublish(JsonNode body, PrintStream out) {
        JsonNode publish = body.get("publish");
        out.println();
        out.println("publish (store)");
        out.println("  " + publish.get("method").asText() + " " + publish.get("path").asText() + ": "
                + publish.get("status").asInt() + ", received " + publish.get("received_at").asText()
                + ", committed " + publish.get("committed_at").asText() + " ("
                + publish.get("duration_ms").asText() + " ms)");
        out.println("  " + publish.get("accepted").asLong() + " accepted, " + publish.get("deduplicated").asLong()
                + " deduplicated, " + publish.get("quarantined").asLong() + " quarantined");
        JsonNode refused = body.get("refused");
        if (refused != null) {
            out.println();
            out.println("refused as well (from the in-memory ring of refused requests)");
            printRefusal(refused, out);
        }
    }

    private static void printEvents(JsonNode events, PrintStream out) {
        out.println();
        out.println("events (" + events.get("stream").asText() + ")");
        if (events.get("count").asLong() == 0) {
            out.println("  none accepted by this request");
        } else if (events.has("partitions")) {
            out.println("  " + plural(events.get("count").asLong(), "event") + ", " + events.get("materialised")
                    .asLong() + " materialised, " + events.get("pending").asLong() + " pending");
            for (JsonNode part : events.get("partitions")) {
                out.print("  partition " + part.get("partition").asInt() + ":");
                printOffsets(part, out);
            }
        } else {
            out.print(" ");
            printOffsets(events, out);
        }
    }

    private static void printOffsets(JsonNode events, PrintStream out) {
        out.println(events.get("count").asLong() == 0 ? " none accepted"
                : " offsets " + events.get("first_offset").asLong() + ".." + events.get("last_offset").asLong()
                + ": " + plural(events.get("count").asLong(), "event") + ", " + events.get("materialised").asLong()
                + " materialised, " + events.get("pending").asLong() + " pending");
    }

    /** Events this request sent again, and the requests that first wrote them. */
    private static void printDeduplicated(JsonNode deduplicated, PrintStream out) {
        out.println();
        out.println("deduplicated (" + deduplicated.get("count").asLong() + "; completeness: "
                + deduplicated.get("completeness").asText() + ")");
        if (deduplicated.get("count").asLong() == 0) {
            out.println("  none");
        }
        for (JsonNode original : deduplicated.get("first_written_by")) {
            List<String> offsets = new ArrayList<>();
            original.get("offsets").forEach(offset -> offsets.add(offset.asText()));
            out.println("  first written by " + original.get("request_id").asText() + ": offset"
                    + (offsets.size() == 1 ? " " : "s ") + String.join(", ", offsets));
        }
    }

    private static void printFlushes(JsonNode flushes, PrintStream out) {
        sectionHeader("flushes", flushes, out);
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode flush : flushes.get("items")) {
            rows.add(List.of(flush.get("flush_id").asText(), flush.get("target").asText(),
                    flush.get("first_offset").asLong() + ".." + flush.get("last_offset").asLong(),
                    flush.get("rows").asText(), Table.cell(flush.get("committed_at")),
                    String.valueOf(flush.path("trace_count").asLong()), Table.fullCell(flush.get("error"))));
        }
        printTable(List.of("flush_id", "target", "offsets", "rows", "committed_at", "traces", "error"), rows, out);
    }

    private static void printRuns(JsonNode runs, PrintStream out) {
        sectionHeader("runs", runs, out);
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode run : runs.get("items")) {
            rows.add(List.of(run.get("run_id").asText(), run.get("status").asText(), run.get("trigger").asText(),
                    Table.cell(run.get("triggered_by")), String.valueOf(run.path("trace_count").asLong())));
        }
        printTable(List.of("run_id", "status", "trigger", "triggered_by", "traces"), rows, out);
    }

    private static void printQuarantine(JsonNode quarantine, PrintStream out) {
        sectionHeader("quarantine", quarantine, out);
        if (quarantine.get("items").isEmpty()) {
            out.println("  none");
        }
        for (JsonNode item : quarantine.get("items")) {
            List<String> errors = new ArrayList<>();
            for (JsonNode error : item.get("errors")) {
                errors.add(error.has("field") ? error.path("field").asText() + ": " + error.path("reason").asText()
                        : error.asText());
            }
            out.println("  seq " + item.get("seq").asLong() + " (ingested " + item.get("ingested_at").asText() + "): "
                    + String.join("; ", errors));
            if (item.hasNonNull("replayed_offset")) {
                out.println("    replayed to offset " + item.get("replayed_offset").asLong() + " by "
                        + item.get("replayed_by").asText() + " at " + item.get("replayed_at").asText());
            }
        }
    }

    /** For a quarantine replay: the quarantined entries its events came from, and the requests that first sent them. */
    private static void printReplayedFrom(JsonNode replayedFrom, PrintStream out) {
        sectionHeader("replayed from the quarantine", replayedFrom, out);
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode item : replayedFrom.get("items")) {
            rows.add(List.of(item.get("seq").asText(), Table.cell(item.get("replayed_offset")),
                    item.get("request_id").asText(), item.get("received_at").asText()));
        }
        printTable(List.of("seq", "offset", "quarantined_by", "received_at"), rows, out);
    }

    private static void printRefusal(JsonNode refused, PrintStream out) {
        out.println("  " + refused.get("method").asText() + " " + refused.get("path").asText() + ": "
                + refused.get("status").asInt() + " " + Table.cell(refused.get("error")) + ", received "
                + refused.get("received_at").asText() + " (" + refused.get("duration_ms").asText() + " ms)");
        if (refused.hasNonNull("message")) {
            out.println("  " + refused.get("message").asText());
        }
    }

    private static void sectionHeader(String name, JsonNode section, PrintStream out) {
        out.println();
        out.println(name + " (" + section.get("count").asLong() + " of " + section.get("total").asLong()
                + "; completeness: " + section.get("completeness").asText() + ")");
    }

    /** A table indented under its section header, or "none". */
    private static void printTable(List<String> header, List<List<String>> rows, PrintStream out) {
        if (rows.isEmpty()) {
            out.println("  none");
            return;
        }
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        Table.print(header, rows, new PrintStream(buffer, true, StandardCharsets.UTF_8));
        buffer.toString(StandardCharsets.UTF_8).lines().forEach(line -> out.println("  " + line));
    }

    private static String plural(long count, String noun) {
        return count + " " + noun + (count == 1 ? "" : "s");
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
