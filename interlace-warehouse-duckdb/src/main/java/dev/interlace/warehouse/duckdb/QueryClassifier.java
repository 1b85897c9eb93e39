package dev.interlace.warehouse.duckdb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.runtime.sql.QueryException;
import dev.interlace.runtime.sql.QueryException.Reason;
import dev.interlace.runtime.sql.StatementText;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Decides with DuckDB's own parser whether text is exactly one query, so that no difference between a hand-written
 * lexer and DuckDB's (a {@code --} comment ended by {@code \r}, an {@code E'\''} string) can let a write through.
 *
 * <p>{@code json_serialize_sql} parses the text (as a value: nothing runs) and serialises it only when every
 * statement is a SELECT; DuckDB rewrites {@code DESCRIBE}, {@code SHOW}, {@code SUMMARIZE}, {@code VALUES} and
 * {@code FROM}-first queries into SELECTs, so they pass too. A SELECT can still hold a statement that writes
 * ({@code WITH d AS (DELETE … RETURNING *) SELECT …}): every query node of the tree must be a SELECT, a set
 * operation or a CTE. {@code EXPLAIN} is not serialised; a plain {@code EXPLAIN} is allowed when the text after the
 * keyword is itself one query by the same rules ({@code EXPLAIN ANALYZE} runs its statement and is refused).
 */
final class QueryClassifier {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Query node types that only read; anything else in a tree ({@code DELETE_QUERY_NODE}, …) is refused. */
    private static final Set<String> READING_NODES = Set.of("SELECT_NODE", "SET_OPERATION_NODE",
            "RECURSIVE_CTE_NODE", "CTE_NODE");
    private static final Pattern EXPLAIN = Pattern.compile("\\A[ \\t\\r\\n]*EXPLAIN[ \\t\\r\\n]+",
            Pattern.CASE_INSENSITIVE);
    private static final String ALLOWED = "SELECT, WITH, VALUES, FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN";
    private static final String EFFECT = "it changes the database or the connection";
    private static final String OTHER_SQL = "it runs SQL that is not checked here";
    private static final String OTHER_FUNCTION = "it calls a function named by its arguments, past this check";
    private static final String HOST = "it shows the server's files, settings or secrets";
    private static final String MEMORY = "it reads the server's memory at addresses it is given";
    /**
     * Functions a query may not call, and why: the ones that act (a checkpoint rewrites the warehouse file), the ones
     * that run other SQL or functions past this check, and the ones that show the host (paths of the data directory,
     * settings, extensions, secrets, logs). Each is refused as a table function, as a scalar function and, for the
     * catalog views of the same name, as a table. QueryClassifierTest holds every table function of the DuckDB in
     * use to this list or to its list of functions that only read, so that an upgrade's new ones are decided about.
     */
    private static final Map<String, String> REFUSED_FUNCTIONS = Map.ofEntries(
            Map.entry("checkpoint", EFFECT), Map.entry("force_checkpoint", EFFECT),
            Map.entry("truncate_duckdb_logs", EFFECT), Map.entry("enable_logging", EFFECT),
            Map.entry("disable_logging", EFFECT), Map.entry("write_log", EFFECT),
            Map.entry("enable_profiling", EFFECT), Map.entry("disable_profiling", EFFECT),
            Map.entry("setseed", EFFECT), Map.entry("nextval", EFFECT), Map.entry("setval", EFFECT),
            Map.entry("set_variable", EFFECT), Map.entry("register_external_resource", EFFECT),
            Map.entry("deregister_external_resource", EFFECT),
            Map.entry("query", OTHER_SQL), Map.entry("query_table", OTHER_SQL),
            Map.entry("json_execute_serialized_sql", OTHER_SQL),
            Map.entry("create_external_resource", OTHER_FUNCTION),
            Map.entry("destroy_external_resource", OTHER_FUNCTION),
            Map.entry("register_external_resource_type", OTHER_FUNCTION),
            Map.entry("duckdb_settings", HOST), Map.entry("pg_settings", HOST),
            Map.entry("duckdb_profiling_settings", HOST),
            Map.entry("getenv", HOST), Map.entry("duckdb_databases", HOST), Map.entry("pragma_database_list", HOST),
            Map.entry("duckdb_extensions", HOST), Map.entry("duckdb_extension_repositories", HOST),
            Map.entry("duckdb_temporary_files", HOST), Map.entry("duckdb_external_file_cache", HOST),
            Map.entry("duckdb_external_resources", HOST), Map.entry("duckdb_external_resource_types", HOST),
            Map.entry("duckdb_secrets", HOST), Map.entry("which_secret", HOST), Map.entry("duckdb_logs", HOST),
            Map.entry("duckdb_logs_parsed", HOST), Map.entry("duckdb_log_contexts", HOST),
            Map.entry("duckdb_secret_types", HOST), Map.entry("duckdb_secret_type_parameters", HOST),
            Map.entry("arrow_scan", MEMORY), Map.entry("arrow_scan_dumb", MEMORY));
    /**
     * The settings {@code current_setting} may read, named by a constant: sizes, counts and modes. The others name
     * directories of the host (the data directory's temporary files, extensions, secrets) or credentials.
     */
    private static final Set<String> READABLE_SETTINGS = Set.of("memory_limit", "max_memory", "threads",
            "worker_threads", "timezone", "calendar", "checkpoint_threshold", "wal_autocheckpoint", "default_order",
            "default_null_order", "preserve_insertion_order", "enable_external_access", "lock_configuration",
            "access_mode", "max_temp_directory_size", "max_expression_depth", "errors_as_json");
    /** Schemas where DuckDB's catalog views live: a table of a refused name there is the view, not a user table. */
    private static final Set<String> CATALOG_SCHEMAS = Set.of("", "main", "pg_catalog", "information_schema");

