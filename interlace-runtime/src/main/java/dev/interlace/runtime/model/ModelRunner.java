package dev.interlace.runtime.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.interlace.annotations.Materialise;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.RequestIds;
import dev.interlace.runtime.warehouse.Warehouse;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs models after flushes: one run is one pass over the affected part of the DAG in topological order, on a thread
 * of its own so a slow model never delays flushing. At most one run waits at a time; triggers that arrive while one
 * waits join it ({@code triggers}). A failing model is recorded with its error and its dependants are skipped; the
 * rest of the run goes on, and the next trigger retries.
 *
 * <p>Runs and model watermarks live in the warehouse, schema {@code interlace}. An incremental model's output and
 * its watermarks commit in one transaction, so each stream row is processed exactly once.
 */
public final class ModelRunner implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ModelRunner.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DELTA_PREFIX = "__interlace_delta_";

    private final ModelGraph graph;
    private final Warehouse warehouse;
    private final Clock clock;
    private final RequestIds ids;
    private final ModelListener listener;
    private final ExecutorService executor;
    private final ReentrantLock lock = new ReentrantLock();
    private PendingRun pending;
    /** The run taken from {@link #pending} whose record is being written; guarded by {@link #lock}. */
    private PendingRun starting;
    /** Runs queued or running; guarded by {@link #lock}. */
    private int active;

    public ModelRunner(ModelGraph graph, Warehouse warehouse, Clock clock, RequestIds ids, ModelListener listener) {
        this.graph = graph;
        this.warehouse = warehouse;
        this.clock = clock;
        this.ids = ids;
        this.listener = listener;
        this.executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "interlace-models");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Creates the bookkeeping tables, finishes runs a crash interrupted, and queues models left stale by downtime. */
    public void start() {
        try (Connection c = warehouse.connect(); Statement statement = c.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS interlace");
            statement.execute("CREATE TABLE IF NOT EXISTS interlace.runs (id VARCHAR PRIMARY KEY,"
                    + " \"trigger\" VARCHAR NOT NULL, triggers JSON NOT NULL, status VARCHAR NOT NULL,"
                    + " queued_at TIMESTAMP NOT NULL, started_at TIMESTAMP, finished_at TIMESTAMP)");
            statement.execute("CREATE TABLE IF NOT EXISTS interlace.run_models (run_id VARCHAR NOT NULL,"
                    + " position INTEGER NOT NULL, model VARCHAR NOT NULL, status VARCHAR NOT NULL, \"rows\" BIGINT,"
                    + " duration_ms BIGINT, error VARCHAR)");
            statement.execute("CREATE TABLE IF NOT EXISTS interlace.model_watermarks (model VARCHAR NOT NULL,"
                    + " stream VARCHAR NOT NULL, watermark BIGINT NOT NULL, PRIMARY KEY (model, stream))");
            try (PreparedStatement interrupted = c.prepareStatement("UPDATE interlace.runs SET status = 'failed',"
                    + " finished_at = ? WHERE status IN ('queued', 'running')")) {
                interrupted.setObject(1, time(micros())); // UTC, like every stored time
                interrupted.executeUpdate();
            }
        } catch (SQLException e) {
            throw new ModelException("cannot prepare the interlace schema: " + e.getMessage());
        }
        Set<String> stale = new LinkedHashSet<>();
        for (ModelDefinition model : graph.inOrder()) {
            if (model.materialise() == Materialise.VIEW ? !exists(model) : isStale(model)) {
                stale.addAll(graph.withDependants(model.name()));
            }
        }
        if (!stale.isEmpty()) {
            trigger("startup", stale);
        }
    }

    /** Called after a flush committed new rows of {@code stream}. */
    public void streamFlushed(String stream, long watermark) {
        Set<String> affected = graph.affectedByStream(stream);
        if (!affected.isEmpty()) {
            trigger("stream:" + stream + ":" + watermark, affected);
        }
    }

    /**
     * Queues a run of {@code model} and its dependants.
     *
     * @return the run's id
     * @throws IllegalArgumentException when there is no such model
     */
    public String runManually(String model) {
        if (graph.model(model) == null) {
            throw new IllegalArgumentException("no model is named " + model);
        }
        return trigger("manual", graph.withDependants(model));
    }

    /** Whether a model of that name exists. */
    public boolean hasModel(String name) {
        return graph.model(name) != null;
    }

    /** Queues the models, joining the run already waiting if there is one; returns the run's id. */
    String trigger(String trigger, Set<String> models) {
        lock.lock();
        try {
            // Only memory here: triggers come from the flush threads, which must not wait on run bookkeeping. The
            // run is recorded when it starts (GET /runs shows the waiting one from memory until then).
            if (pending != null) {
                pending.triggers.add(trigger);
                pending.models.addAll(models);
                return pending.id;
            }
            PendingRun run = new PendingRun(ids.mintWithPrefix("run-"), trigger, micros());
            run.models.addAll(models);
            pending = run;
            active++;
            executor.execute(this::runPending);
            return run.id;
        } finally {
            lock.unlock();
        }
    }

    private void runPending() {
        PendingRun run;
        lock.lock();
        try {
            run = pending;
            pending = null;
            starting = run;
        } finally {
            lock.unlock();
        }
        if (run == null) {
            return;
        }
        try {
            execute(run);
        } finally {
            lock.lock();
            try {
                active--;
            } finally {
                lock.unlock();
            }
        }
    }

    private void execute(PendingRun run) {
        long started = micros();
        insertStarted(run, started);
        lock.lock();
        try {
            starting = null;
        } finally {
            lock.unlock();
        }
        List<RunRecord.ModelResult> results = new ArrayList<>();
        Map<String, String> failed = new HashMap<>();
        for (ModelDefinition model : graph.inOrder()) {
            if (!run.models.contains(model.name())) {
                continue;
            }
            String blockedBy = graph.modelsReadBy(model.name()).stream().filter(failed::containsKey).findFirst()
                    .orElse(null);
            if (blockedBy != null) {
                String reason = "skipped: input model " + blockedBy + " " + (failed.get(blockedBy) == null
                        ? "failed" : "was skipped");
                failed.put(model.name(), reason);
                results.add(new RunRecord.ModelResult(model.name(), "skipped", 0, 0, reason));
                continue;
            }
            long start = System.nanoTime();
            try {
                long rows = materialise(model);
                results.add(new RunRecord.ModelResult(model.name(), "succeeded", rows,
                        (System.nanoTime() - start) / 1_000_000, null));
            } catch (SQLException | RuntimeException e) {
                failed.put(model.name(), null);
                LOG.log(Level.WARNING, "model " + model.name() + " failed in run " + run.id, e);
                results.add(new RunRecord.ModelResult(model.name(), "failed", 0,
                        (System.nanoTime() - start) / 1_000_000, String.valueOf(e.getMessage())));
            }
        }
        boolean anyFailed = results.stream().anyMatch(result -> result.status().equals("failed"));
        String status = anyFailed ? "failed" : "succeeded";
        finish(run.id, status, results);
        listener.runFinished(new RunRecord(run.id, run.trigger, List.copyOf(run.triggers), status,
                run.queuedAtMicros, started, micros(), List.copyOf(results)));
    }

    /** Brings one model up to date; returns the rows written. */
    private long materialise(ModelDefinition model) throws SQLException {
        try (Connection c = warehouse.connect(); Statement statement = c.createStatement()) {
            c.setAutoCommit(false);
            try {
                // First in the transaction: the watermarks must come from the same snapshot as the rows read below,
                // or rows of a flush committed in between would be skipped while the model's watermark passes them.
                Map<String, Long> streamWatermarks = flushedWatermarks(c, model);
                statement.execute("CREATE SCHEMA IF NOT EXISTS " + quote(model.schema()));
                String target = quote(model.schema()) + "." + quote(model.name());
                long rows;
                if (model.javaModel() != null) {
                    rows = runJava(model, c, statement, streamWatermarks);
                } else switch (model.materialise()) {
                    case VIEW -> {
                        statement.execute("CREATE OR REPLACE VIEW " + target + " AS " + model.sql());
                        rows = 0;
                    }
                    case TABLE -> {
                        statement.execute("CREATE OR REPLACE TABLE " + target + " AS " + model.sql());
                        rows = count(statement, "SELECT count(*) FROM " + target);
                    }
                    default -> rows = incremental(model, target, statement, streamWatermarks);
                }
                for (Map.Entry<String, Long> watermark : streamWatermarks.entrySet()) {
                    try (PreparedStatement record = c.prepareStatement("INSERT OR REPLACE INTO"
                            + " interlace.model_watermarks VALUES (?, ?, ?)")) {
                        record.setString(1, model.name());
                        record.setString(2, watermark.getKey());
                        record.setLong(3, watermark.getValue());
                        record.executeUpdate();
                    }
                }
                listener.beforeCommit(model.name());
                c.commit();
                return rows;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /**
     * Runs an incremental model over the rows each stream flushed since the model's watermark: {@code streams.X} in
     * its SQL is rewritten (by the warehouse's parser) to a view of only those rows.
     */
    private long incremental(ModelDefinition model, String target, Statement statement,
            Map<String, Long> streamWatermarks) throws SQLException {
        Map<String, String> replacements = new LinkedHashMap<>();
        for (Map.Entry<String, Long> stream : streamWatermarks.entrySet()) {
            long from = modelWatermark(statement.getConnection(), model.name(), stream.getKey());
            String view = DELTA_PREFIX + stream.getKey();
            statement.execute("CREATE OR REPLACE TEMP VIEW " + quote(view) + " AS SELECT * FROM streams."
                    + quote(stream.getKey()) + " WHERE _offset > " + from + " AND _offset <= " + stream.getValue());
            replacements.put("streams." + stream.getKey(), view);
        }
        String delta = warehouse.replaceTables(model.sql(), replacements);
        statement.execute("CREATE TABLE IF NOT EXISTS " + target + " AS SELECT * FROM (" + delta + ") WHERE false");
        statement.execute("CREATE OR REPLACE TEMP TABLE __interlace_output AS " + delta);
        if (model.uniqueKey() != null) {
            statement.execute("DELETE FROM " + target + " WHERE " + quote(model.uniqueKey()) + " IN (SELECT "
                    + quote(model.uniqueKey()) + " FROM __interlace_output)");
        }
        statement.execute("INSERT INTO " + target + " BY NAME SELECT * FROM __interlace_output");
        long rows = count(statement, "SELECT count(*) FROM __interlace_output");
        statement.execute("DROP TABLE __interlace_output");
        listener.afterOutput(model.name(), rows);
        return rows;
    }

    private long runJava(ModelDefinition model, Connection c, Statement statement, Map<String, Long> streamWatermarks)
            throws SQLException {
        Map<String, ModelContext.Delta> deltas = new LinkedHashMap<>();
        if (model.materialise() == Materialise.INCREMENTAL) {
            for (Map.Entry<String, Long> stream : streamWatermarks.entrySet()) {
                deltas.put(stream.getKey(), new ModelContext.Delta(stream.getKey(),
                        modelWatermark(c, model.name(), stream.getKey()), stream.getValue()));
            }
        }
        long rows;
        try {
            rows = model.javaModel().run(new ModelContext(c, model.schema(), model.name(), deltas));
        } catch (SQLException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        if (model.materialise() == Materialise.INCREMENTAL) {
            listener.afterOutput(model.name(), rows);
        }
        return rows;
    }

    private Map<String, Long> flushedWatermarks(Connection c, ModelDefinition model) throws SQLException {
        Map<String, Long> watermarks = new LinkedHashMap<>();
        try (PreparedStatement select = c.prepareStatement(
                "SELECT watermark FROM streams._watermarks WHERE stream = ?")) {
            for (String stream : graph.streamsReadBy(model.name())) {
                select.setString(1, Warehouse.Target.events(stream).key());
                try (ResultSet row = select.executeQuery()) {
                    watermarks.put(stream, row.next() ? row.getLong(1) : 0);
                }
            }
        }
        return watermarks;
    }

    private static long modelWatermark(Connection c, String model, String stream) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(
                "SELECT watermark FROM interlace.model_watermarks WHERE model = ? AND stream = ?")) {
            select.setString(1, model);
            select.setString(2, stream);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }

    private boolean isStale(ModelDefinition model) {
        if (!exists(model)) {
            return true;
        }
        try (Connection c = warehouse.connect()) {
            for (String stream : graph.streamsReadBy(model.name())) {
                if (warehouse.watermark(Warehouse.Target.events(stream)) > modelWatermark(c, model.name(), stream)) {
                    return true;
                }
            }
            return false;
        } catch (SQLException e) {
            throw new ModelException("cannot read the watermarks of model " + model.name() + ": " + e.getMessage());
        }
    }

    private boolean exists(ModelDefinition model) {
        try (Connection c = warehouse.connect(); PreparedStatement select = c.prepareStatement(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?")) {
            select.setString(1, model.schema());
            select.setString(2, model.name());
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1) > 0;
            }
        } catch (SQLException e) {
            throw new ModelException("cannot inspect model " + model.name() + ": " + e.getMessage());
        }
    }

    // ---------------------------------------------------------------- run records

    private void insertStarted(PendingRun run, long startedMicros) {
        try (Connection c = warehouse.connect(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO interlace.runs VALUES (?, ?, ?::JSON, 'running', ?, ?, NULL)")) {
            insert.setString(1, run.id);
            insert.setString(2, run.trigger);
            insert.setString(3, triggersJson(run));
            insert.setObject(4, time(run.queuedAtMicros));
            insert.setObject(5, time(startedMicros));
            insert.executeUpdate();
        } catch (SQLException e) {
            LOG.log(Level.WARNING, "cannot record run " + run.id, e);
        }
    }

    /** The run waiting to start (or whose record is being written), if it matches {@code filter}. */
    private Optional<RunRecord> waiting(RunFilter filter) {
        lock.lock();
        try {
            PendingRun run = pending != null ? pending : starting;
            if (run == null) {
                return Optional.empty();
            }
            String status = run == pending ? "queued" : "running";
            RunRecord record = new RunRecord(run.id, run.trigger, List.copyOf(run.triggers), status,
                    run.queuedAtMicros, 0, 0, List.of());
            boolean matches = (filter.model() == null || run.models.contains(filter.model()))
                    && (filter.status() == null || filter.status().equals(status))
                    && (filter.trigger() == null || run.triggers.contains(filter.trigger()))
                    && (filter.sinceMicros() == null || run.queuedAtMicros >= filter.sinceMicros())
                    && (filter.untilMicros() == null || run.queuedAtMicros < filter.untilMicros());
            return matches ? Optional.of(record) : Optional.empty();
        } finally {
            lock.unlock();
        }
    }

    private void finish(String id, String status, List<RunRecord.ModelResult> results) {
        try (Connection c = warehouse.connect()) {
            c.setAutoCommit(false);
            try (PreparedStatement update = c.prepareStatement(
                    "UPDATE interlace.runs SET status = ?, finished_at = ? WHERE id = ?");
                    PreparedStatement insert = c.prepareStatement(
                            "INSERT INTO interlace.run_models VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                update.setString(1, status);
                update.setObject(2, time(micros()));
                update.setString(3, id);
                update.executeUpdate();
                for (int i = 0; i < results.size(); i++) {
                    RunRecord.ModelResult result = results.get(i);
                    insert.setString(1, id);
                    insert.setInt(2, i);
                    insert.setString(3, result.name());
                    insert.setString(4, result.status());
                    insert.setLong(5, result.rows());
                    insert.setLong(6, result.durationMillis());
                    insert.setString(7, result.error());
                    insert.executeUpdate();
                }
            }
            c.commit();
        } catch (SQLException e) {
            LOG.log(Level.WARNING, "cannot record the end of run " + id, e);
        }
    }

    /** Runs matching the filters, newest first, and how many match in all. */
    public RunPage runs(RunFilter filter) {
        StringBuilder where = new StringBuilder(" WHERE true");
        List<Object> parameters = new ArrayList<>();
        if (filter.model() != null) {
            where.append(" AND id IN (SELECT run_id FROM interlace.run_models WHERE model = ?)");
            parameters.add(filter.model());
        }
        if (filter.status() != null) {
            where.append(" AND status = ?");
            parameters.add(filter.status());
        }
        if (filter.trigger() != null) {
            // Any of the triggers coalesced into the run (the first one is also in the list).
            where.append(" AND list_contains(from_json(triggers, '[\"VARCHAR\"]'), ?)");
            parameters.add(filter.trigger());
        }
        if (filter.sinceMicros() != null) {
            where.append(" AND queued_at >= ?");
            parameters.add(time(filter.sinceMicros()));
        }
        if (filter.untilMicros() != null) {
            where.append(" AND queued_at < ?");
            parameters.add(time(filter.untilMicros()));
        }
        try (Connection c = warehouse.connect()) {
            long total;
            try (PreparedStatement count = c.prepareStatement("SELECT count(*) FROM interlace.runs" + where)) {
                bind(count, parameters);
                try (ResultSet row = count.executeQuery()) {
                    row.next();
                    total = row.getLong(1);
                }
            }
            List<RunRecord> runs = new ArrayList<>();
            Optional<RunRecord> waiting = waiting(filter);
            if (waiting.isPresent()) {
                runs.add(waiting.get());
                total++;
            }
            try (PreparedStatement select = c.prepareStatement("SELECT id FROM interlace.runs" + where
                    + " ORDER BY queued_at DESC, id DESC LIMIT " + filter.limit())) {
                bind(select, parameters);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        if (runs.size() < filter.limit()) {
                            run(c, rows.getString(1), false).ifPresent(runs::add);
                        }
                    }
                }
            }
            return new RunPage(runs, total);
        } catch (SQLException e) {
            throw new ModelException("cannot read the runs: " + e.getMessage());
        }
    }

    /** One run with its models. */
    public Optional<RunRecord> run(String id) {
        Optional<RunRecord> waiting = waiting(new RunFilter(null, null, null, null, null, 1));
        if (waiting.isPresent() && waiting.get().id().equals(id)) {
            return waiting;
        }
        try (Connection c = warehouse.connect()) {
            return run(c, id, true);
        } catch (SQLException e) {
            throw new ModelException("cannot read run " + id + ": " + e.getMessage());
        }
    }

    private static Optional<RunRecord> run(Connection c, String id, boolean withModels) throws SQLException {
        RunRecord record;
        try (PreparedStatement select = c.prepareStatement("SELECT \"trigger\", triggers, status, queued_at,"
                + " started_at, finished_at FROM interlace.runs WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                List<String> triggers = new ArrayList<>();
                try {
                    JSON.readTree(row.getString(2)).forEach(trigger -> triggers.add(trigger.asText()));
                } catch (IOException e) {
                    triggers.add(row.getString(1));
                }
                record = new RunRecord(id, row.getString(1), triggers, row.getString(3), micros(row, 4),
                        micros(row, 5), micros(row, 6), List.of());
            }
        }
        if (!withModels) {
            return Optional.of(record);
        }
        List<RunRecord.ModelResult> models = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement("SELECT model, status, \"rows\", duration_ms, error"
                + " FROM interlace.run_models WHERE run_id = ? ORDER BY position")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    models.add(new RunRecord.ModelResult(rows.getString(1), rows.getString(2), rows.getLong(3),
                            rows.getLong(4), rows.getString(5)));
                }
            }
        }
        return Optional.of(new RunRecord(record.id(), record.trigger(), record.triggers(), record.status(),
                record.queuedAtMicros(), record.startedAtMicros(), record.finishedAtMicros(), models));
    }

    /** Waits until no run is queued or running (tests, shutdown); returns whether that happened in time. */
    public boolean awaitIdle(java.time.Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            lock.lock();
            try {
                if (active == 0) {
                    return true;
                }
            } finally {
                lock.unlock();
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    @Override
    public void close() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            executor.shutdownNow();
        }
    }

    /** Filters of {@code GET /runs}; null means any. */
    public record RunFilter(String model, String status, String trigger, Long sinceMicros, Long untilMicros,
            int limit) {}

    /** A page of runs and the total matching the filters. */
    public record RunPage(List<RunRecord> runs, long total) {}

    private static void bind(PreparedStatement statement, List<Object> parameters) throws SQLException {
        for (int i = 0; i < parameters.size(); i++) {
            statement.setObject(i + 1, parameters.get(i));
        }
    }

    private static long count(Statement statement, String sql) throws SQLException {
        try (ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }

    private static long micros(ResultSet row, int column) throws SQLException {
        LocalDateTime time = row.getObject(column, LocalDateTime.class);
        if (time == null) {
            return 0;
        }
        return EpochMicros.of(time.toInstant(ZoneOffset.UTC));
    }

    private static LocalDateTime time(long micros) {
        return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                (int) Math.floorMod(micros, 1_000_000L) * 1_000, ZoneOffset.UTC);
    }

    private long micros() {
        return EpochMicros.now(clock);
    }

    private static String triggersJson(PendingRun run) {
        ArrayNode triggers = JSON.createArrayNode();
        run.triggers.forEach(triggers::add);
        return triggers.toString();
    }

    private static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    /** A run not started yet; triggers coalesce into it. */
    private static final class PendingRun {
        final String id;
        final String trigger;
        final long queuedAtMicros;
        final List<String> triggers = new ArrayList<>();
        final Set<String> models = new HashSet<>();

        PendingRun(String id, String trigger, long queuedAtMicros) {
            this.id = id;
            this.trigger = trigger;
            this.queuedAtMicros = queuedAtMicros;
            triggers.add(trigger);
        }
    }
}
