package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.InterlaceClient;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code interlace sql "SELECT ..."}: runs a read-only query on a server and prints the result as a table (or JSON).
 * A result the server cut at its row or byte bound is printed as it came, with a warning on stderr, so that output
 * piped to a file or another program stays clean and the person at the terminal still sees that rows are missing.
 */
final class SqlCommand extends RemoteCommand {

    private final PrintStream err;

    /**
     * @param environment the process environment, for {@code INTERLACE_API_KEY}
     * @param err where warnings go
     */
    SqlCommand(Map<String, String> environment, PrintStream err) {
        super(environment,
                "sql",
                "\"<query>\" " + ServerOptions.SYNOPSIS + " [--after POSITION] [--json]",
                "run a read-only SQL query against the warehouse");
        this.err = err;
    }
    @Override
    public int run(List<String> args, PrintStream out) {
        ServerOptions server = new ServerOptions();
        Arguments arguments = Arguments.parse(args, server, Set.of("--json"), Set.of("--after"));
        boolean json = arguments.flag("--json");
        String query = arguments.single("query");
        if (query.isBlank()) {
            throw new UsageException("no query given");
        }
        JsonNode body = run(client(server), query, arguments.value("--after"));
        print(body, json, out, err);
        return 0;
    }

    /**
     * Runs {@code query}; with {@code after} (publish positions, as {@code Interlace-After} takes them) once those
     * events are materialised.
     */
    static JsonNode run(ServerClient client, String query, String after) {
        return client.send("POST", "/sql", "text/plain; charset=utf-8", query,
                after == null ? Map.of() : Map.of(InterlaceClient.AFTER_HEADER, after));
    }

    /** Prints a query's answer as a table (or its JSON), warning on {@code err} when it was cut. */
    static void print(JsonNode body, boolean json, PrintStream out, PrintStream err) {
        if (json) {
            out.println(TerminalText.prettyJson(body));
        } else {
            printTable(body, out);
        }
        if (body.path("truncated").asBoolean()) {
            err.println("interlace sql: warning: the result is truncated: only its first " + body.path("count").asInt()
                    + " rows were returned (the server's row or size bound); add LIMIT/OFFSET, select fewer"
                    + " columns or aggregate");
        }
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
