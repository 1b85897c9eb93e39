package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** {@code interlace sql "SELECT ..."}: runs a read-only query on a server and prints the result as a table. */
final class SqlCommand implements Command {


    @Override
    public String name() {
        return "sql";
    }

    @Override
    public String synopsis() {
        return "\"<query>\" [--server URL] [--json]";
    }

    @Override
    public String summary() {
        return "run a read-only SQL query against the warehouse";
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        String server = ServerClient.DEFAULT_SERVER;
        boolean json = false;
        String query = null;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--json")) {
                json = true;
            } else if (arg.equals("--server")) {
                if (i + 1 == args.size()) {
                    throw new UsageException("--server needs a URL");
                }
                server = args.get(++i);
            } else if (arg.startsWith("--server=")) {
                server = arg.substring("--server=".length());
            } else if (arg.startsWith("--")) {
                throw new UsageException("unknown option " + arg);
            } else if (query == null) {
                query = arg;
            } else {
                throw new UsageException("give the query as one argument (quote it)");
            }
        }
        if (query == null || query.isBlank()) {
            throw new UsageException("no query given");
        }
        JsonNode body = new ServerClient(server).send("POST", "/sql", "text/plain; charset=utf-8", query);
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
