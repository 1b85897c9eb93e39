package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code interlace logs api|sys}: the API requests ({@code GET /logs/api}: acknowledged publishes and refused
 * requests) or the system records ({@code GET /logs/sys}), newest first, with their filters; the footer says how
 * complete the list is, since refused requests are only kept in a bounded in-memory ring.
 */
final class LogsCommand extends RemoteCommand {

    /** @param environment the process environment, for {@code INTERLACE_API_KEY} */
    LogsCommand(Map<String, String> environment) {
        super(environment,
                "logs",
                "api [--stream S] [--status N] [--request-id ID] [--since TIME] [--until TIME] [--limit N]"
                        + " " + ServerOptions.SYNOPSIS + " [--json]"
                        + " | sys [--event E] [--stream S] [--id ID] [--since TIME] [--until TIME] [--limit N]"
                        + " " + ServerOptions.SYNOPSIS + " [--json]",
                "list API requests (api) or system records (sys), newest first");
    }

    /** The CLI option of each {@code GET /logs/api} filter and its query parameter. */
    private static final Map<String, String> API_FILTERS = Map.of("stream", "stream", "status", "status",
            "request-id", "request_id", "since", "since", "until", "until", "limit", "limit");
    /** The CLI option of each {@code GET /logs/sys} filter and its query parameter. */
    private static final Map<String, String> SYS_FILTERS = Map.of("event", "event", "stream", "stream", "id", "id",
            "since", "since", "until", "until", "limit", "limit");

    @Override
    public int run(List<String> args, PrintStream out) {
        if (args.isEmpty() || args.get(0).startsWith("-")) {
            throw new UsageException("say which log first: api (requests) or sys (system records)");
        }
        String log = args.get(0);
        Map<String, String> known = switch (log) {
            case "api" -> API_FILTERS;
            case "sys" -> SYS_FILTERS;
            default -> throw new UsageException("unknown log \"" + log + "\"; choose api (requests) or sys (system"
                    + " records)");
        };
        ListOptions options = ListOptions.parse(args, 1, known, "logs " + log);
        JsonNode body = client(options.server()).send("GET", options.path("/logs/" + log), null, null);
        if (options.json()) {
            out.println(TerminalText.prettyJson(body));
        } else if (log.equals("api")) {
            printRequests(body, out);
        } else {
            printSystemRecords(body, out);
        }
        return 0;
    }

    private static void printRequests(JsonNode body, PrintStream out) {
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode request : body.get("requests")) {
            rows.add(List.of(request.get("received_at").asText(), request.get("request_id").asText(),
                    request.get("method").asText(), request.get("path").asText(), request.get("status").asText(),
                    outcome(request), Table.cell(request.get("duration_ms")), request.get("source").asText()));
        }
        Table.print(List.of("received_at", "request_id", "method", "path", "status", "outcome", "duration_ms",
                "source"), rows, out);
        out.println("(" + body.get("count").asInt() + " of " + body.get("total").asLong() + " requests; "
                + completeness(body) + ")");
    }

    /** What a publish did (its counts), or why a request was refused (its error code). */
    private static String outcome(JsonNode request) {
        if (request.has("accepted")) {
            return request.get("accepted").asLong() + " accepted, " + request.get("deduplicated").asLong()
                    + " deduplicated, " + request.get("quarantined").asLong() + " quarantined";
        }
        return Table.cell(request.get("error"));
    }

    private static void printSystemRecords(JsonNode body, PrintStream out) {
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode record : body.get("records")) {
            rows.add(List.of(record.get("at").asText(), record.get("event").asText(),
                    Table.cell(record.get("stream")), Table.cell(record.get("id")),
                    Table.fullCell(record.get("message"))));
        }
        Table.print(List.of("at", "event", "stream", "id", "message"), rows, out);
        out.println("(" + body.get("count").asInt() + " of " + body.get("total").asLong() + " records; "
                + completeness(body) + ")");
    }

    private static String completeness(JsonNode body) {
        String completeness = body.get("completeness").asText();
        JsonNode ring = body.get("ring");
        StringBuilder missing = new StringBuilder();
        for (JsonNode node : body.path("nodes").path("not_answered")) {
            missing.append("; not answered: ").append(node.path("node").asText()).append(" (")
                    .append(node.path("reason").asText()).append(')');
        }
        if (!completeness.equals("ring") || ring == null) {
            return "completeness: " + completeness + missing;
        }
        return "completeness: ring — refused requests kept in memory since " + ring.get("since").asText() + ", "
                + ring.get("dropped").asLong() + " dropped" + missing;
    }
}
