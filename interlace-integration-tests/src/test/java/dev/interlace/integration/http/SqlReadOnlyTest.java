package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.AbstractModule;
import com.google.inject.Module;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.flush.Flusher;
import dev.interlace.runtime.sql.QueryLimits;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /sql} cannot change the warehouse, whatever it is sent: a corpus of hostile statements over real HTTP
 * is refused with the right status, and an oracle ({@link WarehouseSnapshot}) finds the warehouse exactly as it was.
 */
class SqlReadOnlyTest {

    @TempDir
    Path dataDirectory;

    /** A statement and the refusal it must get. */
    private record Hostile(String sql, int status, String error) {}

    private static Hostile readOnly(String sql) {
        return new Hostile(sql, 403, "read_only");
    }

    private static Hostile invalid(String sql) {
        return new Hostile(sql, 400, "invalid_sql");
    }

    private static Hostile failed(String sql) {
        return new Hostile(sql, 400, "query_failed");
    }

    private static final List<Hostile> CORPUS = List.of(
            // Writes, schema changes and their disguises.
            readOnly("DELETE FROM streams.orders"),
            readOnly("UPDATE streams.orders SET total = 0"),
            readOnly("INSERT INTO streams.orders SELECT * FROM streams.orders"),
            readOnly("TRUNCATE streams.orders"),
            readOnly("DROP TABLE streams.orders"),
            readOnly("DROP TABLE streams._watermarks"),
            readOnly("CREATE TABLE streams.x AS SELECT 1"),
            readOnly("CREATE OR REPLACE VIEW streams.v AS SELECT 1"),
            readOnly("CREATE MACRO m() AS 1"),
            readOnly("CREATE SEQUENCE s"),
            readOnly("CREATE SCHEMA evil"),
            readOnly("ALTER TABLE streams.orders ADD COLUMN x INTEGER"),
            readOnly("ALTER TABLE streams.orders RENAME TO gone"),
            readOnly("WITH x AS (SELECT 1) DELETE FROM streams.orders"),
            readOnly("WITH d AS (DELETE FROM streams.orders RETURNING *) SELECT * FROM d"),
            readOnly("WITH d AS (UPDATE streams._watermarks SET watermark = 999 RETURNING *) SELECT count(*) FROM d"),
            readOnly("WITH d AS (INSERT INTO streams.orders SELECT * FROM streams.orders RETURNING *)"
                    + " SELECT count(*) FROM d"),
            readOnly("WITH a AS (SELECT 1), d AS (DELETE FROM streams.orders RETURNING *) FROM d"),
            readOnly("EXPLAIN ANALYZE DELETE FROM streams.orders"),
            readOnly("explain analyze delete from streams.orders"),
            readOnly("EXPLAIN ANALYZE SELECT 1"),
            readOnly("EXPLAIN DELETE FROM streams.orders"),
            readOnly("EXPLAIN WITH d AS (DELETE FROM streams.orders RETURNING *) SELECT * FROM d"),
            readOnly("PIVOT streams.orders ON order_id USING count(*)"),
            // The database, its files and extensions.
            readOnly("ATTACH ':memory:' AS m"),
            readOnly("ATTACH '" + "/tmp/interlace-attack.duckdb' AS x"),
            readOnly("DETACH warehouse"),
            readOnly("USE memory"),
            readOnly("INSTALL httpfs"),
            readOnly("LOAD httpfs"),
            readOnly("LOAD json"),
            readOnly("COPY streams.orders TO '/tmp/interlace-attack.csv'"),
            readOnly("COPY streams.orders FROM '/etc/passwd'"),
            readOnly("EXPORT DATABASE '/tmp/interlace-attack'"),
            readOnly("IMPORT DATABASE '/tmp/interlace-attack'"),
            readOnly("PRAGMA version"),
            readOnly("PRAGMA enable_profiling"),
            readOnly("CALL pragma_version()"),
            readOnly("CALL checkpoint()"),
            // Settings and transactions.
            readOnly("SET memory_limit = '1GB'"),
            readOnly("SET GLOBAL memory_limit = '1GB'"),
            readOnly("SET threads = 1"),
            readOnly("SET enable_external_access = true"),
            readOnly("SET lock_configuration = false"),
            readOnly("SET VARIABLE x = 1"),
            readOnly("RESET memory_limit"),
            readOnly("RESET GLOBAL threads"),
            readOnly("CHECKPOINT"),
            readOnly("FORCE CHECKPOINT"),
            readOnly("VACUUM"),
            readOnly("BEGIN"),
            readOnly("BEGIN TRANSACTION"),
            readOnly("COMMIT"),
            readOnly("ROLLBACK"),
            // Comments in every form DuckDB accepts, hiding a write or ending one.
            readOnly("-- a comment\nDELETE FROM streams.orders"),
            readOnly("-- a comment\rDELETE FROM streams.orders"),
            readOnly("-- a comment\r\nDELETE FROM streams.orders"),
            readOnly("/* SELECT */ DELETE FROM streams.orders"),
            readOnly("/* /* nested */ SELECT */ DELETE FROM streams.orders"),
            readOnly("DELETE FROM streams.orders -- SELECT"),
            // Several statements, however the separator is hidden from a lexer.
            invalid("SELECT 1; SELECT 2"),
            invalid("SELECT 1; DELETE FROM streams.orders"),
            invalid("SELECT 1 ; DROP TABLE streams.orders"),
            invalid("SELECT 1; COMMIT"),
            invalid("COMMIT; SELECT 1"),
            invalid("SELECT 1 --x\r; DELETE FROM streams.orders; COMMIT; SELECT 1"),
            invalid("SELECT 1 --x\n; DELETE FROM streams.orders; COMMIT; SELECT 1"),
            invalid("SELECT 1 --x\r\n; DELETE FROM streams.orders; COMMIT; SELECT 1"),
            invalid("SELECT E'\\''; UPDATE streams.orders SET total = 0; COMMIT; SELECT 1 --'"),
            invalid("SELECT 'it''s'; DELETE FROM streams.orders"),
            invalid("SELECT $$ ; $$; DELETE FROM streams.orders"),
            invalid("SELECT $tag$ '; $tag$; DELETE FROM streams.orders; -- '"),
            invalid("SELECT 1 AS \"a;b\"; DELETE FROM streams.orders"),
            invalid("SELECT 1 /* /* ; */ */; DELETE FROM streams.orders"),
            invalid("SELECT 1; SET GLOBAL memory_limit = '1GB'"),
            invalid("SELECT 1; ATTACH ':memory:' AS m; USE m"),
            invalid("SELECT 1; CHECKPOINT"),
            invalid("BEGIN; DELETE FROM streams.orders; COMMIT"),
            // Nothing, or nothing DuckDB can parse.
            invalid(""),
            invalid("   "),
            invalid("-- only a comment"),
            invalid("/* only a comment */ ;"),
            invalid("SELEC 1"),
            invalid("SELECT * FROM (DELETE FROM streams.orders RETURNING *)"),
            // Queries that try to reach files or run statements of their own: the database refuses them.
            failed("SELECT * FROM read_csv('/etc/passwd')"),
            failed("FROM read_text('/etc/hostname')"),
            failed("SELECT * FROM read_parquet('/tmp/interlace-attack.parquet')"),
            failed("SELECT * FROM read_json('/etc/passwd')"),
            failed("SELECT * FROM read_blob('/etc/passwd')"),
            failed("SELECT * FROM glob('/etc/*')"),
            readOnly("SELECT * FROM query('DELETE FROM streams.orders')"),
            readOnly("SELECT * FROM force_checkpoint()"),
            // Table and scalar functions that act, run SQL of their own, or show the host.
            readOnly("SELECT * FROM checkpoint()"),
            readOnly("SELECT * FROM CHECKPOINT()"),
            readOnly("SELECT * FROM truncate_duckdb_logs()"),
            readOnly("SELECT * FROM query('SELECT * FROM checkpoint()')"),
            readOnly("SELECT * FROM query_table('streams.orders')"),
            readOnly("SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))"),
            readOnly("SELECT setseed(0.5)"),
            readOnly("SELECT * FROM duckdb_settings()"),
            readOnly("SELECT value FROM duckdb_settings() WHERE name = 'temp_directory'"),
            readOnly("SELECT current_setting('temp_directory')"),
            readOnly("SELECT current_setting('TEMP_DIRECTORY')"),
            readOnly("SELECT current_setting(lower('TEMP_DIRECTORY'))"),
            readOnly("SELECT 'temp_directory'.current_setting()"),
            readOnly("SELECT (SELECT current_setting('home_directory'))"),
            readOnly("SELECT path FROM duckdb_databases()"),
            readOnly("FROM pragma_database_list"),
            readOnly("FROM pg_catalog.pg_settings"),
            readOnly("SELECT * FROM duckdb_extensions()"),
            readOnly("SELECT * FROM duckdb_temporary_files()"),
            readOnly("SELECT * FROM duckdb_secrets()"),
            readOnly("FROM duckdb_logs"),
            // Functions of DuckDB 2.0 that call another function named by an argument: a checkpoint, or a query()
            // whose error message shows a setting, past the names above.
            readOnly("SELECT * FROM destroy_external_resource('checkpoint', 'warehouse')"),
            readOnly("FROM destroy_external_resource('query', 'SELECT error((SELECT value FROM duckdb_settings()"
                    + " WHERE name = ''temp_directory''))')"),
            readOnly("FROM create_external_resource('t', MAP {}, 'r', 1, false, 1, 1)"),
            readOnly("FROM register_external_resource_type('t', 'k', 'checkpoint', 'checkpoint', 'checkpoint',"
                    + " 'checkpoint', 'checkpoint')"),
            // Settings, files and logs of the host under other names.
            readOnly("FROM duckdb_external_file_cache()"),
            readOnly("FROM duckdb_extension_repositories()"),
            readOnly("FROM duckdb_logs_parsed('QueryLog')"),
            readOnly("SELECT write_log('forged')"));

