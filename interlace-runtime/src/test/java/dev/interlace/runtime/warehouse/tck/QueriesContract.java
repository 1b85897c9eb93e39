package dev.interlace.runtime.warehouse.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.interlace.runtime.sql.QueryException;
import dev.interlace.runtime.sql.QueryException.Reason;
import dev.interlace.runtime.sql.QueryLimits;
import dev.interlace.runtime.sql.QueryResult;
import dev.interlace.runtime.warehouse.Queries;
import dev.interlace.runtime.warehouse.Queries.TableReference;
import dev.interlace.runtime.warehouse.Warehouse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite of {@link Queries}: read-only queries and the database's parser applied to model SQL.
 *
 * <p>It specifies that a query answers its columns and rows; that no text can change the warehouse (a write, DDL or
 * several statements are refused with {@link Reason#NOT_READ_ONLY} or {@link Reason#INVALID_SQL} and nothing changed);
 * that a failing query is {@link Reason#FAILED}; that answers are cut at the row and byte limits and say
 * {@code truncated}; that rows are granted by the caller's allowance before they are kept, a refusal ending the query
 * ({@link Reason#OVERLOADED}); that a query past its timeout is cancelled ({@link Reason#TIMED_OUT}) and the warehouse keeps
 * answering; and that {@code tablesReadBy} and {@code replaceTables} see through joins, CTEs and subqueries.
 *
 * <p>Run it through {@link WarehouseContract}, which a backend extends; it is abstract so that it runs only there.
 */
public abstract class QueriesContract extends WarehouseContractSupport {

    /** Standard SQL that runs far longer than the timeout test allows: a recursive CTE counting to a trillion. */
    public static final String SLOW_QUERY = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r"
            + " WHERE n < 1000000000000) SELECT count(*) FROM r";

    /** The query the timeout test cancels; {@link WarehouseContract#slowQuery()} passes the backend's choice. */
    protected String slowQuery() {
        return SLOW_QUERY;
    }

    @Test
    void aQueryAnswersItsColumnsAndRows() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 3));
        QueryResult result = warehouse.query("SELECT id, n FROM streams.orders WHERE n >= 2 ORDER BY n", 10,
                QUERY_TIMEOUT);
        assertThat(result.columns()).extracting(QueryResult.ResultColumn::name).containsExactly("id", "n");
        assertThat(result.rows()).containsExactly(List.of("o2", 2L), List.of("o3", 3L));
        assertThat(result.truncated()).isFalse();
    }

    @Test
    void statementsThatWriteAreRefusedAndChangeNothing() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 3));
        for (String write : List.of(
                "INSERT INTO streams.orders (id, n, _offset, _ingested_at, _request_id)"
                        + " SELECT id, n, _offset + 100, _ingested_at, _request_id FROM streams.orders",
                "UPDATE streams.orders SET n = 0",
                "DELETE FROM streams.orders",
                "DROP TABLE streams.orders",
                "CREATE TABLE streams.copy AS SELECT * FROM streams.orders",
                "ALTER TABLE streams.orders ADD COLUMN sneaky VARCHAR")) {
            QueryException refused = catchThrowableOfType(QueryException.class,
                    () -> warehouse.query(write, 10, QUERY_TIMEOUT));
            assertThat(refused).as(write).isNotNull();
            assertThat(refused.reason()).as(write).isEqualTo(Reason.NOT_READ_ONLY);
        }
        for (String several : List.of("SELECT 1; DELETE FROM streams.orders", "SELECT 1; SELECT 2",
                "SELEKT id FROM streams.orders")) {
            QueryException refused = catchThrowableOfType(QueryException.class,
                    () -> warehouse.query(several, 10, QUERY_TIMEOUT));
            assertThat(refused).as(several).isNotNull();
            assertThat(refused.reason()).as(several).isEqualTo(Reason.INVALID_SQL);
        }
        assertThat(select(warehouse, "SELECT id, n FROM streams.orders ORDER BY _offset")).as("nothing changed")
                .containsExactly(List.of("o1", 1L), List.of("o2", 2L), List.of("o3", 3L));
        assertThat(select(warehouse, "SELECT count(*) FROM information_schema.columns"
                + " WHERE table_schema = 'streams' AND column_name = 'sneaky'")).containsExactly(List.of(0L));
        assertThat(select(warehouse, "SELECT count(*) FROM information_schema.tables"
                + " WHERE table_schema = 'streams' AND table_name = 'copy'")).containsExactly(List.of(0L));
    }

    @Test
    void aQueryTheDatabaseRefusesFailsWithItsMessage() {
        Warehouse warehouse = open();
        QueryException failed = catchThrowableOfType(QueryException.class,
                () -> warehouse.query("SELECT * FROM streams.no_such_table", 10, QUERY_TIMEOUT));
        assertThat(failed).isNotNull();
        assertThat(failed.reason()).isEqualTo(Reason.FAILED);
        assertThat(failed.getMessage()).contains("no_such_table");
    }

    @Test
    void answersAreCutAtTheRowLimitAndSaySo() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 25));
        String sql = "SELECT n FROM streams.orders ORDER BY n";
        QueryResult cut = warehouse.query(sql, 10, QUERY_TIMEOUT);
        assertThat(cut.rows()).hasSize(10).first().isEqualTo(List.of(1L));
        assertThat(cut.truncated()).isTrue();
        QueryResult exact = warehouse.query(sql, 25, QUERY_TIMEOUT);
        assertThat(exact.rows()).hasSize(25);
        assertThat(exact.truncated()).as("exactly the limit is not cut").isFalse();
    }

    @Test
    void answersAreCutAtTheByteLimitAndSaySo() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 100));
        QueryResult cut = warehouse.query("SELECT repeat('x', 1000) AS wide FROM streams.orders",
                new QueryLimits(1_000, 10_000, QUERY_TIMEOUT, 1));
        assertThat(cut.truncated()).isTrue();
        assertThat(cut.rows()).hasSizeLessThan(100);
        assertThat(cut.rows().size() * 1_000L).as("about the byte limit").isLessThanOrEqualTo(10_000);
    }

    @Test
    void rowsAreGrantedBeforeTheyAreKeptAndARefusalEndsTheQueryAsOverloaded() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 100));
        String wide = "SELECT repeat('x', 10000) AS wide FROM streams.orders";
        QueryLimits limits = new QueryLimits(1_000, 16L << 20, QUERY_TIMEOUT, 1);
        AtomicLong asked = new AtomicLong();

        QueryResult whole = warehouse.query(wide, limits, bytes -> asked.addAndGet(bytes) > 0);
        assertThat(whole.rows()).hasSize(100);
        assertThat(asked.get()).as("every kept byte was asked for").isGreaterThanOrEqualTo(100 * 10_000L);

        AtomicLong granted = new AtomicLong();
        QueryException refused = catchThrowableOfType(QueryException.class, () -> warehouse.query(wide, limits,
                bytes -> {
                    if (granted.get() + bytes > 200_000) {
                        return false;
                    }
                    granted.addAndGet(bytes);
                    return true;
                }));
        assertThat(refused).isNotNull();
        assertThat(refused.reason()).isEqualTo(Reason.OVERLOADED);
        assertThat(granted.get()).as("nothing past the refusal was granted").isLessThanOrEqualTo(200_000);
        assertThat(warehouse.query("SELECT 1::BIGINT AS one", 10, QUERY_TIMEOUT).rows()).containsExactly(List.of(1L));
    }

    @Test
    void aQueryPastItsTimeoutIsCancelledAndTheWarehouseKeepsAnswering() {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 3));
        QueryException timedOut = catchThrowableOfType(QueryException.class,
                () -> warehouse.query(slowQuery(), 10, Duration.ofMillis(200)));
        assertThat(timedOut).isNotNull();
        assertThat(timedOut.reason()).isEqualTo(Reason.TIMED_OUT);
        assertThat(timedOut.timedOut()).isTrue();
        assertThat(count(warehouse, "orders")).isEqualTo(3);
    }

    // ================================================================== the parser

    @Test
    void tablesReadByFindsTablesInJoinsCtesAndSubqueriesButNotCteNames() {
        Warehouse warehouse = open();
        assertThat(warehouse.tablesReadBy("SELECT * FROM streams.orders")).containsExactly(
                new TableReference("streams", "orders"));
        assertThat(warehouse.tablesReadBy("WITH recent AS (SELECT * FROM streams.clicks)"
                + " SELECT * FROM recent r JOIN analytics.daily d ON r.url = d.url"
                + " WHERE r.url IN (SELECT url FROM streams.pages)"
                + " AND EXISTS (SELECT 1 FROM (SELECT * FROM streams.orders) o)"))
                .containsExactlyInAnyOrder(new TableReference("streams", "clicks"),
                        new TableReference("analytics", "daily"), new TableReference("streams", "pages"),
                        new TableReference("streams", "orders"));
        assertThat(warehouse.tablesReadBy("SELECT * FROM daily, daily AS again")).as("unqualified, once")
                .containsExactly(new TableReference("", "daily"));
        assertThat(new TableReference("", "daily").qualified()).isEqualTo("daily");
    }

    @Test
    void tablesReadByRefusesTextThatIsNotOneSelect() {
        Warehouse warehouse = open();
        assertThatThrownBy(() -> warehouse.tablesReadBy("SELEKT * FROM streams.orders"))
                .isInstanceOf(QueryException.class);
        assertThatThrownBy(() -> warehouse.tablesReadBy("SELECT 1; SELECT 2")).isInstanceOf(QueryException.class);
    }

    @Test
    void replaceTablesReadsTheNamedTablesFromOtherRelations() throws SQLException {
        Warehouse warehouse = open();
        fill(warehouse, ORDERS, orders(1, 5));
        try (Connection connection = warehouse.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE VIEW main.late_orders AS SELECT * FROM streams.orders WHERE n > 3");
        }
        String select = "WITH big AS (SELECT orders.id, orders.n FROM streams.orders WHERE orders.n > 1)"
                + " SELECT count(*) FROM big WHERE big.n IN (SELECT n FROM streams.orders)";
        String rewritten = warehouse.replaceTables(select, Map.of("streams.orders", "late_orders"));

        assertThat(warehouse.tablesReadBy(rewritten)).containsExactly(new TableReference("", "late_orders"));
        assertThat(select(warehouse, select)).as("the original").containsExactly(List.of(4L));
        assertThat(select(warehouse, rewritten)).as("columns qualified by the old name still resolve")
                .containsExactly(List.of(2L));
        assertThat(warehouse.replaceTables("SELECT * FROM streams.clicks", Map.of("streams.orders", "late_orders")))
                .as("other tables are left alone").satisfies(text -> assertThat(warehouse.tablesReadBy(text))
                        .containsExactly(new TableReference("streams", "clicks")));
    }
}
