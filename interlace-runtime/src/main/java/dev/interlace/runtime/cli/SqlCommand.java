package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.Map;

/** {@code interlace sql "SELECT ..."}: runs a read-only query on a server and prints the result as a table. */
final class SqlCommand implements Command {

    private final Map<String, String> environment;

    /** @param environment the process environment, for {@code INTERLACE_API_KEY} */
    SqlCommand(Map<String, String> environment) {
        this.environment = environment;
    }
    @Override
    public String name() {
        return "sql";
    }

    @Override
    public String synopsis() {
        return "\"<query>\" " + ServerOptions.SYNOPSIS + " [--json]";
    }

    @Override
    public String summary() {
        return "run a read-only SQL query against the warehouse";
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        ServerOptions server = new ServerOptions();
        Arguments arguments = Arguments.parse(args, server, Set.of("--json"), Set.of());
        boolean json = arguments.flag("--json");
        String query = arguments.single("query");
        if (query.isBlank()) {
            throw new UsageException("no query given");
        }
        JsonNode body = server.client(environment).send("POST", "/sql", "text/plain; charset=utf-8", query);
        if (json) {
            out.println(body.toPrettyString());
        } else {
            printTable(body, out);
        }
        return 0;
    }

    private static void printTable(JsonNode body, PrintStream out) {
        List<String> header = new ArrayList<>();
        body.get("columns").forEach(column -> header.add(column.get("name").asText()));
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode row : body.get("rows")) {
            List<String> cells = new ArrayList<>();
            row.forEach(value -> cells.add(Table.cell(value)));
            rows.add(cells);
        }
        Table.print(header, rows, out);
        int count = body.get("count").asInt();
        out.println("(" + count + " row" + (count == 1 ? "" : "s")
                + (body.get("truncated").asBoolean() ? ", truncated: the server caps results" : "") + ")");
    }
}