    /** Queries that must still answer 200 after the corpus. */
    private static final List<String> LEGITIMATE = List.of(
            "SELECT count(*) FROM streams.orders",
            "SELECT order_id, sum(total) FROM streams.orders GROUP BY ALL ORDER BY ALL",
            "WITH x AS (SELECT 1 AS a) SELECT a FROM x",
            "VALUES (1), (2)",
            "FROM streams.orders",
            "DESCRIBE streams.orders",
            "SHOW TABLES",
            "SHOW ALL TABLES",
            "SUMMARIZE streams.orders",
            "EXPLAIN SELECT * FROM streams.orders",
            "(SELECT 1) UNION ALL (SELECT 2)",
            "SELECT 1;",
            "SELECT 'a;b' AS s -- ; DELETE FROM streams.orders",
            "SELECT 1 AS \"; DELETE FROM streams.orders; --\"",
            "SELECT $$; DELETE FROM streams.orders$$",
            "SELECT E'\\'' AS quote",
            "SELECT current_setting('memory_limit')",
            "SELECT levenshtein('kitten', 'sitting'), jaro_similarity('martha', 'marhta', 0.5)",
            "SELECT max(levenshtein(repeat('a', 400) || i::VARCHAR, repeat('b', 400))) FROM range(100) t(i)",
            "SELECT stream, watermark FROM streams._watermarks");

