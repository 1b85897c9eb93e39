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
import java.util.Optional;
import java.util.Set;
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

    private QueryClassifier() {}

    /**
     * Returns when {@code sql} is exactly one query.
     *
     * @throws QueryException {@link Reason#INVALID_SQL} when it is not one statement DuckDB can parse,
     *     {@link Reason#NOT_READ_ONLY} when it is one statement but not a query
     */
    static void requireOneQuery(Connection c, String sql) {
        Matcher explain = EXPLAIN.matcher(sql);
        if (explain.lookingAt()) {
            String explained = sql.substring(explain.end());
            if (StatementText.firstKeyword(explained).equals("ANALYZE")) {
                throw new QueryException(Reason.NOT_READ_ONLY, "EXPLAIN ANALYZE runs its statement; only a plain"
                        + " EXPLAIN of a query runs here", null);
            }
            requireOneQuery(c, explained, sql);
        } else {
            requireOneQuery(c, sql, sql);
        }
    }

    private static void requireOneQuery(Connection c, String sql, String original) {
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
    }

    /** The type of the first query node that is not a reading one, anywhere in the tree. */
    private static Optional<String> writingNode(JsonNode node) {
        if (node.isObject()) {
            String type = node.path("type").asText("");
            boolean queryNode = type.endsWith("_NODE") || (node.has("cte_map") && node.has("modifiers"));
            if (queryNode && !READING_NODES.contains(type)) {
                return Optional.of(type.isEmpty() ? "an unknown query node" : type);
            }
        }
        if (node.isContainerNode()) {
            for (JsonNode child : node) {
                Optional<String> found = writingNode(child);
                if (found.isPresent()) {
                    return found;
                }
            }
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
