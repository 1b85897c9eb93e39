package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@code interlace runs}: recent model runs, newest first, with the filters of {@code GET /runs}. */
final class RunsCommand extends RemoteCommand {

    /** @param environment the process environment, for {@code INTERLACE_API_KEY} */
    RunsCommand(Map<String, String> environment) {
        super(environment,
                "runs",
                "[--model M] [--status S] [--trigger T] [--since TIME] [--until TIME] [--limit N] "
                        + ServerOptions.SYNOPSIS + " [--json]",
                "list model runs, newest first");
    }

    /** The CLI option of each {@code GET /runs} filter and its query parameter (the same names). */
    private static final Map<String, String> FILTERS = Map.of("model", "model", "status", "status",
            "trigger", "trigger", "since", "since", "until", "until", "limit", "limit");

    @Override
    public int run(List<String> args, PrintStream out) {
        ListOptions options = ListOptions.parse(args, 0, FILTERS, null);
        JsonNode body = client(options.server()).send("GET", options.path("/runs"), null, null);
        if (options.json()) {
            out.println(TerminalText.prettyJson(body));
            return 0;
        }
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode run : body.get("runs")) {
            rows.add(List.of(run.get("id").asText(), run.get("trigger").asText(),
                    Integer.toString(run.get("triggers").size()), run.get("status").asText(),
                    Table.cell(run.get("started_at")), Table.cell(run.get("duration_ms"))));
        }
        Table.print(List.of("id", "trigger", "triggers", "status", "started_at", "duration_ms"), rows, out);
        out.println("(" + body.get("count").asInt() + " of " + body.get("total").asLong() + " runs)");
        return 0;
    }
}