    @Test
    void hostileStatementsAreRefusedAndTheWarehouseIsUnchanged() {
        CapturedWarehouse warehouse = new CapturedWarehouse();
        try (TestServer api = TestServer.startWith(dataDirectory, TestServer.CATALOG, List.of(warehouse))) {
            api.postJson("/streams/orders", "[{\"order_id\":\"o1\",\"total\":49.5,\"meta\":{\"a\":1}},"
                    + "{\"order_id\":\"o2\",\"total\":\"0.10\"}]");
            api.postJson("/streams/clicks", "[{\"click_id\":\"c1\",\"url\":\"/a\",\"at\":\"soon\"}]");
            settle(api);
            WarehouseSnapshot before = WarehouseSnapshot.of(warehouse.get());

            assertSoftly(softly -> {
                for (Hostile hostile : CORPUS) {
                    TestServer.Response response = sql(api, hostile.sql());
                    softly.assertThat(response.status()).as("status of %s", hostile.sql()).isEqualTo(hostile.status());
                    softly.assertThat(response.body() == null ? null : response.body().path("error").asText())
                            .as("error of %s", hostile.sql()).isEqualTo(hostile.error());
                    softly.assertThat(String.valueOf(response.body())).as("answer to %s", hostile.sql())
                            .doesNotContain(dataDirectory.toAbsolutePath().toString());
                    // The same statement as JSON takes the same path.
                    TestServer.Response asJson = api.postJson("/sql", TestServer.JSON.createObjectNode()
                            .put("sql", hostile.sql()).toString());
                    softly.assertThat(asJson.status()).as("status of %s as JSON", hostile.sql())
                            .isEqualTo(hostile.status());
                }
            });

            assertThat(WarehouseSnapshot.of(warehouse.get())).isEqualTo(before);

            for (String query : LEGITIMATE) {
                TestServer.Response response = sql(api, query);
                assertThat(response.status()).as("%s answered %s", query, response.body()).isEqualTo(200);
            }
            assertThat(sql(api, "SELECT count(*) FROM streams.orders").body().get("rows").get(0).get(0).asLong())
                    .isEqualTo(2);
            assertThat(WarehouseSnapshot.of(warehouse.get())).isEqualTo(before);

            // The flusher's connections were never lent to a query: a flush still lands exactly.
            api.postJson("/streams/orders", "[{\"order_id\":\"o3\"},{\"order_id\":\"o4\"}]");
            JsonNode stream = api.awaitFlushed("orders");
            assertThat(stream.get("watermark").asLong()).isEqualTo(4);
            JsonNode counts = sql(api, "SELECT count(*), max(_offset), (SELECT watermark FROM streams._watermarks"
                    + " WHERE stream = 'orders') FROM streams.orders").body().get("rows").get(0);
            assertThat(counts.toString()).isEqualTo("[4,4,4]");
        }
    }

