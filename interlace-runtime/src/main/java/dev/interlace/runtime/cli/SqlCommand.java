package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** {@code interlace sql "SELECT ..."}: runs a read-only query on a server and prints the result as a table. */
final class SqlCommand implements Command {

    static final String DEFAULT_SERVER = "http://127.0.0.1:8000";
    private static final int MAX_CELL = 60;
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .setNodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));

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
        String server = DEFAULT_SERVER;
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
        URI uri;
        try {
            uri = URI.create(server.endsWith("/") ? server + "sql" : server + "/sql");
        } catch (IllegalArgumentException e) {
            throw new UsageException("--server is not a URL: " + server);
        }
        HttpResponse<String> response;
        try {
            response = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build().send(
                    HttpRequest.newBuilder(uri).header("Content-Type", "text/plain; charset=utf-8")
                            .POST(HttpRequest.BodyPublishers.ofString(query)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new CommandFailedException("cannot reach " + server + " (is `interlace serve` running there?)");
        } catch (IOException e) {
            throw new CommandFailedException("request to " + uri + " failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailedException("interrupted");
        }
        JsonNode body;
        try {
            body = JSON.readTree(response.body());
        } catch (IOException e) {
            throw new CommandFailedException("the server answered " + response.statusCode() + " with a body that is"
                    + " not JSON");
        }
        if (response.statusCode() != 200) {
            throw new CommandFailedException(body.path("error").asText("error") + ": "
                    + body.path("message").asText(response.body()));
        }
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
            row.forEach(value -> cells.add(cell(value)));
            rows.add(cells);
        }
        int[] widths = new int[header.size()];
        for (int i = 0; i < header.size(); i++) {
            widths[i] = header.get(i).length();
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        out.println(line(header, widths));
        StringBuilder rule = new StringBuilder();
        for (int i = 0; i < widths.length; i++) {
            rule.append(i == 0 ? "" : "-+-").append("-".repeat(widths[i]));
        }
        out.println(rule);
        for (List<String> row : rows) {
            out.println(line(row, widths));
        }
        int count = body.get("count").asInt();
        out.println("(" + count + " row" + (count == 1 ? "" : "s")
                + (body.get("truncated").asBoolean() ? ", truncated: the server caps results" : "") + ")");
    }

    private static String line(List<String> cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            line.append(i == 0 ? "" : " | ").append(String.format("%-" + Math.max(1, widths[i]) + "s", cells.get(i)));
        }
        return line.toString().stripTrailing();
    }

    private static String cell(JsonNode value) {
        String text = value.isNull() ? "NULL" : value.isTextual() ? value.asText() : value.toString();
        text = text.replace('\n', ' ');
        return text.length() > MAX_CELL ? text.substring(0, MAX_CELL - 1) + "…" : text;
    }
}
