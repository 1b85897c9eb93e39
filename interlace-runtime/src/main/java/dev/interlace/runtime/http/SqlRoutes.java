package dev.interlace.runtime.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.flush.Warehouse;
import dev.interlace.runtime.sql.QueryException;
import dev.interlace.runtime.sql.QueryResult;
import dev.interlace.runtime.sql.ReadOnlySql;
import jakarta.inject.Inject;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** {@code POST /sql}: one read-only statement against the warehouse (DESIGN.md §10). */
final class SqlRoutes {

    /** Most rows a response carries; more are cut off and {@code truncated} is true. */
    static final int MAX_ROWS = 10_000;
    /** How long a query may run before it is cancelled. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int MAX_SQL_BYTES = 1 << 20;
    private static final ObjectMapper EXACT = new ObjectMapper()
            .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));

    private final Optional<Warehouse> warehouse;

    @Inject
    SqlRoutes(Optional<Warehouse> warehouse) {
        this.warehouse = warehouse;
    }

    void register(List<Route> routes) {
        routes.add(Route.blocking("POST", "/sql", this::query));
    }

    private HttpAnswer query(HttpRequest request, List<String> path, String requestId) throws IOException {
        if (warehouse.isEmpty()) {
            return HttpResponses.error(503, "no_warehouse", "no warehouse is configured, so there is nothing to"
                    + " query; put interlace-warehouse-duckdb on the class path", requestId);
        }
        byte[] body = request.body();
        if (body.length > MAX_SQL_BYTES) {
            return HttpResponses.error(413, "payload_too_large", "the query is longer than " + MAX_SQL_BYTES
                    + " bytes", requestId);
        }
        String contentType = Optional.ofNullable(request.header("Content-Type")).orElse("")
                .toLowerCase(Locale.ROOT);
        String sql;
        if (contentType.startsWith("application/json")) {
            JsonNode json;
            try {
                json = HttpResponses.JSON.readTree(body);
            } catch (IOException e) {
                return HttpResponses.error(400, "malformed_json", "the body is not JSON: send {\"sql\": \"...\"}"
                        + " or the query as text/plain", requestId);
            }
            if (json == null || !json.path("sql").isTextual()) {
                return HttpResponses.error(400, "missing_sql", "send {\"sql\": \"SELECT ...\"}", requestId);
            }
            sql = json.get("sql").asText();
        } else {
            sql = new String(body, StandardCharsets.UTF_8);
        }
        Optional<ReadOnlySql.Problem> problem = ReadOnlySql.check(sql);
        if (problem.isPresent()) {
            return HttpResponses.error(problem.get().forbidden() ? 403 : 400,
                    problem.get().forbidden() ? "read_only" : "invalid_sql", problem.get().message(), requestId);
        }
        QueryResult result;
        try {
            result = warehouse.get().query(sql, MAX_ROWS, TIMEOUT);
        } catch (QueryException e) {
            return HttpResponses.error(e.timedOut() ? 408 : 400, e.timedOut() ? "query_timeout" : "query_failed",
                    e.getMessage(), requestId);
        }
        String accept = Optional.ofNullable(request.header("Accept")).orElse("")
                .toLowerCase(Locale.ROOT);
        if (accept.contains("text/csv")) {
            return HttpAnswer.bytes(200, "text/csv; charset=utf-8", csv(result));
        } else if (accept.contains("application/x-ndjson")) {
            return HttpAnswer.bytes(200, "application/x-ndjson", ndjson(result));
        } else {
            return HttpAnswer.bytes(200, "application/json", json(result));
        }
    }

    private static byte[] json(QueryResult result) throws IOException {
        ObjectNode body = EXACT.createObjectNode();
        ArrayNode columns = body.putArray("columns");
        for (QueryResult.ResultColumn column : result.columns()) {
            columns.addObject().put("name", column.name()).put("type", column.type());
        }
        ArrayNode rows = body.putArray("rows");
        for (List<Object> row : result.rows()) {
            ArrayNode values = rows.addArray();
            for (int i = 0; i < row.size(); i++) {
                values.add(jsonValue(row.get(i), result.columns().get(i).type()));
            }
        }
        body.put("count", result.rows().size());
        body.put("truncated", result.truncated());
        return EXACT.writeValueAsBytes(body);
    }

    private static byte[] ndjson(QueryResult result) throws IOException {
        StringBuilder out = new StringBuilder();
        for (List<Object> row : result.rows()) {
            ObjectNode line = EXACT.createObjectNode();
            for (int i = 0; i < row.size(); i++) {
                line.set(result.columns().get(i).name(), jsonValue(row.get(i), result.columns().get(i).type()));
            }
            out.append(EXACT.writeValueAsString(line)).append('\n');
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] csv(QueryResult result) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < result.columns().size(); i++) {
            out.append(i == 0 ? "" : ",").append(csvField(result.columns().get(i).name()));
        }
        out.append("\r\n");
        for (List<Object> row : result.rows()) {
            for (int i = 0; i < row.size(); i++) {
                out.append(i == 0 ? "" : ",").append(row.get(i) == null ? "" : csvField(text(row.get(i))));
            }
            out.append("\r\n");
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String csvField(String value) {
        if (value.contains(",") || value.contains("\"") || value.contains("\n") || value.contains("\r")) {
            return "\"" + value.replace("\"", "\"\"") + "\"";
        }
        return value;
    }

    /** A value as JSON: decimals exact, timestamps RFC 3339, json columns as JSON values. */
    static JsonNode jsonValue(Object value, String type) {
        if (value == null) {
            return EXACT.nullNode();
        }
        if (type.equals("JSON")) {
            String text = value.toString();
            try {
                return EXACT.readTree(text);
            } catch (IOException e) {
                return EXACT.getNodeFactory().textNode(text);
            }
        }
        if (value instanceof BigDecimal decimal) {
            return EXACT.getNodeFactory().numberNode(decimal);
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return EXACT.getNodeFactory().numberNode(((Number) value).longValue());
        }
        if (value instanceof java.math.BigInteger big) {
            return EXACT.getNodeFactory().numberNode(big);
        }
        if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            return Double.isFinite(number) ? EXACT.getNodeFactory().numberNode(number)
                    : EXACT.getNodeFactory().textNode(Double.toString(number));
        }
        if (value instanceof Boolean flag) {
            return EXACT.getNodeFactory().booleanNode(flag);
        }
        return EXACT.getNodeFactory().textNode(text(value));
    }

    private static String text(Object value) {
        if (value instanceof Instant instant) {
            return instant.toString();
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        return value.toString();
    }
}