    @Test
    void theOracleSeesAChangeMadeBehindTheServersBack() throws Exception {
        CapturedWarehouse warehouse = new CapturedWarehouse();
        try (TestServer api = TestServer.startWith(dataDirectory, TestServer.CATALOG, List.of(warehouse))) {
            api.postJson("/streams/orders", "[{\"order_id\":\"o1\"},{\"order_id\":\"o2\"}]");
            settle(api);
            WarehouseSnapshot before = WarehouseSnapshot.of(warehouse.get());
            assertThat(WarehouseSnapshot.of(warehouse.get())).isEqualTo(before);
            try (Connection c = warehouse.get().connect(); Statement statement = c.createStatement()) {
                statement.execute("UPDATE streams.orders SET order_id = 'changed' WHERE _offset = 1");
            }
            WarehouseSnapshot updated = WarehouseSnapshot.of(warehouse.get());
            assertThat(updated).isNotEqualTo(before);
            try (Connection c = warehouse.get().connect(); Statement statement = c.createStatement()) {
                statement.execute("ATTACH ':memory:' AS extra");
            }
            assertThat(WarehouseSnapshot.of(warehouse.get())).isNotEqualTo(updated);
        }
    }

    @Test
    void theConfigurationIsLockedOnceTheWarehouseIsOpen() throws Exception {
        CapturedWarehouse warehouse = new CapturedWarehouse();
        try (TestServer api = TestServer.startWith(dataDirectory, TestServer.CATALOG, List.of(warehouse))) {
            settle(api);
            WarehouseSnapshot before = WarehouseSnapshot.of(warehouse.get());
            for (String change : List.of("SET GLOBAL memory_limit = '1GB'", "SET threads = 1",
                    "SET enable_external_access = true", "SET lock_configuration = false")) {
                try (Connection c = warehouse.get().connect(); Statement statement = c.createStatement()) {
                    org.assertj.core.api.Assertions.assertThatThrownBy(() -> statement.execute(change))
                            .hasMessageContaining("the configuration has been locked");
                }
            }
            assertThat(WarehouseSnapshot.of(warehouse.get())).isEqualTo(before);
            assertThat(before.facts().get("setting enable_external_access")).endsWith("false");
            assertThat(before.facts().get("setting lock_configuration")).endsWith("true");
            JsonNode threads = sql(api, "SELECT current_setting('threads')::BIGINT").body().get("rows").get(0).get(0);
            assertThat(threads.asLong()).isBetween(1L, (long) Runtime.getRuntime().availableProcessors());
        }
    }

