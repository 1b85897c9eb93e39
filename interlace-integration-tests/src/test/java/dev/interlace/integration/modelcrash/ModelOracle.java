package dev.interlace.integration.modelcrash;

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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Checks, over HTTP on a recovered server that has caught up, that the incremental model {@code clicks_enriched}
 * processed every row of {@code streams.clicks} exactly once (docs/models.md#materialisations):
 *
 * <ul>
 *   <li>the stream is complete: {@code count(*)} of {@code streams.clicks} = head = its flushed watermark;
 *   <li>the model's watermark ({@code interlace.model_watermarks}) = the stream's flushed watermark;
 *   <li>the model table holds each stream row once: {@code count(*) = count(DISTINCT click_id) =
 *       count(DISTINCT click_offset)} = the stream's rows, and every acknowledged click is there at its offset;
 *   <li>the rows the successful runs report ({@code interlace.run_models.rows}) add up to the stream's rows;
 *   <li>the committed processing audit ({@link ModelProbe}, written in each model transaction) names every offset
 *       exactly once, and each batch audited as many rows as the runner reported.
 * </ul>
 *
 * The last is the one that sees re-processing: with {@code unique_key=click_id} the model table hides a batch
 * processed twice, and the runner records no {@code run_models} row for a run a crash interrupted.
 */
final class ModelOracle {

    private static final int PAGE = WarehouseSql.PAGE;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MODEL = ModelProbe.MODEL;
    private static final String AUDIT = ModelProbe.AUDIT_SCHEMA;
    /** How long the server must be seen settled at every poll before it counts as settled. */
    private static final Duration SETTLED_FOR = Duration.ofMillis(200);

    private final URI server;
    private final HttpClient http = ChildJvm.httpClient();
    private final WarehouseSql warehouse;

    ModelOracle(URI server) {
        this.server = server;
        this.warehouse = new WarehouseSql(http, server);
    }

    /** Where the stream and the model stand. */
    record Progress(long pending, long activeRuns, long streamWatermark, long modelWatermark) {
        boolean settled() {
            return pending == 0 && activeRuns == 0 && modelWatermark == streamWatermark;
        }

        @Override
        public String toString() {
            return "pending " + pending + ", runs queued/running " + activeRuns + ", stream watermark "
                    + streamWatermark + ", model watermark " + modelWatermark;
        }
    }

    /** What the oracle found. */
    static final class Report {
        long head;
        long streamWatermark;
        long streamRows;
        long modelWatermark;
        long modelRows;
        long modelDistinctClicks;
        long modelDistinctOffsets;
        long runModelsRows;
        long succeededBatches;
        long failedModelResults;
        long runsFailed;
        long activeRuns;
        long auditRows;
        long auditDistinctOffsets;
        int acknowledgedChecked;
        /** offset -> pids of the processes whose committed batches processed it (only when more than one batch). */
        final Map<Long, List<Long>> processedTwice = new TreeMap<>();
        /** offset -> pid of the one process whose committed batch processed it. */
        final Map<Long, Long> processedBy = new HashMap<>();
        final List<String> batchMismatches = new ArrayList<>();
        final List<String> missing = new ArrayList<>();
        final List<String> misplaced = new ArrayList<>();

        /** What the model table, the watermarks and the run records show (blind to an upserted re-run). */
        boolean tableLooksClean() {
            return streamRows == head && streamWatermark == head && modelWatermark == streamWatermark
                    && modelRows == streamRows && modelDistinctClicks == streamRows
                    && modelDistinctOffsets == streamRows && missing.isEmpty() && misplaced.isEmpty()
                    && activeRuns == 0;
        }

        boolean runRecordsMatch() {
            return runModelsRows == streamRows;
        }

        /** Every stream row processed by exactly one committed batch. */
        boolean processedExactlyOnce() {
            return auditRows == streamRows && auditDistinctOffsets == streamRows && processedTwice.isEmpty()
                    && batchMismatches.isEmpty();
        }

        boolean isClean() {
            return tableLooksClean() && runRecordsMatch() && processedExactlyOnce();
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("oracle: head ").append(head)
                    .append(", streams.clicks rows ").append(streamRows)
                    .append(", stream watermark ").append(streamWatermark)
                    .append(", model watermark ").append(modelWatermark)
                    .append("; ").append(MODEL).append(" count(*) ").append(modelRows)
                    .append(", distinct click_id ").append(modelDistinctClicks)
                    .append(", distinct click_offset ").append(modelDistinctOffsets)
                    .append("; run_models rows ").append(runModelsRows).append(" in ").append(succeededBatches)
                    .append(" succeeded results (").append(failedModelResults).append(" failed; ")
                    .append(runsFailed).append(" runs failed, ").append(activeRuns).append(" active)")
                    .append("; audit rows ").append(auditRows).append(", distinct offsets ")
                    .append(auditDistinctOffsets).append("; ").append(acknowledgedChecked)
                    .append(" acknowledged clicks checked");
            if (!processedTwice.isEmpty()) {
                List<Long> offsets = new ArrayList<>(processedTwice.keySet());
                text.append("\n  ").append(offsets.size()).append(" offsets processed by more than one committed")
                        .append(" batch: ").append(offsets.get(0)).append("..").append(offsets.get(offsets.size() - 1))
                        .append(", e.g. ").append(offsets.get(0)).append(" by pids ")
                        .append(processedTwice.get(offsets.get(0)));
            }
            section(text, "batches whose audit disagrees with the reported rows", batchMismatches);
            section(text, "acknowledged clicks missing from " + MODEL, missing);
            section(text, "acknowledged clicks at another offset", misplaced);
            return text.toString();
        }
    }

    Progress progress() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(server.resolve("/streams/"
                + ModelProbe.STREAM)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET /streams/clicks answered " + response.statusCode() + ": "
                    + response.body());
        }
        long pending = JSON.readTree(response.body()).get("pending").asLong();
        JsonNode row = sql("SELECT (SELECT count(*) FROM interlace.runs WHERE status IN ('queued', 'running')),"
                + " (SELECT coalesce(max(watermark), 0) FROM streams._watermarks WHERE stream = 'clicks'),"
                + " (SELECT coalesce(max(watermark), 0) FROM interlace.model_watermarks"
                + " WHERE model = '" + MODEL + "' AND stream = 'clicks')").get(0);
        return new Progress(pending, row.get(0).asLong(), row.get(1).asLong(), row.get(2).asLong());
    }

    /**
     * Polls until nothing is pending, no run is queued or running and the model's watermark reached the stream's, at
     * every poll for 200 ms, or {@code timeout} passes; returns the last progress seen.
     */
    Progress awaitSettled(Duration timeout) throws IOException {
        Progress[] last = new Progress[1];
        Long[] settledSince = new Long[1];
        try {
            return Eventually.get("the server settled for 200 ms", timeout, () -> {
                Progress progress = last[0] = progress();
                long now = System.nanoTime();
                settledSince[0] = !progress.settled() ? null : settledSince[0] == null ? now : settledSince[0];
                return settledSince[0] != null && now - settledSince[0] >= SETTLED_FOR.toNanos() ? progress : null;
            }, Objects::nonNull);
        } catch (AssertionError e) {
            if (e.getCause() instanceof IOException failed) {
                throw failed;
            }
            if (e.getCause() != null || last[0] == null) {
                throw e;
            }
            return last[0]; // not settled within the timeout: the caller asserts on it, with the child's output
        }
    }

    /** The whole check; run it once settled and nothing else publishes. */
    Report check(Map<String, Long> acknowledged) throws IOException, InterruptedException {
        Report report = new Report();
        HttpResponse<String> stream = http.send(HttpRequest.newBuilder(server.resolve("/streams/"
                + ModelProbe.STREAM)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        report.head = JSON.readTree(stream.body()).get("head").asLong();
        report.acknowledgedChecked = acknowledged.size();
        JsonNode row = sql("SELECT (SELECT count(*) FROM streams.clicks),"
                + " (SELECT coalesce(max(watermark), -1) FROM streams._watermarks WHERE stream = 'clicks'),"
                + " (SELECT coalesce(max(watermark), -1) FROM interlace.model_watermarks"
                + "   WHERE model = '" + MODEL + "' AND stream = 'clicks'),"
                + " (SELECT count(*) FROM interlace.runs WHERE status IN ('queued', 'running')),"
                + " (SELECT count(*) FROM interlace.runs WHERE status = 'failed')").get(0);
        report.streamRows = row.get(0).asLong();
        report.streamWatermark = row.get(1).asLong();
        report.modelWatermark = row.get(2).asLong();
        report.activeRuns = row.get(3).asLong();
        report.runsFailed = row.get(4).asLong();
        row = sql("SELECT count(*), count(DISTINCT click_id), count(DISTINCT click_offset) FROM main." + MODEL)
                .get(0);
        report.modelRows = row.get(0).asLong();
        report.modelDistinctClicks = row.get(1).asLong();
        report.modelDistinctOffsets = row.get(2).asLong();
        row = sql("SELECT coalesce(sum(\"rows\") FILTER (WHERE status = 'succeeded'), 0),"
                + " count(*) FILTER (WHERE status = 'succeeded' AND \"rows\" > 0),"
                + " count(*) FILTER (WHERE status = 'failed')"
                + " FROM interlace.run_models WHERE model = '" + MODEL + "'").get(0);
        report.runModelsRows = row.get(0).asLong();
        report.succeededBatches = row.get(1).asLong();
        report.failedModelResults = row.get(2).asLong();
        row = sql("SELECT count(*), count(DISTINCT click_offset) FROM " + AUDIT + ".processed").get(0);
        report.auditRows = row.get(0).asLong();
        report.auditDistinctOffsets = row.get(1).asLong();
        for (JsonNode twice : sql("SELECT click_offset, string_agg(CAST(pid AS VARCHAR), ',' ORDER BY pid)"
                + " FROM " + AUDIT + ".processed GROUP BY click_offset HAVING count(*) > 1 ORDER BY click_offset"
                + " LIMIT " + PAGE)) {
            List<Long> pids = new ArrayList<>();
            for (String pid : twice.get(1).asText().split(",")) {
                pids.add(Long.parseLong(pid.strip()));
            }
            report.processedTwice.put(twice.get(0).asLong(), pids);
        }
        warehouse.forEachRow("SELECT click_offset, min(pid) FROM " + AUDIT + ".processed GROUP BY click_offset"
                + " HAVING count(*) = 1 ORDER BY click_offset",
                once -> report.processedBy.put(once.get(0).asLong(), once.get(1).asLong()));
        for (JsonNode batch : sql("SELECT pid, attempt, from_watermark, reported_rows, audited_rows FROM " + AUDIT
                + ".batches WHERE reported_rows <> audited_rows ORDER BY pid, attempt LIMIT 100")) {
            report.batchMismatches.add("pid " + batch.get(0).asLong() + " attempt " + batch.get(1).asLong()
                    + " from " + batch.get(2).asLong() + ": reported " + batch.get(3).asLong() + ", audited "
                    + batch.get(4).asLong());
        }

        Map<String, List<Long>> offsetsOfClick = new HashMap<>();
        warehouse.forEachRow("SELECT click_id, click_offset FROM main." + MODEL + " ORDER BY click_offset, click_id",
                click -> offsetsOfClick.computeIfAbsent(click.get(0).asText(), key -> new ArrayList<>(1))
                        .add(click.get(1).asLong()));
        acknowledged.forEach((click, offset) -> {
            List<Long> offsets = offsetsOfClick.get(click);
            if (offsets == null) {
                report.missing.add(click + "@" + offset);
            } else if (!offsets.equals(List.of(offset))) {
                report.misplaced.add(click + " acknowledged at " + offset + ", in the model at " + offsets);
            }
        });
        report.missing.sort(null);
        return report;
    }

    /** {@code POST /sql} (text/plain); returns the {@code rows} array. */
    JsonNode sql(String query) throws IOException, InterruptedException {
        return warehouse.rows(query);
    }
}
