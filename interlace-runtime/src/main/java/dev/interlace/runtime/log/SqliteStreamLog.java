package dev.interlace.runtime.log;

import dev.interlace.runtime.health.ComponentHealth;

import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.SegmentListener;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The default {@link StreamLog}: one SQLite database in WAL mode with {@code synchronous=FULL}.
 *
 * <p>One writer thread owns the write connection. Appends queue up in front of it; it takes everything queued (up
 * to {@link LogSettings#maxGroupRequests()}), writes all of it in one transaction and commits once, so concurrent
 * requests share one fsync (group commit). Each request's futures complete only after that commit. Readers use
 * their own connections. Automatic checkpoints are off on the writer; a background connection checkpoints every
 * 250 ms, and the writer starts a fully copied WAL over between two groups ({@link WalCheckpointer}).
 *
 * <p>This class is the façade; its collaborators, package-private, each hold one concern: {@link LogWriter} (the
 * writer thread, group commit, registration, trims, recovery after failed writes) with {@link AppendWriter} (the
 * rows of one request: deduplication, backpressure), {@link StreamStates} (registration, positions and keys, trims,
 * published heads) and {@link PublishIndex} (publish-record ids, their copy and request-id index), all owned by the
 * writer, with {@link QuarantineWriter} (replays: the append and the marks on quarantined entries in one
 * transaction); {@link ConsumerGroupTable} (lease, commit and release decisions, run on the writer thread);
 * {@link SqliteLogReads} (reads and long polls on the readers' connections, shared with {@link SqliteLogFollower});
 * {@link LogConnections} (opening connections, the readers' pool); {@link LogSchema} (tables and migrations);
 * {@link WalCheckpointer} (background checkpoints).
 */
public final class SqliteStreamLog extends SqliteLogReads {

    static final String FILE_NAME = "log.sqlite";

    private final Path file;
    private final LogWriter writer;
    private final ConsumerGroupTable consumerGroups;
    private final WalCheckpointer checkpointer;

    /**
     * Opens (creating if needed) {@code <dataDirectory>/log.sqlite}.
     *
     * @throws LogUnavailableException when the database cannot be opened
     */
    public SqliteStreamLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, CommitListener listener,
            Clock clock) {
        this(dataDirectory, settings, watermarks, listener, clock, SegmentListener.NONE);
    }

    /**
     * Opens (creating if needed) {@code <dataDirectory>/log.sqlite}, telling {@code segmentListener} of the
     * deduplication index's file steps.
     *
     * @throws LogUnavailableException when the database cannot be opened
     */
    public SqliteStreamLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, CommitListener listener,
            Clock clock, SegmentListener segmentListener) {
        this(dataDirectory, settings, watermarks, listener, clock, segmentListener, ComponentHealth.unwatched());
    }

    /**
     * The same, reporting a failure of the writer, its acknowledging thread or a deduplication index's seal to
     * {@code components}.
     */
    public SqliteStreamLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, CommitListener listener,
            Clock clock, SegmentListener segmentListener, ComponentHealth components) {
        super(new LogConnections(dataDirectory.resolve(FILE_NAME)));
        this.file = dataDirectory.resolve(FILE_NAME);
        this.consumerGroups = new ConsumerGroupTable(connections);
        try {
            Files.createDirectories(dataDirectory);
            writer = new LogWriter(connections, settings, watermarks, listener, clock, heads, advances,
                    appendListeners, segmentListener, components);
        } catch (SQLException | IOException e) {
            throw new LogUnavailableException("cannot open the stream log " + file + ": " + e.getMessage(), e);
        }
        writer.start();
        checkpointer = new WalCheckpointer(connections, settings, writer::checkpointBetweenGroups);
    }

    /**
     * {@code VACUUM INTO} on a connection of its own: one read transaction, so the copy is the log as of one commit,
     * while the writer goes on appending; the background checkpoints stay passive meanwhile.
     */
    @Override
    public List<String> snapshotInto(Path directory) throws IOException {
        Path copy = directory.resolve(FILE_NAME);
        try {
            checkpointer.duringSnapshot(() -> {
                try (java.sql.Connection connection = connections.open();
                        java.sql.PreparedStatement vacuum = connection.prepareStatement("VACUUM INTO ?")) {
                    vacuum.setString(1, copy.toString());
                    vacuum.execute();
                }
                return null;
            });
        } catch (SQLException e) {
            throw new IOException("cannot copy the stream log " + file + " to " + copy + ": " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("cannot copy the stream log " + file + ": " + e.getMessage(), e);
        }
        return List.of(FILE_NAME);
    }

    @Override
    public void register(StreamDescriptor stream) {
        writer.register(stream);
    }

    @Override
    public Optional<DedupIndex.Stats> dedupStats(String stream) {
        return writer.dedupStats(stream);
    }

    @Override
    public CompletableFuture<AppendResult> append(AppendRequest request) {
        if (!heads.containsKey(request.stream())) {
            // Refused here, so that one bad request never fails the other requests of its group commit.
            return CompletableFuture.failedFuture(new IllegalArgumentException("stream " + request.stream()
                    + " is not registered with the log"));
        }
        return writer.append(request);
    }

    /** The writer's queue takes it; the writer thread does the rest. */
    @Override
    public boolean appendReturnsAtOnce() {
        return true;
    }

    @Override
    public CompletableFuture<ReplayResult> replay(ReplayRequest request) {
        if (!heads.containsKey(request.stream())) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("stream " + request.stream()
                    + " is not registered with the log"));
        }
        return writer.replay(request);
    }

    @Override
    public long trim(String stream, long throughOffset) {
        return writer.trim(stream, throughOffset);
    }

    @Override
    public Leases.LeaseResult lease(String stream, String group, String owner, Duration ttl, Leases.Actor actor) {
        return writer.group(stream, (connection, state, now) -> consumerGroups.decide(connection, state, group, now,
                current -> GroupRules.lease(stream, group, current, owner, ttl, actor, now)));
    }

    @Override
    public Leases.CommitResult commit(String stream, String group, Leases.Token token, long offset,
            Leases.Actor actor) {
        return writer.group(stream, (connection, state, now) -> consumerGroups.decide(connection, state, group, now,
                current -> GroupRules.commit(current, token, offset, state.head, actor, now)));
    }

    @Override
    public Leases.ReleaseResult release(String stream, String group, Leases.Token token, Leases.Actor actor) {
        return writer.group(stream, (connection, state, now) -> consumerGroups.decide(connection, state, group, now,
                current -> GroupRules.release(current, token, actor, now)));
    }

    @Override
    public Leases.Group grant(String stream, String group, String keyId) {
        return writer.group(stream, (connection, state, now) -> consumerGroups.decide(connection, state, group, now,
                current -> GroupRules.grant(stream, group, current, keyId)));
    }

    @Override
    public List<Leases.Group> groups(String stream) {
        return consumerGroups.groups(stream);
    }

    /** Reads a pragma on the writer connection, e.g. {@code synchronous} or {@code journal_mode}. */
    public String writerPragma(String name) {
        if (!name.matches("[a-z_]+")) {
            throw new IllegalArgumentException("not a pragma name: " + name);
        }
        return writer.pragma(name);
    }

    @Override
    public long trimPublishes(long beforeMicros) {
        return writer.trimPublishes(beforeMicros);
    }

    @Override
    public Health health() {
        if (isClosed()) {
            return new Health(false, "the stream log is closed");
        }
        String problem = writer.failure();
        return problem == null ? Health.ok() : new Health(false, problem);
    }

    @Override
    void closeOnce() {
        connections.closing();
        writer.close(() -> {
            checkpointer.close();
            connections.closeReaders();
        });
    }
}
