package dev.interlace.warehouse.duckdb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The string distances whose cost grows with the product of their arguments' lengths, run on {@code POST /sql} only
 * within a bound on that product.
 *
 * <p>DuckDB checks for a cancelled query between vectors of up to 2 048 rows, so the time limit of a query holds only
 * as well as one vector's work is bounded. {@code levenshtein} of two 45 000-character texts takes seconds per row and
 * a vector of them minutes, past any limit, with a core at 100 % the whole time. Each of these functions is called on
 * a query's connection through a macro of the same arguments that raises an error naming the function and the
 * lengths when their product exceeds {@link #MAX_CELLS}: at the measured half a billion cells per second a full vector
 * of bounded calls takes about a second, and the texts analytics compares (names, titles, short codes) are far below
 * it. Queries without these functions run exactly as written.
 */
final class BoundedFunctions {

    /** The most cells (length × length) one call may compute: two texts of 500 characters. */
    static final long MAX_CELLS = 250_000;

    private static final String PREFIX = "interlace_bounded_";

    /** Each bounded function and the argument counts it is called with (the last one, when 3, a score cutoff). */
    private static final Map<String, List<Integer>> FUNCTIONS = Map.of(
            "levenshtein", List.of(2),
            "editdist3", List.of(2),
            "damerau_levenshtein", List.of(2),
            "jaro_similarity", List.of(2, 3),
            "jaro_winkler_similarity", List.of(2, 3));

    private BoundedFunctions() {}

    /** Defines the bounded macros on {@code c}, a connection of {@code POST /sql} queries (temporary: its own). */
    static void install(Connection c) throws SQLException {
        try (Statement statement = c.createStatement()) {
            for (Map.Entry<String, List<Integer>> function : FUNCTIONS.entrySet()) {
                for (int arguments : function.getValue()) {
                    String name = function.getKey();
                    String parameters = arguments == 2 ? "a, b" : "a, b, c";
                    statement.execute("CREATE OR REPLACE TEMP MACRO " + macro(name, arguments) + "(" + parameters
                            + ") AS CASE WHEN length(a::VARCHAR) * length(b::VARCHAR) > " + MAX_CELLS
                            + " THEN error('" + name + " of texts of ' || length(a::VARCHAR) || ' and '"
                            + " || length(b::VARCHAR) || ' characters is refused here: its cost grows with the product"
                            + " of the lengths, at most " + MAX_CELLS + " (for example two texts of 500 characters),"
                            + " and a query cannot be cancelled inside it') ELSE " + name + "(" + parameters + ") END");
                }
            }
        }
    }

    /**
     * Points every call of a bounded function in {@code tree} (DuckDB's serialised parse tree) at its macro.
     *
     * @return whether any call was changed
     */
    static boolean bound(JsonNode tree) {
        boolean changed = false;
        if (tree instanceof ObjectNode node && "FUNCTION".equals(node.path("class").asText())) {
            String name = node.path("function_name").asText("").toLowerCase(Locale.ROOT);
            int arguments = node.path("arguments").size();
            if (FUNCTIONS.getOrDefault(name, List.of()).contains(arguments)
                    && node.path("schema").asText("").isEmpty()) {
                node.put("function_name", macro(name, arguments));
                if (node.has("qualified_name")) {
                    node.putObject("qualified_name").putArray("path").add(macro(name, arguments));
                }
                changed = true;
            }
        }
        for (JsonNode child : tree) {
            changed |= bound(child);
        }
        return changed;
    }

    private static String macro(String name, int arguments) {
        return PREFIX + name + "_" + arguments;
    }
}
