package dev.interlace.warehouse.duckdb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.sql.QueryException;
import dev.interlace.runtime.sql.QueryLimits;
import dev.interlace.runtime.sql.RowAllowance;
import dev.interlace.runtime.sql.QueryResult;
import dev.interlace.runtime.warehouse.Queries;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.duckdb.DuckDBConnection;

/**
 * Read-only access to DuckDB: {@code POST /sql} queries on connections of their own, never on the ones the flusher
 * and the model runner use, and DuckDB's parser applied to model SQL.
 */
final class DuckDbQueries implements Queries {

    private static final Logger LOG = Logger.getLogger(DuckDbWarehouse.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();

    private final DuckDbConnections connections;
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "interlace-sql-timeout");
        thread.setDaemon(true);
        return thread;
    });

    /** The statements of the queries running now, so that {@link #stopQueries()} can cancel them. */
    private final Set<Statement> running = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    DuckDbQueries(DuckDbConnections connections) {
        this.connections = connections;
    }

    /**
     * Runs one query that cannot change anything: DuckDB's parser must classify the text as exactly one query
     * ({@link QueryClassifier}), and it runs in a {@code READ ONLY} transaction that is always rolled back, on a
     * connection used only for these queries. A connection whose state is not known to be clean afterwards (the
     * query failed, was cancelled, or the rollback failed) is closed instead of reused.
     */
    @Override
    public QueryResult query(String sql, QueryLimits limits, RowAllowance allowance) {
        if (stopped) {
            throw shuttingDown();
        }
        DuckDBConnection c = connections.borrowForQuery();
        String toRun = sql;
        List<String> columnNames = null;
        try {
            Optional<JsonNode> tree = QueryClassifier.requireOneQuery(c, sql);
            if (tree.isPresent() && BoundedFunctions.bound(tree.get())) {
                toRun = deserialize(c, tree.get(), "cannot bound the query's functions");
                columnNames = columnNames(c, sql);
            }
        } catch (QueryException refused) {
            connections.releaseForQuery(c); // classification ran one SELECT in auto-commit: no transaction is left open
            throw refused;
        }
        boolean clean = false;
        ScheduledFuture<?> deadline = null;
        AtomicBoolean cancelled = new AtomicBoolean();
        Statement running = null;
        try (Statement statement = c.createStatement()) {
            running = statement;
            this.running.add(statement);
            if (stopped) { // stopQueries ran between the check above and the registration
                throw shuttingDown();
            }
            statement.execute("BEGIN TRANSACTION READ ONLY");
            deadline = watchdog.schedule(() -> {
                cancelled.set(true);
                try {
                    statement.cancel();
                } catch (SQLException e) {
                    LOG.log(Level.FINE, "cancelling a query failed", e);
                }
            }, Math.max(1, limits.timeout().toMillis()), TimeUnit.MILLISECONDS);
            QueryResult result;
            try (ResultSet rows = statement.executeQuery(toRun)) {
                result = collect(rows, limits, columnNames, allowance);
            }
            deadline.cancel(false);
            statement.execute("ROLLBACK");
            clean = !cancelled.get();
            return result;
        } catch (SQLException e) {
            if (stopped) {
                throw shuttingDown();
            }
            throw new QueryException(cancelled.get() ? "the query ran longer than " + limits.timeout().toMillis()
                    + " ms and was cancelled" : e.getMessage(), cancelled.get(), e);
        } finally {
            if (running != null) {
                this.running.remove(running);
            }
            if (deadline != null) {
                deadline.cancel(false);
            }
            if (clean) {
                connections.releaseForQuery(c);
            } else {
                DuckDbConnections.closeQuietly(c);
            }
        }
    }

    @Override
    public void stopQueries() {
        stopped = true;
        for (Statement statement : running) {
            try {
                statement.cancel();
            } catch (SQLException e) {
                LOG.log(Level.FINE, "cancelling a query at shutdown failed", e);
            }
        }
    }

    private static QueryException shuttingDown() {
        return new QueryException(QueryException.Reason.SHUTTING_DOWN, "the server is shutting down: the query was"
                + " cancelled; retry against the restarted server", null);
    }

    /**
     * The text of {@code tree}, a serialised parse tree, from DuckDB's own deserialiser; a failure is a
     * {@link QueryException} whose message starts with {@code failure}.
     */
    private static String deserialize(DuckDBConnection c, JsonNode tree, String failure) {
        try (PreparedStatement deserialize = c.prepareStatement("SELECT json_deserialize_sql(?::JSON)")) {
            deserialize.setString(1, JSON.writeValueAsString(tree));
            try (ResultSet row = deserialize.executeQuery()) {
                row.next();
                return row.getString(1);
            }
        } catch (SQLException | IOException e) {
            throw new QueryException(failure + ": " + e.getMessage(), false, e);
        }
    }

    /**
     * The names of the columns {@code sql} answers with, as written: a query run through {@link BoundedFunctions}
     * would otherwise name a column {@code levenshtein(a, b)} after the macro that replaced the call. Only binds;
     * null when the text cannot be described (then the columns keep the names the rewritten query gives them).
     */
    private static List<String> columnNames(DuckDBConnection c, String sql) {
        List<String> names = new ArrayList<>();
        try (Statement describe = c.createStatement();
                ResultSet columns = describe.executeQuery("DESCRIBE " + sql)) {
            while (columns.next()) {
                names.add(columns.getString("column_name"));
            }
            return names;
        } catch (SQLException e) {
            return null;
        }
    }

    /** Bytes of values granted at a time: a few asks for a large answer, one for a small one. */
    private static final long ALLOWANCE_STEP = 64 * 1024;

    /**
     * Reads rows until the result ends, {@code maxRows} are read, or the values reach {@code maxAnswerBytes}; the
     * columns are named {@code names} when given. Each row is granted by {@code allowance} before it is kept (its
     * values are held meanwhile: one row at most).
     */
    private static QueryResult collect(ResultSet rows, QueryLimits limits, List<String> names,
            RowAllowance allowance) throws SQLException {
        ResultSetMetaData meta = rows.getMetaData();
        List<QueryResult.ResultColumn> columns = new ArrayList<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
            String name = names != null && names.size() == meta.getColumnCount() ? names.get(i - 1)
                    : meta.getColumnName(i);
            columns.add(new QueryResult.ResultColumn(name, meta.getColumnTypeName(i)));
        }
        List<List<Object>> values = new ArrayList<>();
        long bytes = 0;
        long granted = 0;
        while (rows.next()) {
            if (values.size() == limits.maxRows()) {
                return new QueryResult(columns, values, true);
            }
            List<Object> row = new ArrayList<>(columns.size());
            for (int i = 1; i <= columns.size(); i++) {
                Object value = value(rows, i, columns.get(i - 1).type());
                bytes += estimatedBytes(value);
                if (bytes > limits.maxAnswerBytes()) {
                    return new QueryResult(columns, values, true);
                }
                row.add(value);
            }
            if (bytes > granted) {
                long more = Math.max(ALLOWANCE_STEP, bytes - granted);
                if (!allowance.admit(more)) {
                    throw new QueryException(QueryException.Reason.OVERLOADED, "the server cannot hold this query's"
                            + " answer now (" + values.size() + " rows read); retry shortly", null);
                }
                granted += more;
            }
            values.add(row);
        }
        return new QueryResult(columns, values, false);
    }

    /** About how many bytes a value takes in an answer: its text's length, plus a separator. */
    private static long estimatedBytes(Object value) {
        if (value == null || value instanceof Number || value instanceof Boolean) {
            return 24;
        }
        if (value instanceof CharSequence text) {
            return text.length() + 3L;
        }
        return value.toString().length() + 3L;
    }

    /**
     * A column value in a JSON-friendly Java type: timestamps as UTC instants, dates as local dates, bytes as base64
     * text.
     */
    private static Object value(ResultSet rows, int index, String type) throws SQLException {
        Object value = rows.getObject(index);
        if (value == null) {
            return null;
        }
        if (type.equals("TIMESTAMP") || type.startsWith("TIMESTAMP_")) {
            return rows.getObject(index, LocalDateTime.class).toInstant(ZoneOffset.UTC);
        }
        if (type.equals("TIMESTAMP WITH TIME ZONE")) {
            return rows.getObject(index, OffsetDateTime.class).toInstant();
        }
        if (type.equals("DATE")) {
            return rows.getObject(index, LocalDate.class);
        }
        if (type.equals("BLOB")) {
            // Bytes have no text of their own: base64 (RFC 4648, with padding) in every answer format.
            return Base64.getEncoder().encodeToString(rows.getBytes(index));
        }
        return value;
    }

    @Override
    public List<TableReference> tablesReadBy(String select) {
        JsonNode tree = serialize(select);
        Set<String> cteNames = new HashSet<>();
        List<TableReference> tables = new ArrayList<>();
        collect(tree, cteNames, tables);
        List<TableReference> read = new ArrayList<>();
        for (TableReference table : tables) {
            boolean cte = table.schema().isEmpty() && cteNames.contains(table.table());
            if (!cte && !read.contains(table)) {
                read.add(table);
            }
        }
        return read;
    }

    @Override
    public String replaceTables(String select, Map<String, String> replacements) {
        JsonNode tree = serialize(select);
        replace(tree, replacements);
        DuckDBConnection c = connections.borrow();
        try {
            return deserialize(c, tree, "cannot rewrite the query");
        } finally {
            connections.release(c);
        }
    }

    /** The parse tree of one SELECT, from DuckDB's own parser. */
    private JsonNode serialize(String select) {
        DuckDBConnection c = connections.borrow();
        try (PreparedStatement serialize = c.prepareStatement("SELECT json_serialize_sql(?)")) {
            serialize.setString(1, select);
            JsonNode tree;
            try (ResultSet row = serialize.executeQuery()) {
                row.next();
                tree = JSON.readTree(row.getString(1));
            }
            if (tree.path("error").asBoolean()) {
                throw new QueryException(tree.path("error_message").asText("the query cannot be parsed"), false,
                        null);
            }
            if (tree.path("statements").size() != 1) {
                throw new QueryException("a model is exactly one SELECT statement", false, null);
            }
            return tree;
        } catch (SQLException | IOException e) {
            throw new QueryException(e.getMessage(), false, e);
        } finally {
            connections.release(c);
        }
    }

    private static void collect(JsonNode node, Set<String> cteNames, List<TableReference> tables) {
        if (node.isObject()) {
            if ("BASE_TABLE".equals(node.path("type").asText())) {
                tables.add(new TableReference(node.path("schema_name").asText(""), node.path("table_name").asText()));
            }
            JsonNode ctes = node.path("cte_map").path("map");
            for (JsonNode cte : ctes) {
                cteNames.add(cte.path("key").asText());
            }
            node.forEach(child -> collect(child, cteNames, tables));
        } else if (node.isArray()) {
            node.forEach(child -> collect(child, cteNames, tables));
        }
    }

    private static void replace(JsonNode node, Map<String, String> replacements) {
        if (node instanceof ObjectNode object) {
            if ("BASE_TABLE".equals(object.path("type").asText())) {
                String key = object.path("schema_name").asText("") + "." + object.path("table_name").asText();
                String replacement = replacements.get(key);
                if (replacement != null) {
                    if (object.path("alias").asText("").isEmpty()) {
                        object.put("alias", object.path("table_name").asText());
                    }
                    object.put("schema_name", "");
                    object.put("catalog_name", "");
                    object.put("table_name", replacement);
                    if (object.has("qualified_name")) {
                        // Newer DuckDB versions print the relation from its qualified path.
                        object.putObject("qualified_name").putArray("path").add(replacement);
                    }
                }
            }
            object.forEach(child -> replace(child, replacements));
        } else if (node.isArray()) {
            node.forEach(child -> replace(child, replacements));
        }
    }

    /** Stops the query watchdog. */
    void close() {
        watchdog.shutdownNow();
    }
}
