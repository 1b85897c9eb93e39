package dev.interlace.runtime.backup;

import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.log.RetentionSweep;
import dev.interlace.runtime.records.SystemRecords;
import dev.interlace.runtime.warehouse.Warehouse;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An online backup, taken by the running server (only its process may open the warehouse and the log), while it
 * serves: the warehouse, then the log, then the system records, the key file and {@code interlace.properties}, then
 * {@code manifest.json} with each stream's positions and each file's SHA-256.
 *
 * <p>The order is what makes a restore exactly once. The warehouse's copy is taken first, with no write of it in
 * progress (rows and watermarks agree); the log's after it, in one read transaction. Every event the warehouse copy
 * has not flushed was in the log when that copy was taken, and is still in the log's copy: the retention sweep, the
 * only thing that removes events from the log, waits for both copies. So after a restore the flusher goes on from
 * the copied watermark and finds every later event in the copied log, and none twice. (Taken the other way round,
 * the warehouse could be ahead of the log: events in its tables that the restored log would hand out again.)
 */
@Singleton
public final class Backup {

    private final Path dataDirectory;
    /** Where backups may be written ({@code --backup-root}), absolute and normalised. */
    private final Path root;
    private final String logName;
    private final StreamLog log;
    private final Optional<Warehouse> warehouse;
    private final SystemRecords records;
    private final RetentionSweep retention;
    private final Clock clock;
    private final ReentrantLock running = new ReentrantLock();

    @Inject
    public Backup(InterlaceConfig config, StreamLog log, Optional<Warehouse> warehouse, SystemRecords records,
            RetentionSweep retention, Clock clock) {
        this.dataDirectory = config.dataDirectory();
        this.root = config.backupRoot();
        this.logName = config.log().backend();
        this.log = log;
        this.warehouse = warehouse;
        this.records = records;
        this.retention = retention;
        this.clock = clock;
    }

    /**
     * Takes a backup into {@code target}, a directory under the backup root ({@code --backup-root}) that does not
     * exist or is empty: an absolute path, or one relative to the root.
     *
     * @throws BackupException {@link BackupException.Reason#OUTSIDE_ROOT},
     *     {@link BackupException.Reason#INVALID_TARGET}, {@link BackupException.Reason#RUNNING} (one backup at a time),
     *     or {@link BackupException.Reason#FAILED} (the directory then has no manifest)
     */
    public BackupManifest take(Path target) throws BackupException {
        Path directory = directoryOf(target);
        if (!directory.startsWith(root) || directory.equals(root)) {
            throw new BackupException(BackupException.Reason.OUTSIDE_ROOT, directory + " is not inside " + root
                    + ", the directory this server writes backups under (--backup-root); name a directory in it,"
                    + " absolute or relative to it (e.g. \"nightly-1\")");
        }
        if (directory.startsWith(dataDirectory.toAbsolutePath().normalize())
                && !root.startsWith(dataDirectory.toAbsolutePath().normalize().resolve("backups"))) {
            throw new BackupException(BackupException.Reason.INVALID_TARGET, directory + " is inside the data"
                    + " directory; put the backup elsewhere (another disk, ideally)");
        }
        if (!running.tryLock()) {
            throw new BackupException(BackupException.Reason.RUNNING, "another backup is being taken by this server;"
                    + " try again once it has finished");
        }
        try {
            if (!BackupFiles.absentOrEmpty(directory)) {
                throw new BackupException(BackupException.Reason.INVALID_TARGET, directory + " exists and is not an"
                        + " empty directory; a backup goes into a new or empty directory");
            }
            Files.createDirectories(directory);
            return takeInto(directory);
        } catch (IOException e) {
            throw new BackupException(BackupException.Reason.FAILED, "the backup into " + directory + " failed: "
                    + e.getMessage() + "; the directory holds no manifest, so it is not a backup (remove it)", e);
        } finally {
            running.unlock();
        }
    }

    /** The directory a backup into {@code target} goes to: {@code target} resolved against the backup root. */
    public Path directoryOf(Path target) {
        return root.resolve(target).normalize();
    }

    private BackupManifest takeInto(Path directory) throws IOException {
        long startedNanos = System.nanoTime();
        long startedAtMicros = EpochMicros.now(clock);
        Map<String, StreamHead> heads = new TreeMap<>(log.heads());
        List<String> names = new ArrayList<>();
        Warehouse.Snapshot copied;
        try {
            copied = retention.paused(() -> {
                Warehouse.Snapshot snapshot = warehouse.isPresent() ? warehouse.get().snapshotInto(directory)
                        : new Warehouse.Snapshot(List.of(), Map.of());
                names.addAll(snapshot.files());
                names.addAll(log.snapshotInto(directory));
                return snapshot;
            });
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e.getMessage(), e);
        }
        names.addAll(records.snapshotInto(directory));
        for (String name : List.of(KeyFile.FILE_NAME, "interlace.properties")) {
            Path source = dataDirectory.resolve(name);
            if (Files.exists(source)) {
                // The key file is replaced by a rename on every change, so one read sees one version of it.
                BackupFiles.copy(source, directory.resolve(name));
                if (name.equals(KeyFile.FILE_NAME)) {
                    BackupFiles.ownerOnly(directory.resolve(name));
                }
                names.add(name);
            }
        }
        List<BackupManifest.FileEntry> files = new ArrayList<>();
        for (String name : names) {
            Path file = directory.resolve(name);
            BackupFiles.force(file);
            files.add(new BackupManifest.FileEntry(name, Files.size(file), BackupFiles.sha256(file)));
        }
        Map<String, BackupManifest.Positions> streams = new TreeMap<>();
        heads.forEach((name, head) -> streams.put(name, new BackupManifest.Positions(head.head(),
                head.quarantineHead(), copied.watermarks().getOrDefault(name, 0L),
                copied.watermarks().getOrDefault(name + "__quarantine", 0L))));
        BackupFiles.forceDirectory(directory);
        BackupManifest manifest = new BackupManifest(BackupManifest.FORMAT, logName, startedAtMicros,
                (System.nanoTime() - startedNanos) / 1_000_000, streams, files);
        manifest.writeInto(directory);
        return manifest;
    }
}
