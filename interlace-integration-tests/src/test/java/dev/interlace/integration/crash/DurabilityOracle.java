package dev.interlace.integration.crash;

import static dev.interlace.integration.crash.OracleReport.section;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.sqlite.SQLiteConfig;

/**
 * Checks a recovered server against the {@link Ledger}: every acknowledged key is in the log exactly once, at the
 * offset and under the request its 200 reported, with a publish record; offsets are dense from 1 (or from the first
 * offset the retention sweep kept) to the head; and re-publishing acknowledged keys reports them as duplicates with
 * their original offsets. Keys that have left the retention window are checked for loss only
 * ({@link #checkOutsideTheWindow}).
 *
 * <p>The log file is read directly (read-only, while the recovered server runs, so the server and not the oracle
 * replays the WAL); the server is asked over HTTP for the head and the re-publishes. The same checks run on events
 * read from elsewhere (a Kafka topic, a warehouse table) with {@link #checkEvents}, and on any node of a cluster with
 * {@link #republished}.
 */
public final class DurabilityOracle {

    static final String STREAM = "orders";
    private static final int REPUBLISH_BATCH = 500;
    private static final int SINGLE_REPUBLISH_SAMPLE = 25;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path logFile;
    private final URI server;
    private final HttpClient http = ChildJvm.httpClient();

    DurabilityOracle(Path dataDirectory, URI server) {
        this.logFile = dataDirectory.resolve("log.sqlite");
        this.server = server;
    }

    private DurabilityOracle(URI server) {
        this.logFile = null;
        this.server = server;
    }

    /**
     * Checks {@code events} (every event of the stream, in any order, as some copy of the log holds them) against the
     * ledger: each acknowledged key exactly once, at its offset (and under its request, when the source says),
     * offsets dense from 1 to {@code head}, and, when {@code publishRecords} is not null, a publish record for each
     * acknowledged request. {@code source} names the copy in the report.
     */
    public static Report checkEvents(Ledger ledger, String source, List<StoredEvent> events, long head,
            Set<String> publishRecords) {
        Report report = new Report();
        Map<String, Ledger.Ack> acknowledged = ledger.acknowledged();
        report.acknowledgedChecked = acknowledged.size();
        report.head = head;
        List<StoredEvent> ordered = new ArrayList<>(events);
        ordered.sort(java.util.Comparator.comparingLong(StoredEvent::offset));
        verify(acknowledged, ordered, publishRecords, source, report);
        return report;
    }

    /**
     * Re-publishes every acknowledged key to {@code node} (verbose batches) and a sample one by one: each must be
     * answered as a duplicate with the offset it was acknowledged at.
     */
    public static Report republished(Ledger ledger, URI node, Random random) throws IOException,
            InterruptedException {
        Report report = new Report();
        Map<String, Ledger.Ack> acknowledged = ledger.acknowledged();
        report.acknowledgedChecked = acknowledged.size();
        DurabilityOracle oracle = new DurabilityOracle(node);
        oracle.republishAll(acknowledged, report);
        oracle.republishSample(acknowledged, random, report);
        return report;
    }

    /**
     * One stored event: its offset, idempotency key, the request that stored it (null when the source does not say)
     * and the key its payload holds.
     */
    public record StoredEvent(long offset, String key, String requestId, String payloadKey) {}

    /** Everything found wrong, by kind, and what was looked at. */
    public static final class Report {
        final List<String> missing = new ArrayList<>();
        final List<String> duplicated = new ArrayList<>();
        final List<String> offsets = new ArrayList<>();
        final List<String> misplaced = new ArrayList<>();
        final List<String> missingPublishRecords = new ArrayList<>();
        final List<String> notDeduplicated = new ArrayList<>();
        final List<String> wrongOriginalOffset = new ArrayList<>();
        long head;
        /** The log's trimmed_through: offsets from the next one on are stored; those up to it were trimmed. */
        long trimmedThrough;
        long storedEvents;
        int acknowledgedChecked;
        int republished;