    private QueryClassifier() {}

    /**
     * Returns when {@code sql} is exactly one query that calls no refused function.
     *
     * @return the query's parse tree as DuckDB serialises it; empty for an {@code EXPLAIN}, which runs nothing
     * @throws QueryException {@link Reason#INVALID_SQL} when it is not one statement DuckDB can parse,
     *     {@link Reason#NOT_READ_ONLY} when it is one statement but not a query, or calls a refused function
     */
    static Optional<JsonNode> requireOneQuery(Connection c, String sql) {
        Matcher explain = EXPLAIN.matcher(sql);
        if (explain.lookingAt()) {
            String explained = sql.substring(explain.end());
            if (StatementText.firstKeyword(explained).equals("ANALYZE")) {
                throw new QueryException(Reason.NOT_READ_ONLY, "EXPLAIN ANALYZE runs its statement; only a plain"
                        + " EXPLAIN of a query runs here", null);
            }
            requireOneQuery(c, explained, sql);
            return Optional.empty();
        }
        return Optional.of(requireOneQuery(c, sql, sql));
    }

    private static JsonNode requireOneQuery(Connection c, String sql, String original) {
        JsonNode tree = serialize(c, sql);
        if (tree.path("error").asBoolean()) {
            String message = tree.path("error_message").asText("the statement cannot be parsed");
            if (tree.path("error_type").asText().equals("parser")) {
                throw new QueryException(Reason.INVALID_SQL, message, null);
            }
            int statements = StatementText.statementCount(original);
            if (statements > 1) {
                throw new QueryException(Reason.INVALID_SQL, "send exactly one SQL statement (found " + statements
                        + ", separated by ;)", null);
            }
            String keyword = StatementText.firstKeyword(original);
            throw new QueryException(Reason.NOT_READ_ONLY, "only queries run here (" + ALLOWED + "); DuckDB's parser"
                    + " does not read this as one" + (keyword.isEmpty() ? "" : " (it starts with " + keyword + ")"),
                    null);
        }
        int statements = tree.path("statements").size();
        if (statements != 1) {
            throw new QueryException(Reason.INVALID_SQL, "send exactly one SQL statement (found "
                    + (statements == 0 ? "none" : statements + ", separated by ;") + ")", null);
        }
        Optional<String> writing = writingNode(tree.path("statements").get(0));
        if (writing.isPresent()) {
            throw new QueryException(Reason.NOT_READ_ONLY, "only queries run here; this one contains a statement"
                    + " that writes (" + writing.get() + ")", null);
        }
        Optional<String> refused = refusedFunction(tree.path("statements").get(0));
        if (refused.isPresent()) {
            throw new QueryException(Reason.NOT_READ_ONLY, refused.get() + " is not available here: "
                    + REFUSED_FUNCTIONS.getOrDefault(refused.get(), "of the settings, only these are readable, each"
                    + " named by a constant: " + new java.util.TreeSet<>(READABLE_SETTINGS)), null);
        }
        return tree;
    }

