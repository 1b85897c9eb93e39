package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code interlace runs}: recent model runs, newest first, with the filters of {@code GET /runs}. */
final class RunsCommand implements Command {

    private static final List<String> FILTERS = List.of("model", "status", "trigger", "since", "until", "limit");

    @Override
    public String name() {
        return "runs";
    }

    @Override
    public String synopsis() {
        return "[--model M] [--status S] [--trigger T] [--since TIME] [--until TIME] [--limit N] [--server URL]"
                + " [--json]";
    }

    @Override
    public String summary() {
        return "list model runs, newest first";
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        String server = ServerClient.DEFAULT_SERVER;
        boolean json = false;
        Map<String, String> filters = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--json")) {
                json = true;
                continue;
            }
            if (!arg.startsWith("--") || i + 1 == args.size()) {
                throw new UsageException(arg.startsWith("--") ? arg + " needs a value" : "unexpected argument " + arg);
            }
            String name = arg.substring(2);
            String value = args.get(++i);
            if (name.equals("server")) {
                server = value;
            } else if (FILTERS.contains(name)) {
                filters.put(name, value);
            } else {
                throw new UsageException("unknown option " + arg);
            }
        }
        StringBuilder path = new StringBuilder("/runs");
        filters.forEach((name, value) -> path.append(path.indexOf("?") < 0 ? '?' : '&').append(name).append('=')
                .append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
        JsonNode body = new ServerClient(server).send("GET", path.toString(), null, null);
        if (json) {
            out.println(body.toPrettyString());
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
