package dev.interlace.integration.flushcrash;

import static dev.interlace.integration.crash.OracleReport.section;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.integration.crash.ChildJvm;
import dev.interlace.integration.crash.WarehouseSql;
import dev.interlace.runtime.testing.Eventually;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a recovered server's warehouse over HTTP: once the flusher has caught up ({@code pending}
 * 0), {@code streams.<stream>} holds every log entry exactly once ({@code count(*) = count(DISTINCT _offset) =
 * max(_offset) = count(DISTINCT <key>) = head}), every acknowledged key is there at the offset its 200 reported, and
 * {@code streams._watermarks} says {@code head} for the stream.
 */
public final class WarehouseOracle {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI server;
    private final String stream;
    private final String table;
    private final String key;
    private final HttpClient http = ChildJvm.httpClient();
    private final WarehouseSql warehouse;

    /** For stream {@code orders}, keyed by {@code order_id}. */
    WarehouseOracle(URI server) {
        this(server, "orders", "order_id");
    }

    /** For {@code stream}, whose events the load keyed by column {@code key}. */
    WarehouseOracle(URI server, String stream, String key) {
        this.server = server;
        this.stream = stream;
        this.table = "streams.\"" + stream + "\"";
        this.key = "\"" + key + "\"";
        this.warehouse = new WarehouseSql(http, server);
    }

    /** {@code GET /streams/orders}: head, watermark, pending and flush state. */
    record Status(long head, long earliest, long watermark, long pending, String flushState, String flushError) {
        @Override
        public String toString() {
            return "head " + head + ", earliest " + earliest + ", watermark " + watermark + ", pending " + pending
                    + ", flush " + flushState
                    + (flushError == null ? "" : " (" + flushError + ")");
        }
    }

    /** What the oracle found. */
    static final class Report {
        long head;
        long rows;
        long distinctOffsets;
        long maxOffset;
        long distinctKeys;
        long warehouseWatermark;
        int acknowledgedChecked;
        final List<String> missing = new ArrayList<>();
        final List<String> misplaced = new ArrayList<>();
        final List<String> duplicated = new ArrayList<>();
        /** Whatever else a test checked (e.g. evolved columns). */
        final List<String> other = new ArrayList<>();

        boolean countsMatchHead() {
            return rows == head && distinctOffsets == head && maxOffset == head && distinctKeys == head;
        }

        boolean isClean() {
            return countsMatchHead() && warehouseWatermark == head && missing.isEmpty() && misplaced.isEmpty()
                    && duplicated.isEmpty() && other.isEmpty();
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("oracle: head ").append(head).append(", count(*) ")
                    .append(rows).append(", count(DISTINCT _offset) ").append(distinctOffsets)
                    .append(", max(_offset) ").append(maxOffset).append(", count(DISTINCT key) ")
                    .append(distinctKeys).append(", _watermarks ").append(warehouseWatermark).append("; ")
                    .append(acknowledgedChecked).append(" acknowledged keys checked");
            section(text, "acknowledged keys missing", missing);
            section(text, "acknowledged keys at another offset", misplaced);
            section(text, "keys stored more than once", duplicated);
            section(text, "other problems", other);
            return text.toString();
        }
    }

    Status status() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(server.resolve("/streams/" + stream))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET /streams/" + stream + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        JsonNode body = JSON.readTree(response.body());
        return new Status(body.get("head").asLong(), body.path("earliest").asLong(1), body.get("watermark").asLong(),
                body.get("pending").asLong(),
                body.path("flush_state").asText(null), body.path("flush_error").isNull() ? null
                        : body.path("flush_error").asText(null));
    }

    /** Polls until {@code pending} is 0 or {@code timeout} passes; returns the last status seen. */
    Status awaitCaughtUp(Duration timeout) throws IOException, InterruptedException {
        try {
            return Eventually.get("nothing is pending", timeout, this::status, status -> status.pending() == 0);
        } catch (AssertionError timedOut) {
            return status();
        }
    }

    /** The whole check; run it once the flusher caught up and nothing else publishes. */
    Report check(Map<String, Long> acknowledged) throws IOException, InterruptedException {
        Report report = new Report();
        report.head = status().head();
        report.acknowledgedChecked = acknowledged.size();
        JsonNode counts = sql("SELECT count(*), count(DISTINCT _offset), coalesce(max(_offset), 0),"
                + " count(DISTINCT " + key + ") FROM " + table).get(0);
        report.rows = counts.get(0).asLong();
        report.distinctOffsets = counts.get(1).asLong();
        report.maxOffset = counts.get(2).asLong();
        report.distinctKeys = counts.get(3).asLong();
        JsonNode watermark = sql("SELECT watermark FROM streams._watermarks WHERE stream = '" + stream + "'");
        report.warehouseWatermark = watermark.isEmpty() ? -1 : watermark.get(0).get(0).asLong();

        Map<String, List<Long>> offsetsOfKey = new HashMap<>();
        warehouse.forEachRow("SELECT " + key + ", _offset FROM " + table + " ORDER BY _offset, " + key,
                row -> offsetsOfKey.computeIfAbsent(row.get(0).asText(), key -> new ArrayList<>(1))
                        .add(row.get(1).asLong()));
        offsetsOfKey.forEach((key, offsets) -> {
            if (offsets.size() > 1) {
                report.duplicated.add(key + " at offsets " + offsets);
            }
        });
        acknowledged.forEach((key, offset) -> {
            List<Long> offsets = offsetsOfKey.get(key);
            if (offsets == null) {
                report.missing.add(key + "@" + offset);
            } else if (!offsets.contains(offset)) {
                report.misplaced.add(key + " acknowledged at " + offset + ", stored at " + offsets);
            }
        });
        report.missing.sort(null);
        return report;
    }

    /** The keys of the rows whose column {@code column} is not null. */
    Set<String> keysWithValueIn(String column) throws IOException, InterruptedException {
        Set<String> keys = new HashSet<>();
        warehouse.forEachRow("SELECT " + key + " FROM " + table + " WHERE \"" + column + "\" IS NOT NULL"
                + " ORDER BY _offset",
                row -> keys.add(row.get(0).asText()));
        return keys;
    }

    /** {@code POST /sql} (text/plain); returns the {@code rows} array. */
    JsonNode sql(String query) throws IOException, InterruptedException {
        return warehouse.rows(query);
    }
}