    /** Whether the arguments of a {@code current_setting} call are one constant naming a readable setting. */
    private static boolean readableSetting(JsonNode arguments) {
        JsonNode argument = arguments.path(0).path("expression");
        return arguments.size() == 1 && "VALUE_CONSTANT".equals(argument.path("type").asText())
                && READABLE_SETTINGS.contains(argument.path("literal").path("text").asText("")
                        .toLowerCase(Locale.ROOT));
    }

    /** The name of the first refused function called, or catalog view read, anywhere in the tree. */
    private static Optional<String> refusedFunction(JsonNode tree) {
        return firstInTree(tree, QueryClassifier::refusedFunctionAt);
    }

    /** The type of the first query node that is not a reading one, anywhere in the tree. */
    private static Optional<String> writingNode(JsonNode tree) {
        return firstInTree(tree, QueryClassifier::writingNodeAt);
    }

    /** What {@code test} finds first in the tree: at {@code node}, then in its children in order, depth first. */
    private static Optional<String> firstInTree(JsonNode node, Function<JsonNode, Optional<String>> test) {
        Optional<String> found = test.apply(node);
        if (found.isPresent() || !node.isContainerNode()) {
            return found;
        }
        for (JsonNode child : node) {
            found = firstInTree(child, test);
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    /** The refused function {@code node} calls, or the catalog view it reads (not looking into its children). */
    private static Optional<String> refusedFunctionAt(JsonNode node) {
        if (!node.isObject()) {
            return Optional.empty();
        }
        String name = null;
        if ("FUNCTION".equals(node.path("class").asText())) {
            name = node.path("function_name").asText("");
        } else if ("BASE_TABLE".equals(node.path("type").asText())
                && CATALOG_SCHEMAS.contains(node.path("schema_name").asText("").toLowerCase(Locale.ROOT))) {
            name = node.path("table_name").asText("");
        }
        if (name != null && REFUSED_FUNCTIONS.containsKey(name.toLowerCase(Locale.ROOT))) {
            return Optional.of(name.toLowerCase(Locale.ROOT));
        }
        if ("current_setting".equalsIgnoreCase(name) && !readableSetting(node.path("arguments"))) {
            return Optional.of("current_setting");
        }
        return Optional.empty();
    }

    /** The type of {@code node} when it is a query node that is not a reading one (not looking into its children). */
    private static Optional<String> writingNodeAt(JsonNode node) {
        if (!node.isObject()) {
            return Optional.empty();
        }
        String type = node.path("type").asText("");
        boolean queryNode = type.endsWith("_NODE") || (node.has("cte_map") && node.has("modifiers"));
        if (queryNode && !READING_NODES.contains(type)) {
            return Optional.of(type.isEmpty() ? "an unknown query node" : type);
        }
        return Optional.empty();
    }

    private static JsonNode serialize(Connection c, String sql) {
        try (PreparedStatement serialize = c.prepareStatement("SELECT json_serialize_sql(?)")) {
            serialize.setString(1, sql);
            try (ResultSet row = serialize.executeQuery()) {
                row.next();
                return JSON.readTree(row.getString(1));
            }
        } catch (SQLException | IOException e) {
            throw new QueryException(Reason.INVALID_SQL, "the statement cannot be parsed: " + e.getMessage(), e);
        }
    }
}
