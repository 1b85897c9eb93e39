package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.interlace.runtime.sql.QueryException;
import dev.interlace.runtime.sql.QueryResult;
import dev.interlace.runtime.queryprocess.ProcessQueries;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.warehouse.SqlQueries;
import jakarta.inject.Inject;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code POST /sql}: one read-only query against the warehouse. What may run, and how, is decided by
 * {@link SqlQueries} and the warehouse (see docs/security.md); this class reads the request and maps outcomes.
 */
final class SqlRoutes implements RouteSet {

    private static final int MAX_SQL_BYTES = 1 << 20;
    /** Seconds a client told the server is busy should wait before retrying. */
    private static final int BUSY_RETRY_AFTER_SECONDS = 1;
    private static final ObjectMapper EXACT = new ObjectMapper()
            .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
    /**
     * Writes the contents of {@code json} columns: numbers as they were written ({@code 1e999999} stays so;
     * {@link #EXACT} would expand it to a million digits, which Jackson refuses to write).
     */
    private static final ObjectMapper AS_WRITTEN = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));

    private final SqlQueries queries;
    /** The query process's queries, with {@code --sql-isolation process}. */
    private final Optional<ProcessQueries> process;
    private final WarehouseStandings standings;
    private final StreamCatalog catalog;

    @Inject
    SqlRoutes(SqlQueries queries, Optional<ProcessQueries> process, WarehouseStandings standings,
            StreamCatalog catalog) {
        this.queries = queries;
        this.process = process;
        this.standings = standings;
        this.catalog = catalog;
    }

    /** Cancels the queries running now (each is answered {@code 503 shutting_down}) and refuses later ones. */
    void stopQueries() {
        queries.stop();
        process.ifPresent(ProcessQueries::stop);
    }

    @Override
    public void register(List<Route> routes) {
        routes.add(Route.blocking("POST", "/sql", Access.READ, this::query)
                .placedOn(Route.Placement.WAREHOUSE));
    }

    private HttpAnswer query(HttpRequest request, List<String> path, String requestId) throws IOException {
        if (!queries.available()) {
            return HttpResponses.error(ErrorCode.NO_WAREHOUSE, "no warehouse is configured, so there is nothing to"
                    + " query; put interlace-warehouse-duckdb on the class path", requestId);
        }
        byte[] body = request.body();
        if (body.length > MAX_SQL_BYTES) {
            return HttpResponses.error(ErrorCode.PAYLOAD_TOO_LARGE, "the query is longer than " + MAX_SQL_BYTES
                    + " bytes", requestId);
        }
        if (process.isPresent()) {
            return inProcess(process.get(), request, body, requestId);
        }
        String contentType = Optional.ofNullable(request.header("Content-Type")).orElse("")
                .toLowerCase(Locale.ROOT);
        String sql;
        if (contentType.startsWith("application/json")) {
            JsonNode json;
            try {
                json = HttpResponses.JSON.readTree(body);
            } catch (IOException e) {
                return HttpResponses.error(ErrorCode.MALFORMED_JSON, "the body is not JSON: send {\"sql\": \"...\"}"
                        + " or the query as text/plain", requestId);
            }
            if (json == null || !json.path("sql").isTextual()) {
                return HttpResponses.error(ErrorCode.MISSING_SQL, "send {\"sql\": \"SELECT ...\"}", requestId);
            }
            sql = json.get("sql").asText();
        } else {
            sql = new String(body, StandardCharsets.UTF_8);
        }
        QueryResult result;
        try {
            // Rows are reserved as the warehouse reads them, before they are held: 3 × their text, as an answer's
            // payloads are.
            result = queries.run(sql, rowBytes -> request.reserve(rowBytes * InflightBytes.ANSWER_COPIES));
        } catch (QueryException e) {
            if (e.reason() == QueryException.Reason.OVERLOADED) {
                throw AnswerBudget.overloaded("the rows of this query's answer", requestId);
            }
            HttpAnswer refused = HttpResponses.error(errorCode(e.reason()), e.getMessage(),
                    requestId);
            return switch (e.reason()) {
                case BUSY -> refused.header("Retry-After", Integer.toString(BUSY_RETRY_AFTER_SECONDS));
                case SHUTTING_DOWN -> refused.header("Retry-After", "1").header("Connection", "close");
                default -> refused;
            };
        }
        String accept = Optional.ofNullable(request.header("Accept")).orElse("")
                .toLowerCase(Locale.ROOT);
        HttpAnswer answer;
        if (accept.contains("text/csv")) {
            answer = HttpAnswer.bytes(200, "text/csv; charset=utf-8", csv(result));
        } else if (accept.contains("application/x-ndjson")) {
            answer = HttpAnswer.bytes(200, "application/x-ndjson", ndjson(result));
        } else {
            answer = HttpResponses.json(200, json(result), EXACT);
        }
        // Every format says whether rows were cut (JSON also in its body, NDJSON also in a last line): an export
        // that lost rows must not look complete.
        answer.header(TRUNCATED_HEADER, Boolean.toString(result.truncated()));
        if (result.truncated()) {
            answer.header(ROWS_HEADER, Integer.toString(result.rows().size()));
        }
        return answer;
    }

    /**
     * Runs the query in the query process, in one of this server's query slots, after the process has materialised
     * the furthest any warehouse of the cluster has flushed, as this node knows it (on one server, what its own
     * warehouse holds now), and the models when the client's {@code Interlace-After} asks for them, which this server
     * has waited for already; relays its answer. The process follows the log itself, so its answer lags no
     * warehouse, even on a node whose own warehouse stands by behind another's.
     */
    private HttpAnswer inProcess(ProcessQueries target, HttpRequest request, byte[] body, String requestId) {
        StringBuilder after = new StringBuilder();
        int named = 0;
        for (var stream : catalog.logStreams()) {
            long flushed = standings.of(stream.name()).flushedWatermark();
            if (flushed > 0 && named++ < ReadAfter.MAX_POSITIONS) {
                after.append(after.length() == 0 ? "" : ",").append(stream.name()).append(':').append(flushed);
            }
        }
        String clientAfter = request.header(ReadAfter.HEADER);
        if (clientAfter != null && after.length() > 0 && java.util.Arrays.stream(clientAfter.split(","))
                .anyMatch(item -> item.strip().equals(ReadAfter.MODELS))) {
            after.append(',').append(ReadAfter.MODELS);
        }
        ProcessQueries.Answer answer;
        try {
            answer = queries.inSlot(() -> target.query(body, request.header("Content-Type"), request.header("Accept"),
                    after.length() == 0 ? null : after.toString(), requestId));
        } catch (QueryException e) {
            return HttpResponses.error(errorCode(e.reason()), e.getMessage(), requestId)
                    .header("Retry-After", Integer.toString(BUSY_RETRY_AFTER_SECONDS));
        } catch (ProcessQueries.NoAnswer e) {
            return switch (e.reason()) {
                case DEADLINE_PASSED -> HttpResponses.error(ErrorCode.QUERY_TIMEOUT, e.getMessage(), requestId);
                case UNAVAILABLE -> HttpResponses.error(ErrorCode.NO_WAREHOUSE, e.getMessage(), requestId)
                        .header("Retry-After", "1");
                case SHUTTING_DOWN -> HttpResponses.error(ErrorCode.SHUTTING_DOWN, e.getMessage(), requestId)
                        .header("Retry-After", "1").header("Connection", "close");
            };
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return HttpResponses.error(ErrorCode.SHUTTING_DOWN, "interrupted while the query ran", requestId)
                    .header("Retry-After", "1");
        }
        if (!request.reserve((long) answer.body().length * InflightBytes.ANSWER_COPIES)) {
            throw AnswerBudget.overloaded("the rows of this query's answer", requestId);
        }
        HttpAnswer relayed = HttpAnswer.bytes(answer.status(), answer.contentType(), answer.body());
        answer.headers().forEach(relayed::header);
        return relayed.fromCurrentReplica();
    }

    /** Response header: {@code true} when the answer was cut at the row or byte bound. */
    static final String TRUNCATED_HEADER = "Interlace-Truncated";
    /** Response header on a cut answer: how many rows it carries. */
    static final String ROWS_HEADER = "Interlace-Rows";

    /** The error of a refused or failed query. */
    static ErrorCode errorCode(QueryException.Reason reason) {
        return switch (reason) {
            case INVALID_SQL -> ErrorCode.INVALID_SQL;
            case NOT_READ_ONLY -> ErrorCode.READ_ONLY;
            case FAILED -> ErrorCode.QUERY_FAILED;
            case TIMED_OUT -> ErrorCode.QUERY_TIMEOUT;
            case BUSY -> ErrorCode.BUSY;
            case SHUTTING_DOWN -> ErrorCode.SHUTTING_DOWN;
            case OVERLOADED -> ErrorCode.OVERLOADED;
        };
    }

    private static ObjectNode json(QueryResult result) {
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
        return body;
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
        if (result.truncated()) { // a last line a line-by-line reader sees; the header is the unambiguous signal
            ObjectNode marker = EXACT.createObjectNode();
            marker.putObject("_interlace").put("truncated", true).put("rows", result.rows().size())
                    .put("message", "the answer was cut at " + result.rows().size() + " rows (the server's row or"
                            + " byte bound); narrow the query or page through it");
            out.append(EXACT.writeValueAsString(marker)).append('\n');
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] csv(QueryResult result) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < result.columns().size(); i++) {
            out.append(i == 0 ? "" : ",").append(csvField(withoutFormula(result.columns().get(i).name())));
        }
        out.append("\r\n");
        for (List<Object> row : result.rows()) {
            for (int i = 0; i < row.size(); i++) {
                out.append(i == 0 ? "" : ",").append(row.get(i) == null ? "" : csvField(csvText(row.get(i))));
            }
            out.append("\r\n");
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A value as a CSV cell's text: a number as it is (a negative one stays a number), any other value without a
     * leading character that makes a spreadsheet read the cell as a formula.
     */
    private static String csvText(Object value) {
        String text = text(value);
        return value instanceof Number || value instanceof Boolean ? text : withoutFormula(text);
    }

    /**
     * {@code text} behind a {@code '} when it begins with {@code =}, {@code +}, {@code -}, {@code @}, a tab or a
     * carriage return, else as it is. A spreadsheet opening the CSV (the console's "Download CSV") would otherwise
     * run published text such as {@code =HYPERLINK(...)} as a formula; the quote makes it text, as OWASP's advice on
     * CSV injection has it. JSON and NDJSON answers keep the value as it is.
     */
    static String withoutFormula(String text) {
        if (text.isEmpty()) {
            return text;
        }
        return switch (text.charAt(0)) {
            case '=', '+', '-', '@', '\t', '\r' -> "'" + text;
            default -> text;
        };
    }

    private static String csvField(String value) {
        if (value.contains(",") || value.contains("\"") || value.contains("\n") || value.contains("\r")) {
            return "\"" + value.replace("\"", "\"\"") + "\"";
        }
        return value;
    }

    /**
     * A value as JSON: decimals exact, timestamps RFC 3339, json columns as JSON values. A json column's value that
     * Jackson cannot read back (not JSON, too deep, a number too long) is answered as a string: a value is never a
     * failure.
     */
    static JsonNode jsonValue(Object value, String type) {
        if (value == null) {
            return EXACT.nullNode();
        }
        if (type.equals("JSON")) {
            String text = value.toString();
            try {
                JsonNode tree = AS_WRITTEN.readTree(text);
                if (tree == null || tree.isMissingNode()) {
                    return EXACT.getNodeFactory().textNode(text);
                }
                // Written compactly now (never a newline, which would split an NDJSON line), embedded as is later.
                return EXACT.getNodeFactory().rawValueNode(new RawValue(AS_WRITTEN.writeValueAsString(tree)));
            } catch (IOException | RuntimeException e) {
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
            return dev.interlace.runtime.ops.EpochMicros.rfc3339(instant);
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        return value.toString();
    }
}
