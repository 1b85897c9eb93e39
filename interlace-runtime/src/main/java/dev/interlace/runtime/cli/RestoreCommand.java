package dev.interlace.runtime.cli;

import dev.interlace.runtime.backup.BackupException;
import dev.interlace.runtime.backup.BackupManifest;
import dev.interlace.runtime.backup.Restore;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * {@code interlace restore DIR --data-dir NEW}: offline, checks every file of a backup against its manifest and lays
 * it out as a new data directory, on which {@code interlace serve --data-dir NEW} starts.
 */
final class RestoreCommand extends Command {

    RestoreCommand() {
        super("restore",
                "DIR --data-dir NEW",
                "check a backup and lay it out as a new data directory (no server needed)");
    }

    @Override
    public String help() {
        return """
                  DIR             the backup's directory (interlace backup --to DIR wrote it)
                  --data-dir NEW  the data directory to create: it must not exist or be empty
                Every file is checked against the SHA-256 in the backup's manifest; a missing or damaged file is
                named and nothing is restored. Then: interlace serve --data-dir NEW
                """;
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        Arguments arguments = Arguments.parse(args, null, Set.of(), Set.of("--data-dir"));
        String backup = arguments.single("backup directory");
        String dataDirectory = arguments.value("--data-dir");
        if (dataDirectory == null) {
            throw new UsageException("restore needs --data-dir NEW, the data directory to create");
        }
        BackupManifest manifest;
        try {
            manifest = Restore.restore(Path.of(backup), Path.of(dataDirectory));
        } catch (BackupException e) {
            throw new CommandFailedException(e.getMessage());
        }
        long bytes = manifest.files().stream().mapToLong(BackupManifest.FileEntry::bytes).sum();
        out.println("restored " + manifest.files().size() + " files (" + bytes + " bytes, every checksum verified)"
                + " into " + Path.of(dataDirectory).toAbsolutePath().normalize());
        if ("kafka".equals(manifest.log())) {
            out.println("the events are in the Kafka cluster, not in the backup: the warehouse catches up from the"
                    + " positions below, as long as the topics still hold them");
        }
        manifest.streams().forEach((stream, positions) -> out.println("  " + stream + ": log head "
                + positions.logHead() + ", flushed " + positions.flushed()));
        out.println("start it with: interlace serve --data-dir " + dataDirectory);
        return 0;
    }
}