        public boolean isClean() {
            return missing.isEmpty() && duplicated.isEmpty() && offsets.isEmpty() && misplaced.isEmpty()
                    && missingPublishRecords.isEmpty() && notDeduplicated.isEmpty() && wrongOriginalOffset.isEmpty();
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("oracle: head ").append(head).append(", trimmed through ")
                    .append(trimmedThrough).append(", ").append(storedEvents)
                    .append(" stored events, ").append(acknowledgedChecked).append(" acknowledged keys checked, ")
                    .append(republished).append(" re-published");
            section(text, "acknowledged but missing", missing);
            section(text, "stored more than once", duplicated);
            section(text, "offsets not dense " + (trimmedThrough + 1) + "..head", offsets);
            section(text, "stored elsewhere than acknowledged", misplaced);
            section(text, "acknowledged requests without a publish record", missingPublishRecords);
            section(text, "re-published acknowledged keys not answered as duplicates", notDeduplicated);
            section(text, "re-published duplicates reported at another offset than acknowledged",
                    wrongOriginalOffset);
            return text.toString();
        }
    }

    /** Retried in-doubt keys: how many the log already held (their answer was lost) and how many it newly stored. */
    record Retry(int alreadyStored, int newlyStored, List<String> problems) {}

    /**
     * The whole check: reads the log, then re-publishes every acknowledged key (verbose batches) and a sample one by
     * one. Run it before anything else publishes to the recovered server.
     */
    Report check(Ledger ledger, Random random) throws IOException, InterruptedException, SQLException {
        Report report = new Report();
        Map<String, Ledger.Ack> acknowledged = ledger.acknowledged();
        report.acknowledgedChecked = acknowledged.size();
        report.head = head();
        checkLog(acknowledged, report);
        republishAll(acknowledged, report);
        republishSample(acknowledged, random, report);
        return report;
    }

    /** Only the log and the head (no re-publishing): after retries, to see that they kept the log dense and unique. */
    Report checkLogOnly(Ledger ledger) throws IOException, InterruptedException, SQLException {
        Report report = new Report();
        Map<String, Ledger.Ack> acknowledged = ledger.acknowledged();
        report.acknowledgedChecked = acknowledged.size();
        report.head = head();
        checkLog(acknowledged, report);
        return report;
    }

    /**
     * Keys acknowledged before the stream's retention window moved past them: each must still be in the log at its
     * offset unless a trim (committed: the log's trimmed_through) took it. Their publish records may be gone (the
     * record retention) and their re-publishes are new events, so neither is checked.
     */
    Report checkOutsideTheWindow(Ledger ledger) throws IOException, InterruptedException, SQLException {
        Report report = new Report();
        Map<String, Ledger.Ack> acknowledged = new HashMap<>(ledger.acknowledged());
        report.acknowledgedChecked = acknowledged.size();
        report.head = head();
        checkLog(acknowledged, report, false);
        return report;
    }

