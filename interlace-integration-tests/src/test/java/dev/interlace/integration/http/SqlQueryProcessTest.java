package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.queryprocess.QueryProcess;
import dev.interlace.runtime.sql.QueryResult;
import dev.interlace.runtime.sql.RowAllowance;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.warehouse.SqlQueries;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --sql-isolation process}: queries run in a query process, a local replica of the warehouse that the server
 * kills when a query outlives its deadline. The server is started as {@code interlace serve} starts it (the streams and
 * models of the class path, settings from flags), in this JVM; its query process is a child JVM.
 */
class SqlQueryProcessTest {

    static final long DEADLINE_MILLIS = 3_000;
    static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dataDirectory;

    @Test
    void noQueryOutlivesItsDeadlineByMoreThanTwoSecondsAndPublishesAndHealthAnswerMeanwhile() throws Exception {
        try (Interlace server = start("--sql-timeout-ms", Long.toString(DEADLINE_MILLIS))) {
            awaitQueries(server);
            UncancellableQueries.Run run = UncancellableQueries.duringPublishes(server.uri());
            UncancellableQueries.assertHeldTo(run, DEADLINE_MILLIS);
            int published = run.published();
            assertThat(send(server, HttpRequest.newBuilder(uri(server, "/metrics")).GET()).body())
                    .as("the kill is counted").containsPattern("(?m)^interlace_sql_query_process_kills_total [1-9]");

            // The computations ended with their process: no query slot is held by them (inline, all four would be
            // until DuckDB finished, minutes later: 503 busy), and the new process answers with every order published
            // meanwhile.
            HttpResponse<String> next = sql(server, "SELECT 1");
            assertThat(next.body()).as("a query right after the answers").doesNotContain("\"busy\"");
            assertThat(next.statusCode()).as("%s", next.body()).isIn(200, 503);
            int all = published;
            String count = Eventually.get("a normal query answered after the kill", WAIT,
                    () -> rows(sql(server, "SELECT count(*) FROM streams.orders")), ("[[" + all + "]]")::equals);
            assertThat(count).isEqualTo("[[" + all + "]]");
            // DuckDB's driver copies its native library into each JVM's temporary directory and removes it only at a
            // normal exit; the process deletes its copy once loaded, and its directory is emptied before each start:
            // neither the killed process's copy nor the running one's is there.
            try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(
                    dataDirectory.resolve(QueryProcess.DIRECTORY).resolve("tmp"))) {
                assertThat(files.map(file -> file.getFileName().toString())
                        .filter(name -> name.startsWith("libduckdb_java")))
                        .as("copies of DuckDB's library after a kill").isEmpty();
            }
        }
    }

    @Test
    void theQueryProcessHoldsTheRowsOfTheServersWarehouse() throws Exception {
        try (Interlace server = start()) {
            awaitQueries(server);
            for (int i = 0; i < 300; i++) {
                assertThat(publish(server, "o" + (i % 250)).statusCode()).isEqualTo(200); // 50 duplicates
            }
            String digest = "SELECT count(*), md5(string_agg(t::VARCHAR, '|' ORDER BY t::VARCHAR))"
                    + " FROM streams.orders t";
            String models = "SELECT count(*), md5(string_agg(t::VARCHAR, '|' ORDER BY t::VARCHAR))"
                    + " FROM order_sizes t";
            for (String query : List.of(digest, models)) {
                String inServer = Eventually.get("the server's warehouse holds every order", WAIT,
                        () -> inline(server, query), rows -> rows.startsWith("[[250,"));
                String expected = inServer.replace(" ", "");
                String viaProcess = Eventually.get("the query process answers the server's rows", WAIT,
                        () -> rows(sql(server, query)), expected::equals);
                assertThat(viaProcess).isEqualTo(expected);
            }
        }
    }

    @Test
    void anIdleQueryProcessStopsAndTheNextQueryStartsItAgainWithEverythingPublishedMeanwhile() throws Exception {
        try (Interlace server = start("--sql-process-idle-ms", "1000")) {
            String directory = server.instance(InterlaceConfig.class).dataDirectory().toAbsolutePath().toString();
            awaitQueries(server);
            for (int i = 1; i <= 5; i++) {
                assertThat(publish(server, "i" + i).statusCode()).isEqualTo(200);
            }
            Eventually.get("the query process holds the first five", WAIT,
                    () -> rows(sql(server, "SELECT count(*) FROM streams.orders")), "[[5]]"::equals);

            Eventually.until("the query process stops a second after the last query", WAIT,
                    () -> queryProcesses(directory) == 0);
            for (int i = 6; i <= 8; i++) {
                assertThat(publish(server, "i" + i).statusCode()).isEqualTo(200);
            }
            // The next query starts a new process and waits for it (up to the query's time limit: on a loaded
            // machine it may be refused 503 meanwhile), and sees what the server's warehouse holds, the orders
            // published while no process ran among them.
            Eventually.until("the server materialised all eight", WAIT,
                    () -> inline(server, "SELECT count(*) FROM streams.orders").equals("[[8]]"));
            String rows = Eventually.get("the next query answered by a new process", WAIT,
                    () -> rows(sql(server, "SELECT count(*) FROM streams.orders")),
                    answer -> answer.equals("[[8]]") || !answer.startsWith("503"));
            assertThat(rows).isEqualTo("[[8]]");
            assertThat(queryProcesses(directory)).as("the query started one process again").isEqualTo(1);
        }
    }

    /** The rows of an answer as text, without quotes; its status and body when it is not 200. */
    static String rows(HttpResponse<String> answer) throws java.io.IOException {
        if (answer.statusCode() != 200) {
            return answer.statusCode() + " " + answer.body();
        }
        JsonNode body = TestServer.JSON.readTree(answer.body());
        return body.get("rows").toString().replace("\"", "");
    }

    @Test
    void aQueryProcessBehindATrimmedLogRebuildsFromWhatTheLogHolds() throws Exception {
        try (Interlace server = start()) {
            awaitQueries(server);
            for (int i = 1; i <= 10; i++) {
                assertThat(publish(server, "a" + i).statusCode()).isEqualTo(200);
            }
            Eventually.get("the query process holds the first ten", WAIT,
                    () -> rows(sql(server, "SELECT count(*) FROM streams.orders")), "[[10]]"::equals);
        }
        // Meanwhile, with queries inline (no query process), ten more orders, and the log trimmed past the query
        // process's watermark.
        try (Interlace server = start("--sql-isolation", "inline")) {
            for (int i = 11; i <= 20; i++) {
                assertThat(publish(server, "b" + i).statusCode()).isEqualTo(200);
            }
            Eventually.until("the server materialised all twenty", WAIT,
                    () -> inline(server, "SELECT count(*) FROM streams.orders").equals("[[20]]"));
            assertThat(server.instance(dev.interlace.runtime.log.EventLog.class).trim("orders", 15)).isEqualTo(15);
        }
        try (Interlace server = start()) {
            String rows = Eventually.get("the query process rebuilt from the log's first event", WAIT,
                    () -> rows(sql(server, "SELECT count(*), min(order_id), max(order_id) FROM streams.orders")),
                    "[[5,b16,b20]]"::equals);
            assertThat(rows).isEqualTo("[[5,b16,b20]]");
        }
    }

    /** The rows of {@code query} in the server's own warehouse, as text. */
    private static String inline(Interlace server, String query) {
        QueryResult result = server.instance(SqlQueries.class).run(query, RowAllowance.UNLIMITED);
        return result.rows().toString();
    }

    /** The flags of the server's log: none here (the SQLite log in the data directory). */
    List<String> logFlags() {
        return List.of();
    }

    Interlace start(String... flags) {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--data-dir", dataDirectory.toString()));
        args.addAll(logFlags());
        args.addAll(List.of(flags));
        InterlaceConfig config = ConfigLoader.load(args.toArray(String[]::new), Map.of()).config();
        return Interlace.builder().config(config).start();
    }

    @SuppressWarnings("unchecked")
    static void awaitQueries(Interlace server) throws Exception {
        Optional<QueryProcess> process = server.instance(com.google.inject.Injector.class)
                .getInstance(com.google.inject.Key.get(new com.google.inject.TypeLiteral<Optional<QueryProcess>>() {}));
        assertThat(process).as("queries run in a query process").isPresent();
        String directory = server.instance(InterlaceConfig.class).dataDirectory().toAbsolutePath().toString();
        assertThat(queryProcesses(directory)).as("no query process before the first query").isZero();
        sql(server, "SELECT 1"); // starts it: answered, or 503 while it starts
        process.get().ready().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(queryProcesses(directory)).as("the first query started the query process").isEqualTo(1);
    }

    /** The query processes this JVM started for the server of {@code directory}. */
    private static long queryProcesses(String directory) {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).filter(child -> {
            try {
                String line = java.nio.file.Files.readString(Path.of("/proc", Long.toString(child.pid()), "cmdline"));
                return line.contains(QueryProcess.MAIN) && line.contains(directory);
            } catch (java.io.IOException e) {
                return false;
            }
        }).count();
    }

    static HttpResponse<String> sql(Interlace server, String query) {
        return UncancellableQueries.sql(server.uri(), query);
    }

    static HttpResponse<String> publish(Interlace server, String orderId) {
        return UncancellableQueries.publish(server.uri(), orderId);
    }

    private static URI uri(Interlace server, String path) {
        return server.uri().resolve(path);
    }

    private static HttpResponse<String> send(Interlace server, HttpRequest.Builder request) {
        return UncancellableQueries.send(request);
    }
}
