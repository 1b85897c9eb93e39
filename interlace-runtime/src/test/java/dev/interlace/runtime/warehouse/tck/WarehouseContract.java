package dev.interlace.runtime.warehouse.tck;

import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.warehouse.Warehouse;
import java.nio.file.Path;
import org.junit.jupiter.api.Nested;

/**
 * The conformance suite (TCK) every {@link Warehouse} must pass (docs/architecture.md#seams-and-conformance-suites):
 * the suites of its five concerns, run as nested classes against the warehouses {@link #openWarehouse} returns.
 *
 * <ul>
 *   <li>{@link StreamTablesContract} ({@link dev.interlace.runtime.warehouse.StreamTables}): creating and migrating
 *       stream tables; rows, watermark and flush record in one transaction; fencing by watermark and token; the
 *       quarantine as a separate target; evolving streams.
 *   <li>{@link FlushRecordsContract} ({@link dev.interlace.runtime.warehouse.FlushRecords}): failed attempts, pages
 *       oldest first with totals, range overlap, trimming.
 *   <li>{@link QueriesContract} ({@link dev.interlace.runtime.warehouse.Queries}): read-only queries and their
 *       refusals, row and byte caps, timeouts, the parser on joins, CTEs and subqueries.
 *   <li>{@link ModelStoreContract} ({@link dev.interlace.runtime.warehouse.ModelStore}): view, table, incremental and
 *       Java models, watermarks committed with the output, staleness, failures that commit nothing.
 *   <li>{@link RunHistoryContract} ({@link dev.interlace.runtime.warehouse.RunHistory}): started and finished runs,
 *       filters and totals, interrupted runs marked failed.
 * </ul>
 *
 * <p>Every suite goes through the interfaces only, and reads what was written back with {@link Warehouse#query} (the
 * SQL it uses is plain: {@code SELECT}, {@code count(*)}, {@code information_schema}). The whole TCK runs in well under
 * a minute on two cores.
 *
 * <h2>Running it against a backend</h2>
 *
 * <p>The suite ships in the runtime's test jar. A backend module adds
 *
 * <pre>{@code
 * <dependency>
 *   <groupId>dev.interlace</groupId>
 *   <artifactId>interlace-runtime</artifactId>
 *   <version>${project.version}</version>
 *   <type>test-jar</type>
 *   <scope>test</scope>
 * </dependency>
 * }</pre>
 *
 * <p>plus test-scoped {@code junit-jupiter} and {@code assertj-core}, and extends this class:
 *
 * <pre>{@code
 * class PostgresWarehouseContractTest extends WarehouseContract {
 *     @Override
 *     protected Warehouse openWarehouse(Path dataDirectory, FlushListener listener) {
 *         return new PostgresWarehouseFactory().open(dataDirectory, listener);
 *     }
 * }
 * }</pre>
 *
 * <p>{@code DuckDbWarehouseContractTest} in {@code interlace-warehouse-duckdb} is the reference.
 *
 * <h2>What {@link #openWarehouse} must do</h2>
 *
 * <ul>
 *   <li>Return an open warehouse, as its {@link dev.interlace.runtime.warehouse.WarehouseFactory} would. A directory
 *       the suite has not used before must give an <em>empty</em> warehouse; a backend that does not store files
 *       should derive an isolated namespace (a database) from it.
 *   <li>Opening the <em>same</em> directory again after the previous warehouse was closed must give back the same
 *       durable state: the tests that call {@code reopen} close a warehouse and open it again.
 *   <li>Call {@code listener} at the steps {@link FlushListener} names, inside the append's transaction: the suite
 *       throws from {@code afterWatermarkUpdate} and {@code beforeCommit} to check that a failed append commits
 *       nothing.
 * </ul>
 */
public abstract class WarehouseContract {

    /** Opens (creating if needed) the warehouse kept under {@code dataDirectory}; see the class comment. */
    protected abstract Warehouse openWarehouse(Path dataDirectory, FlushListener listener);

    /** The {@link StreamTablesContract} against this backend. */
    @Nested
    class StreamTablesSuite extends StreamTablesContract {
        @Override
        protected Warehouse openWarehouse(Path dataDirectory, FlushListener listener) {
            return WarehouseContract.this.openWarehouse(dataDirectory, listener);
        }
    }

    /** The {@link FlushRecordsContract} against this backend. */
    @Nested
    class FlushRecordsSuite extends FlushRecordsContract {
        @Override
        protected Warehouse openWarehouse(Path dataDirectory, FlushListener listener) {
            return WarehouseContract.this.openWarehouse(dataDirectory, listener);
        }
    }

    /** The {@link QueriesContract} against this backend. */
    @Nested
    class QueriesSuite extends QueriesContract {
        @Override
        protected Warehouse openWarehouse(Path dataDirectory, FlushListener listener) {
            return WarehouseContract.this.openWarehouse(dataDirectory, listener);
        }

        @Override
        protected String slowQuery() {
            return WarehouseContract.this.slowQuery();
        }
    }

    /** The {@link ModelStoreContract} against this backend. */
    @Nested
    class ModelStoreSuite extends ModelStoreContract {
        @Override
        protected Warehouse openWarehouse(Path dataDirectory, FlushListener listener) {
            return WarehouseContract.this.openWarehouse(dataDirectory, listener);
        }
    }

    /** The {@link RunHistoryContract} against this backend. */
    @Nested
    class RunHistorySuite extends RunHistoryContract {
        @Override
        protected Warehouse openWarehouse(Path dataDirectory, FlushListener listener) {
            return WarehouseContract.this.openWarehouse(dataDirectory, listener);
        }
    }

    /**
     * A query that runs far longer than a fraction of a second, for the timeout test; by default a standard recursive
     * CTE counting to a trillion. A backend whose engine would answer that quickly overrides it.
     */
    protected String slowQuery() {
        return QueriesContract.SLOW_QUERY;
    }
}
