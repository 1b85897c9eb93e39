package dev.interlace.warehouse.duckdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.sql.QueryException;
import dev.interlace.runtime.sql.QueryException.Reason;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.duckdb.DuckDBDriver;
import org.junit.jupiter.api.Test;

/**
 * Every table function of the DuckDB the warehouse runs on has been looked at: each is either refused on
 * {@code POST /sql} or known to read nothing but what a query may see (or files, which the warehouse's
 * {@code enable_external_access = false} refuses). A DuckDB upgrade that brings a new table function fails here until
 * someone has decided about it: DuckDB 2.0's {@code destroy_external_resource} runs any function named by its first
 * argument ({@code checkpoint}, {@code query}), which the list of refused names did not know.
 */
class QueryClassifierTest {

    /** Table functions that only read the catalog, the connection's own state, or values they are given. */
    private static final Set<String> READING = Set.of("duckdb_approx_database_count", "duckdb_available_metrics",
            "duckdb_columns", "duckdb_connection_count", "duckdb_constraints", "duckdb_coordinate_systems",
            "duckdb_dependencies", "duckdb_dialects", "duckdb_eviction_queues", "duckdb_functions",
            "duckdb_grammar_extensions", "duckdb_indexes", "duckdb_keywords", "duckdb_memory", "duckdb_optimizers",
            "duckdb_prepared_statements", "duckdb_schemas", "duckdb_sequences", "duckdb_table_sample",
            "duckdb_tables", "duckdb_triggers", "duckdb_types", "duckdb_variables", "duckdb_views", "generate_series",
            "histogram", "histogram_values", "icu_calendar_names", "json_each", "json_tree", "pg_timezone_names",
            "pragma_collations", "pragma_database_size", "pragma_metadata_info", "pragma_platform", "pragma_show",
            "pragma_storage_info", "pragma_table_info", "pragma_user_agent", "pragma_version", "range", "repeat",
            "repeat_row", "seq_scan", "summary", "test_all_types", "test_vector_types", "unnest");

    /** Table functions that read files: the database refuses them ({@code enable_external_access = false}). */
    private static final Set<String> FILES = Set.of("glob", "parquet_bloom_probe", "parquet_file_metadata",
            "parquet_full_metadata", "parquet_kv_metadata", "parquet_metadata", "parquet_scan", "parquet_schema",
            "read_blob", "read_csv", "read_csv_auto", "read_duckdb", "read_json", "read_json_auto",
            "read_json_objects", "read_json_objects_auto", "read_ndjson", "read_ndjson_auto", "read_ndjson_objects",
            "read_parquet", "read_single_csv_file", "read_single_json_file", "read_single_parquet_file", "read_text", "sniff_csv");

    @Test
    void everyTableFunctionOfThisDuckDbIsEitherRefusedOrKnownToReadOnly() throws Exception {
        List<String> undecided = new ArrayList<>();
        List<String> refusedButListed = new ArrayList<>();
        try (Connection c = new DuckDBDriver().connect("jdbc:duckdb:", new Properties());
                Statement statement = c.createStatement();
                ResultSet functions = statement.executeQuery("SELECT DISTINCT function_name FROM duckdb_functions()"
                        + " WHERE function_type IN ('table', 'table_macro') ORDER BY 1")) {
            while (functions.next()) {
                String name = functions.getString(1);
                boolean refused = refused(c, "SELECT * FROM " + name + "()");
                boolean known = READING.contains(name) || FILES.contains(name);
                if (!refused && !known) {
                    undecided.add(name);
                }
                if (refused && known) {
                    refusedButListed.add(name);
                }
            }
        }
        assertThat(undecided).as("table functions neither refused nor known to only read: decide about each")
                .isEmpty();
        assertThat(refusedButListed).as("refused, yet listed here as reading").isEmpty();
    }

    @Test
    void aFunctionThatCallsAnotherByNameIsRefusedWhereverItIsCalled() throws Exception {
        try (Connection c = new DuckDBDriver().connect("jdbc:duckdb:", new Properties())) {
            for (String sql : List.of("SELECT * FROM destroy_external_resource('checkpoint', 'memory')",
                    "SELECT 1 FROM range(3), LATERAL destroy_external_resource('query', 'SELECT 1')",
                    "WITH x AS (FROM DESTROY_EXTERNAL_RESOURCE('checkpoint', 'memory')) SELECT 1",
                    "SELECT (SELECT count(*) FROM create_external_resource('t', MAP {}, 'r', 1, false, 1, 1))",
                    "SELECT write_log('forged')", "SELECT setval('s', 1)")) {
                assertThat(refused(c, sql)).as(sql).isTrue();
            }
            assertThat(refused(c, "SELECT * FROM range(3), unnest([1, 2]) u(x)")).isFalse();
        }
    }

    private static boolean refused(Connection c, String sql) {
        try {
            QueryClassifier.requireOneQuery(c, sql);
            return false;
        } catch (QueryException e) {
            assertThat(e.reason()).as("%s: %s", sql, e.getMessage()).isEqualTo(Reason.NOT_READ_ONLY);
            return true;
        }
    }
}