    /**
     * Publishes {@code keys}, never sent before, in one verbose request: each must be stored as new. Records them in
     * {@code ledger}; returns the keys answered otherwise.
     */
    List<String> publishNew(Ledger ledger, List<String> keys) throws IOException, InterruptedException {
        HttpResponse<String> response = publish("?verbose=true", Load.batch(keys));
        if (response.statusCode() != 200) {
            return List.of("publishing " + keys.size() + " new keys answered " + response.statusCode() + ": "
                    + response.body());
        }
        JsonNode body = JSON.readTree(response.body());
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            JsonNode result = body.get("results").get(i);
            if ("accepted".equals(result.path("status").asText())) {
                ledger.acknowledge(keys.get(i), result.path("offset").asLong(), body.path("request_id").asText());
            } else {
                problems.add(keys.get(i) + " (never sent) published as " + result);
            }
        }
        return problems;
    }

    private long head() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(server.resolve("/streams/" + STREAM))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET /streams/" + STREAM + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        return JSON.readTree(response.body()).get("head").asLong();
    }

    private void checkLog(Map<String, Ledger.Ack> acknowledged, Report report) throws SQLException, IOException {
        checkLog(acknowledged, report, true);
    }

    /**
     * Reads the stream's events, publish records and trimmed_through in one snapshot and checks them; keys at or
     * below trimmed_through count as missing only when {@code insideTheWindow} (a trim must never take those).
     */
    private void checkLog(Map<String, Ledger.Ack> acknowledged, Report report, boolean insideTheWindow)
            throws SQLException, IOException {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        config.setBusyTimeout(10_000);
        List<StoredEvent> events = new ArrayList<>();
        Set<String> publishRecords = new HashSet<>();
        try (Connection log = config.createConnection("jdbc:sqlite:" + logFile)) {
            log.setAutoCommit(false); // one read transaction: one snapshot for every query
            long streamId;
            try (PreparedStatement select = log.prepareStatement(
                    "SELECT id, trimmed_through FROM streams WHERE name = ?")) {
                select.setString(1, STREAM);
                try (ResultSet row = select.executeQuery()) {
                    if (!row.next()) {
                        report.offsets.add("the log has no stream " + STREAM);
                        return;
                    }
                    streamId = row.getLong(1);
                    report.trimmedThrough = row.getLong(2);
                }
            }
            try (PreparedStatement select = log.prepareStatement("SELECT \"offset\", dedup_key, request_id, payload"
                    + " FROM events WHERE stream_id = ? ORDER BY \"offset\"")) {
                select.setLong(1, streamId);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        events.add(new StoredEvent(rows.getLong(1), rows.getString(2), rows.getString(3),
                                JSON.readTree(rows.getBytes(4)).path("order_id").asText(null)));
                    }
                }
            }
            // A publish record is a row of publishes, or rides on its request's last event row until it is copied.
            try (PreparedStatement select = log.prepareStatement("SELECT request_id FROM publishes WHERE stream_id = ?"
                    + " UNION SELECT request_id FROM events WHERE stream_id = ? AND publish IS NOT NULL")) {
                select.setLong(1, streamId);
                select.setLong(2, streamId);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        publishRecords.add(rows.getString(1));
                    }
                }
            }
            log.rollback();
        }
        if (!insideTheWindow) {
            acknowledged.values().removeIf(ack -> ack.offset() <= report.trimmedThrough);
        }
        verify(acknowledged, events, insideTheWindow ? publishRecords : null, "the log", report);
    }

    /** The checks of {@link #checkEvents} on events in offset order. */
    private static void verify(Map<String, Ledger.Ack> acknowledged, List<StoredEvent> events,
            Set<String> publishRecords, String source, Report report) {
        Map<String, Long> offsetOfKey = new HashMap<>();
        Map<Long, String> requestOfOffset = new HashMap<>();
        long expectedOffset = report.trimmedThrough + 1;
        for (StoredEvent event : events) {
            long offset = event.offset();
            String key = event.key();
            report.storedEvents++;
            if (offset != expectedOffset) {
                report.offsets.add("expected offset " + expectedOffset + ", found " + offset);
            }
            expectedOffset = offset + 1;
            requestOfOffset.put(offset, event.requestId());
            if (key == null || !key.equals(event.payloadKey())) {
                report.misplaced.add("offset " + offset + " has dedup_key " + key + " but payload key "
                        + event.payloadKey());
            }
            Long earlier = offsetOfKey.putIfAbsent(key, offset);
            if (earlier != null) {
                report.duplicated.add(key + " at offsets " + earlier + " and " + offset);
            }
        }
        if (expectedOffset - 1 != report.head) {
            report.offsets.add("the server reports head " + report.head + ", " + source + "'s last offset is "
                    + (expectedOffset - 1));
        }
        Set<String> requestsWithoutRecord = new TreeSet<>();
        for (Map.Entry<String, Ledger.Ack> entry : acknowledged.entrySet()) {
            String key = entry.getKey();
            Ledger.Ack ack = entry.getValue();
            if (publishRecords != null && ack.requestId() != null && !publishRecords.contains(ack.requestId())) {
                requestsWithoutRecord.add(ack.requestId());
            }
            Long offset = offsetOfKey.get(key);
            if (offset == null) {
                report.missing.add(key);
                continue;
            }
            if (offset != ack.offset()) {
                report.misplaced.add(key + " acknowledged at offset " + ack.offset() + ", stored at " + offset);
            } else if (ack.requestId() != null && requestOfOffset.get(offset) != null
                    && !ack.requestId().equals(requestOfOffset.get(offset))) {
                report.misplaced.add(key + " acknowledged to request " + ack.requestId() + ", stored by "
                        + requestOfOffset.get(offset));
            }
        }
        report.missingPublishRecords.addAll(requestsWithoutRecord);
    }

    private void republishAll(Map<String, Ledger.Ack> acknowledged, Report report)
            throws IOException, InterruptedException {
        List<String> keys = new ArrayList<>(acknowledged.keySet());
        for (int from = 0; from < keys.size(); from += REPUBLISH_BATCH) {
            List<String> batch = keys.subList(from, Math.min(keys.size(), from + REPUBLISH_BATCH));
            JsonNode results = publishVerbose(batch);
            for (int i = 0; i < batch.size(); i++) {
                JsonNode result = results.get(i);
                String key = batch.get(i);
                Ledger.Ack ack = acknowledged.get(key);
                long expected = ack.offset();
                if (!"duplicate".equals(result.path("status").asText())) {
                    report.notDeduplicated.add(key + " (acknowledged at " + expected + ") re-published as "
                            + result);
                } else if (result.path("offset").asLong() != expected
                        || result.path("partition").asInt(0) != ack.partition()) {
                    report.wrongOriginalOffset.add(key + " (acknowledged at " + expected + ") re-published as "
                            + result);
                }
            }
            report.republished += batch.size();
        }
    }

    private void republishSample(Map<String, Ledger.Ack> acknowledged, Random random, Report report)
            throws IOException, InterruptedException {
        List<String> keys = new ArrayList<>(acknowledged.keySet());
        Collections.shuffle(keys, random);
        for (String key : keys.subList(0, Math.min(SINGLE_REPUBLISH_SAMPLE, keys.size()))) {
            HttpResponse<String> response = publish("", Load.event(key, new SplittableRandom(1)));
            JsonNode body = response.statusCode() == 200 ? JSON.readTree(response.body()) : null;
            Ledger.Ack ack = acknowledged.get(key);
            long expected = ack.offset();
            String answer = key + " (acknowledged at " + expected + ") re-published alone: HTTP "
                    + response.statusCode() + " " + response.body();
            // A partitioned stream answers its partitions' offsets in partitions, and last_offset null.
            JsonNode part = body == null || body.path("last_offset").isNumber() ? null : body.path("partitions")
                    .path(0);
            if (body == null || body.path("deduplicated").asLong() != 1 || body.path("accepted").asLong() != 0) {
                report.notDeduplicated.add(answer);
            } else if (part == null ? body.path("last_offset").asLong() != expected
                    : part.path("last_offset").asLong() != expected || part.path("partition").asInt() != ack
                            .partition()) {
                report.wrongOriginalOffset.add(answer);
            }
            report.republished++;
        }
    }

    /**
     * Publishes the keys of every unanswered request again, as a client retrying would; afterwards each is stored
     * exactly once. A request is atomic, so of one unanswered request the log must hold all keys or none.
     */
    Retry retry(Ledger ledger) throws IOException, InterruptedException {
        List<List<String>> requests = ledger.takeInDoubt();
        List<String> keys = new ArrayList<>();
        requests.forEach(keys::addAll);
        Map<String, String> statusOfKey = new HashMap<>();
        int alreadyStored = 0;
        int newlyStored = 0;
        List<String> problems = new ArrayList<>();
        for (int from = 0; from < keys.size(); from += REPUBLISH_BATCH) {
            List<String> batch = keys.subList(from, Math.min(keys.size(), from + REPUBLISH_BATCH));
            HttpResponse<String> response = publish("?verbose=true", Load.batch(batch));
            if (response.statusCode() != 200) {
                throw new IllegalStateException("retrying in-doubt keys answered " + response.statusCode() + ": "
                        + response.body());
            }
            JsonNode body = JSON.readTree(response.body());
            String requestId = body.path("request_id").asText();
            JsonNode results = body.get("results");
            for (int i = 0; i < batch.size(); i++) {
                JsonNode result = results.get(i);
                String status = result.path("status").asText();
                long offset = result.path("offset").asLong();
                statusOfKey.put(batch.get(i), status);
                if (status.equals("duplicate")) {
                    alreadyStored++;
                    ledger.acknowledge(batch.get(i), offset, null);
                } else if (status.equals("accepted")) {
                    newlyStored++;
                    ledger.acknowledge(batch.get(i), offset, requestId);
                } else {
                    problems.add(batch.get(i) + " retried as " + result);
                }
            }
        }
        for (List<String> request : requests) {
            long stored = request.stream().filter(key -> "duplicate".equals(statusOfKey.get(key))).count();
            if (stored != 0 && stored != request.size()) {
                problems.add("torn request: " + stored + " of its " + request.size() + " events were stored: "
                        + request);
            }
        }
        return new Retry(alreadyStored, newlyStored, problems);
    }

    private JsonNode publishVerbose(List<String> keys) throws IOException, InterruptedException {
        HttpResponse<String> response = publish("?verbose=true", Load.batch(keys));
        if (response.statusCode() != 200) {
            throw new IllegalStateException("re-publishing acknowledged keys answered " + response.statusCode() + ": "
                    + response.body());
        }
        JsonNode results = JSON.readTree(response.body()).get("results");
        if (results == null || results.size() != keys.size()) {
            throw new IllegalStateException("a verbose publish of " + keys.size() + " events answered "
                    + response.body());
        }
        return results;
    }

    private HttpResponse<String> publish(String query, String body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(server.resolve("/streams/" + STREAM + query))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
    }
}
