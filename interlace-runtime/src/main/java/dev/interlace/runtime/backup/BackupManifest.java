package dev.interlace.runtime.backup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code manifest.json} of a backup: when it was taken, on which log, each stream's positions, and every file with
 * its size and SHA-256. It is written last, so a directory without one is a backup that did not finish.
 *
 * @param format the manifest's version ({@value #FORMAT})
 * @param log the log the server ran on: {@code sqlite} (the log is in the backup) or {@code kafka} (it is not)
 * @param startedAtMicros when the backup began, epoch microseconds
 * @param tookMillis how long it took
 * @param streams each stream's positions, by name
 * @param files every file of the backup
 */
public record BackupManifest(int format, String log, long startedAtMicros, long tookMillis,
        Map<String, Positions> streams, List<FileEntry> files) {

    /** The manifest's file name in a backup's directory. */
    public static final String FILE_NAME = "manifest.json";
    static final int FORMAT = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One stream's positions in the backup.
     *
     * @param logHead the log's head when the log's copy began: the copy holds every event up to it (on the Kafka log,
     *     the cluster's head as this node saw it; the events are in Kafka, not in the backup)
     * @param quarantineHead the same for its quarantine
     * @param flushed the warehouse copy's watermark: the events up to it are in its tables; after a restore the
     *     flusher goes on from there
     * @param quarantineFlushed the same for its quarantine table
     */
    public record Positions(long logHead, long quarantineHead, long flushed, long quarantineFlushed) {}

    /** A file of the backup: its name within the directory, its size and its SHA-256 (hex). */
    public record FileEntry(String name, long bytes, String sha256) {}

    /** The manifest as JSON. */
    public ObjectNode toJson() {
        ObjectNode body = JSON.createObjectNode();
        body.put("format", format);
        body.put("log", log);
        body.put("started_at_micros", startedAtMicros);
        body.put("took_ms", tookMillis);
        ObjectNode byStream = body.putObject("streams");
        streams.forEach((name, positions) -> {
            ObjectNode stream = byStream.putObject(name);
            stream.put("log_head", positions.logHead());
            stream.put("quarantine_head", positions.quarantineHead());
            stream.put("flushed", positions.flushed());
            stream.put("quarantine_flushed", positions.quarantineFlushed());
        });
        ArrayNode list = body.putArray("files");
        for (FileEntry file : files) {
            list.addObject().put("name", file.name()).put("bytes", file.bytes()).put("sha256", file.sha256());
        }
        return body;
    }

    /** Writes the manifest into {@code directory}: a temporary file, forced, renamed, the directory forced. */
    void writeInto(Path directory) throws IOException {
        Path temporary = directory.resolve(FILE_NAME + ".tmp");
        BackupFiles.writeDurably(temporary, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(toJson()));
        Files.move(temporary, directory.resolve(FILE_NAME), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        BackupFiles.forceDirectory(directory);
    }

    /**
     * Reads the manifest of the backup in {@code directory}.
     *
     * @throws BackupException ({@link BackupException.Reason#CORRUPT}) when there is none or it cannot be read
     */
    public static BackupManifest readFrom(Path directory) throws BackupException {
        Path file = directory.resolve(FILE_NAME);
        JsonNode body;
        try {
            body = JSON.readTree(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            throw new BackupException(BackupException.Reason.CORRUPT, "no " + FILE_NAME + " in " + directory
                    + ": not a backup, or a backup that did not finish (its manifest is written last)");
        } catch (IOException e) {
            throw new BackupException(BackupException.Reason.CORRUPT, "cannot read " + file + ": " + e.getMessage()
                    + "; the backup is damaged", e);
        }
        if (body == null || body.path("format").asInt() != FORMAT || !body.path("files").isArray()) {
            throw new BackupException(BackupException.Reason.CORRUPT, file + " is not a backup manifest of format "
                    + FORMAT + "; the backup is damaged, or was written by another version");
        }
        Map<String, Positions> streams = new LinkedHashMap<>();
        body.path("streams").fields().forEachRemaining(entry -> streams.put(entry.getKey(), new Positions(
                entry.getValue().path("log_head").asLong(), entry.getValue().path("quarantine_head").asLong(),
                entry.getValue().path("flushed").asLong(), entry.getValue().path("quarantine_flushed").asLong())));
        List<FileEntry> files = new ArrayList<>();
        for (JsonNode entry : body.path("files")) {
            String name = entry.path("name").asText("");
            if (name.isEmpty() || name.contains("/") || name.contains("\\") || name.startsWith(".")) {
                throw new BackupException(BackupException.Reason.CORRUPT, file + " names a file \"" + name
                        + "\" that cannot be part of a backup; the manifest is damaged");
            }
            files.add(new FileEntry(name, entry.path("bytes").asLong(), entry.path("sha256").asText("")));
        }
        return new BackupManifest(FORMAT, body.path("log").asText(""), body.path("started_at_micros").asLong(),
                body.path("took_ms").asLong(), streams, files);
    }
}
