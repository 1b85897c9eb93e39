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
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --sql-isolation process}: queries run in a query process, a local replica of the warehouse that the server
 * kills when a query outlives its deadline. The server is started as {@code interlace serve} starts it (the streams and
 * models of the class path, settings from flags), in this JVM; its query process is a child JVM.
 */
class SqlQueryProcessTest {

    /**
     * Ten billion lambda calls in one row: DuckDB checks for a cancelled query between vectors of rows, never inside
     * this one, and no function bound refuses it.
     */
    private static final String UNINTERRUPTIBLE = "SELECT list_transform(range(100000),"
            + " lambda x: len(list_filter(range(100000), lambda y: y % (x + 1) = 0)))";
    private static final long DEADLINE_MILLIS = 3_000;
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dataDirectory;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void noQueryOutlivesItsDeadlineByMoreThanTwoSecondsAndPublishesAndHealthAnswerMeanwhile() throws Exception {
        try (Interlace server = start("--sql-timeout-ms", Long.toString(DEADLINE_MILLIS))) {
            awaitQueries(server);
            List<CompletableFuture<Answer>> queries = new ArrayList<>();
            for (int i = 0; i < 4; i++) { // every query slot
                queries.add(CompletableFuture.supplyAsync(() -> {
                    long started = System.nanoTime();
                    HttpResponse<String> answer = sql(server, UNINTERRUPTIBLE);
                    return new Answer(answer.statusCode(), answer.body(), (System.nanoTime() - started) / 1_000_000);
                }));
            }
            int published = 0;
            while (!CompletableFuture.allOf(queries.toArray(CompletableFuture[]::new)).isDone()) {
                assertThat(send(server, HttpRequest.newBuilder(uri(server, "/health/live")).GET()).statusCode())
                        .isEqualTo(200);
                HttpResponse<String> publish = publish(server, "o" + published);
                assertThat(publish.statusCode()).as("%s", publish.body()).isEqualTo(200);
                published++;
            }
            for (CompletableFuture<Answer> query : queries) {
                Answer answer = query.join();
                // 408 for the query past its deadline; 503 (retry) for one that ran beside it in the killed process
                assertThat(answer.status()).as("%s", answer.body()).isIn(408, 503);
                assertThat(answer.millis()).as("answered within the deadline and two seconds")
                        .isLessThan(DEADLINE_MILLIS + 2_000);
            }
            assertThat(published).as("publishes answered while the queries ran").isPositive();
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

    /** A query's answer and how long it took. */
    private record Answer(int status, String body, long millis) {}

    /** The rows of an answer as text, without quotes; its status and body when it is not 200. */
    private static String rows(HttpResponse<String> answer) throws java.io.IOException {
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

    private Interlace start(String... flags) {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--data-dir", dataDirectory.toString()));
        args.addAll(List.of(flags));
        InterlaceConfig config = ConfigLoader.load(args.toArray(String[]::new), Map.of()).config();
        return Interlace.builder().config(config).start();
    }

    @SuppressWarnings("unchecked")
    private static void awaitQueries(Interlace server) throws Exception {
        Optional<QueryProcess> process = server.instance(com.google.inject.Injector.class)
                .getInstance(com.google.inject.Key.get(new com.google.inject.TypeLiteral<Optional<QueryProcess>>() {}));
        assertThat(process).as("queries run in a query process").isPresent();
        process.get().firstStart().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private HttpResponse<String> sql(Interlace server, String query) {
        return send(server, HttpRequest.newBuilder(uri(server, "/sql")).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(query)));
    }

    private HttpResponse<String> publish(Interlace server, String orderId) {
        return send(server, HttpRequest.newBuilder(uri(server, "/streams/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"" + orderId + "\",\"total\":"
                        + orderId.length() + ".50}")));
    }

    private static URI uri(Interlace server, String path) {
        return server.uri().resolve(path);
    }

    private HttpResponse<String> send(Interlace server, HttpRequest.Builder request) {
        try {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