    @Test
    void aJsonValueNoPlainNumberCanHoldIsAnsweredAsWritten() throws Exception {
        try (TestServer api = TestServer.start(dataDirectory)) {
            String query = "SELECT '1e999999'::JSON AS big, '{\"a\":[1,2.50,1e-400]}'::JSON AS nested,"
                    + " 12345678901234567890.123456789::DECIMAL(38,9) AS exact";
            TestServer.Response response = sql(api, query);
            assertThat(response.status()).isEqualTo(200);
            JsonNode row = response.body().get("rows").get(0);
            assertThat(row.get(0).decimalValue()).isEqualByComparingTo(new java.math.BigDecimal("1e999999"));
            assertThat(row.get(1).get("a").get(1).toString()).isEqualTo("2.50");
            assertThat(row.get(1).get("a").get(2).decimalValue())
                    .isEqualByComparingTo(new java.math.BigDecimal("1e-400"));
            assertThat(row.get(2).toString()).isEqualTo("12345678901234567890.123456789");
            HttpResponse<String> ndjson = api.client.send(api.request("/sql").header("Accept", "application/x-ndjson")
                    .POST(HttpRequest.BodyPublishers.ofString(query)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(ndjson.statusCode()).isEqualTo(200);
            assertThat(ndjson.body()).startsWith("{\"big\":1E+999999,").endsWith("\n").hasLineCount(1);
        }
    }

    @Test
    void aJsonValueJacksonCannotReadIsAnsweredAsAString() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            String deep = "[".repeat(2000) + "]".repeat(2000);
            String longNumber = "1" + "0".repeat(5000);
            TestServer.Response response = sql(api, "SELECT '" + deep + "'::JSON, '" + longNumber + "'::JSON");
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body().get("rows").get(0).get(0).asText()).isEqualTo(deep);
            assertThat(response.body().get("rows").get(0).get(1).asText()).isEqualTo(longNumber);
        }
    }

    @Test
    void blobsAreAnsweredAsBase64InJsonCsvAndNdjson() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            String query = "SELECT '\\xAA\\x00hi'::BLOB AS b, NULL::BLOB AS n";
            TestServer.Response json = sql(api, query);
            assertThat(json.status()).as("%s", json.body()).isEqualTo(200);
            assertThat(json.body().get("columns").get(0).get("type").asText()).isEqualTo("BLOB");
            assertThat(json.body().get("rows").get(0).get(0).asText()).isEqualTo("qgBoaQ==");
            assertThat(json.body().get("rows").get(0).get(1).isNull()).isTrue();
            TestServer.Response csv = api.send(api.request("/sql").header("Accept", "text/csv")
                    .POST(HttpRequest.BodyPublishers.ofString(query)).build());
            assertThat(csv.body().asText()).isEqualTo("b,n\r\nqgBoaQ==,\r\n");
            TestServer.Response ndjson = api.send(api.request("/sql").header("Accept", "application/x-ndjson")
                    .POST(HttpRequest.BodyPublishers.ofString(query)).build());
            assertThat(ndjson.body().asText()).isEqualTo("{\"b\":\"qgBoaQ==\",\"n\":null}\n");
        }
    }

    @Test
    void anAnswerStopsAtItsByteBoundAndSaysItWasTruncated() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            long bound = QueryLimits.DEFAULTS.maxAnswerBytes();
            TestServer.Response response = sql(api, "SELECT repeat('x', 1000000) AS wide FROM range(100)");
            assertThat(response.status()).isEqualTo(200);
            JsonNode body = response.body();
            assertThat(body.get("truncated").asBoolean()).isTrue();
            assertThat(body.get("count").asLong()).isPositive().isLessThan(100);
            assertThat(body.get("count").asLong() * 1_000_000L).isLessThanOrEqualTo(bound);
        }
    }

    @Test
    void csvAndNdjsonAnswersThatWereCutSaySo() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            String tooMany = "SELECT i FROM range(" + (QueryLimits.DEFAULTS.maxRows() + 5) + ") t(i)";
            TestServer.Response csv = api.send(api.request("/sql").header("Accept", "text/csv")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(tooMany)).build());
            assertThat(csv.status()).isEqualTo(200);
            assertThat(csv.header("Interlace-Truncated")).isEqualTo("true");
            assertThat(csv.header("Interlace-Rows")).isEqualTo(Integer.toString(QueryLimits.DEFAULTS.maxRows()));

            TestServer.Response ndjson = api.send(api.request("/sql").header("Accept", "application/x-ndjson")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(tooMany)).build());
            assertThat(ndjson.header("Interlace-Truncated")).isEqualTo("true");
            String[] lines = ndjson.body().asText().split("\n");
            assertThat(lines).hasSize(QueryLimits.DEFAULTS.maxRows() + 1);
            assertThat(lines[lines.length - 1]).contains("\"_interlace\"").contains("\"truncated\":true")
                    .contains("\"rows\":" + QueryLimits.DEFAULTS.maxRows());

            TestServer.Response whole = api.send(api.request("/sql").header("Accept", "application/x-ndjson")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("SELECT i FROM range(3) t(i)")).build());
            assertThat(whole.header("Interlace-Truncated")).isEqualTo("false");
            assertThat(whole.body().asText().split("\n")).hasSize(3).noneMatch(line -> line.contains("_interlace"));
        }
    }

    @Test
    void aQueryPastItsTimeLimitIs408AndTheNextOneAnswers() {
        Module shortTimeout = limits(QueryLimits.DEFAULTS.withTimeout(Duration.ofMillis(300)));
        try (TestServer api = TestServer.startWith(dataDirectory, TestServer.CATALOG, List.of(shortTimeout))) {
            TestServer.Response response = sql(api, "SELECT count(*) FROM range(10000000000000)");
            assertError(response, 408, ErrorCode.QUERY_TIMEOUT);
            api.postJson("/streams/orders", "{\"order_id\":\"o1\"}");
            assertThat(api.awaitFlushed("orders").get("watermark").asLong()).isEqualTo(1);
            assertThat(sql(api, "SELECT count(*) FROM streams.orders").body().get("rows").get(0).get(0).asLong())
                    .isEqualTo(1);
        }
    }

    @Test
    void aBoundedStringDistanceAnswersUnderItsOwnNameAndAnUnboundedOneIsRefusedAtOnce() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            TestServer.Response small = sql(api, "SELECT levenshtein('kitten', 'sitting')");
            assertThat(small.status()).as("%s", small.body()).isEqualTo(200);
            assertThat(small.body().get("columns").get(0).get("name").asText())
                    .isEqualTo("levenshtein('kitten', 'sitting')");
            assertThat(small.body().get("rows").get(0).get(0).asInt()).isEqualTo(3);

            // Tens of seconds per row inside one vector, where DuckDB cannot cancel: refused before it runs long.
            long started = System.nanoTime();
            TestServer.Response huge = sql(api, WORST_LEVENSHTEIN);
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertThat(huge.status()).as("%s", huge.body()).isEqualTo(400);
            assertThat(huge.body().get("error").asText()).isEqualTo("query_failed");
            assertThat(huge.body().get("message").asText()).contains("levenshtein of texts of 45001 and 45000");
            assertThat(tookMillis).as("answered well within the 30 s limit").isLessThan(30_000);
        }
    }

    /** The worst of the corpus that outlived the 30 s limit by half a minute. */
    private static final String WORST_LEVENSHTEIN = "SELECT max(levenshtein(repeat('a',45000)||i::VARCHAR,"
            + " repeat('b',45000))) FROM range(16) t(i)";

    @Test
    void noQueryOutlivesItsDeadlineByMoreThanTwoSecondsAndPublishesAndHealthAnswerMeanwhile() throws Exception {
        long limitMillis = 2_000;
        try (TestServer api = TestServer.start(dataDirectory, "--sql-timeout-ms", Long.toString(limitMillis))) {
            // Each vector of 2 048 rows of bounded distances takes about a second, and there are 20 of them.
            String slow = "SELECT max(levenshtein(repeat('a', 499) || i::VARCHAR, repeat('b', 499)))"
                    + " FROM range(40960) t(i)";
            List<CompletableFuture<long[]>> queries = new java.util.ArrayList<>();
            for (String query : List.of(slow, WORST_LEVENSHTEIN, slow, WORST_LEVENSHTEIN)) {
                queries.add(CompletableFuture.supplyAsync(() -> {
                    long started = System.nanoTime();
                    int status = sql(api, query).status();
                    return new long[] {status, (System.nanoTime() - started) / 1_000_000};
                }));
            }
            int published = 0;
            while (!CompletableFuture.allOf(queries.toArray(CompletableFuture[]::new)).isDone()) {
                assertThat(api.get("/health/live").status()).isEqualTo(200);
                TestServer.Response publish = api.postJson("/streams/orders", "{\"order_id\":\"o" + published
                        + "\"}");
                assertThat(publish.status()).as("%s", publish.body()).isEqualTo(200);
                published++;
            }
            for (CompletableFuture<long[]> query : queries) {
                long[] answer = query.join();
                assertThat(answer[0]).as("status").isIn(408L, 400L);
                assertThat(answer[1]).as("answered within the limit and two seconds").isLessThan(limitMillis + 2_000);
            }
            assertThat(published).as("publishes answered while the queries ran").isPositive();
            assertThat(api.awaitFlushed("orders").get("watermark").asLong()).isEqualTo(published);
        }
    }

    @Test
    void moreQueriesThanTheBoundAreRefusedAsBusy() {
        QueryLimits one = new QueryLimits(10_000, 1 << 20, Duration.ofSeconds(5), 1);
        try (TestServer api = TestServer.startWith(dataDirectory, TestServer.CATALOG, List.of(limits(one)))) {
            String endless = "SELECT count(*) FROM range(10000000000000)";
            CompletableFuture<TestServer.Response> slow = CompletableFuture.supplyAsync(() -> sql(api, endless));
            TestServer.Response busy = null;
            while (busy == null) {
                if (slow.isDone()) {
                    // It lost the only slot to one of the quick queries below; try again.
                    assertThat(slow.join().status()).isEqualTo(503);
                    slow = CompletableFuture.supplyAsync(() -> sql(api, endless));
                }
                TestServer.Response response = sql(api, "SELECT 1");
                if (response.status() == 503) {
                    busy = response;
                }
            }
            assertThat(busy).as("a query while the only slot was taken").isNotNull();
            assertThat(busy.body().get("error").asText()).isEqualTo("busy");
            assertThat(busy.header("Retry-After")).isEqualTo("1");
            assertThat(slow.join().status()).isEqualTo(408);
            assertThat(sql(api, "SELECT 1").status()).isEqualTo(200);
        }
    }

    /** Waits until everything is flushed and no model run is queued or running (models start with the server). */
    private static void settle(TestServer api) {
        assertThat(api.server.instance(Flusher.class).drain(Duration.ofSeconds(20))).isTrue();
        assertThat(api.server.models().orElseThrow().awaitIdle(Duration.ofSeconds(20))).isTrue();
    }

    private static Module limits(QueryLimits limits) {
        return new AbstractModule() {
            @Override
            protected void configure() {
                bind(QueryLimits.class).toInstance(limits);
            }
        };
    }

    private static TestServer.Response sql(TestServer api, String query) {
        return api.post("/sql", "text/plain", query);
    }
}
