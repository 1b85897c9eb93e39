package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.backup.Backup;
import dev.interlace.runtime.backup.BackupException;
import dev.interlace.runtime.backup.BackupManifest;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.records.SysEvent;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * {@code POST /admin/backup {"to": "dir"}} (admin): an online backup of this server's data directory into a
 * directory on the server's machine under its {@code --backup-root} ({@link Backup}; anywhere else is refused
 * {@code 400 backup_outside_root}); the answer is the backup's manifest. It runs on a worker for as
 * long as the copy takes, while publishes and queries go on.
 */
final class BackupRoutes implements RouteSet {

    private final Backup backup;
    private final SystemRecords records;
    private final Clock clock;

    @Inject
    BackupRoutes(Backup backup, SystemRecords records, Clock clock) {
        this.backup = backup;
        this.records = records;
        this.clock = clock;
    }

    @Override
    public void register(List<Route> routes) {
        routes.add(Route.blocking("POST", "/admin/backup", Access.ADMIN, this::backup));
    }

    private HttpAnswer backup(HttpRequest request, List<String> path, String requestId) {
        Path target = backup.directoryOf(target(request, requestId));
        BackupManifest manifest;
        try {
            manifest = backup.take(target);
        } catch (BackupException e) {
            if (e.reason() == BackupException.Reason.FAILED) {
                records.record(SysRecord.of(EpochMicros.now(clock), SysEvent.BACKUP, null, requestId,
                        e.getMessage()));
            }
            return HttpResponses.error(switch (e.reason()) {
                case INVALID_TARGET, CORRUPT -> ErrorCode.INVALID_BACKUP;
                case OUTSIDE_ROOT -> ErrorCode.BACKUP_OUTSIDE_ROOT;
                case RUNNING -> ErrorCode.BACKUP_RUNNING;
                case FAILED -> ErrorCode.BACKUP_FAILED;
            }, e.getMessage(), requestId);
        }
        long bytes = manifest.files().stream().mapToLong(BackupManifest.FileEntry::bytes).sum();
        records.record(SysRecord.of(EpochMicros.now(clock), SysEvent.BACKUP, null, requestId, "backup into " + target
                + " by " + request.caller().label() + ": " + manifest.files().size() + " files, " + bytes + " bytes in "
                + manifest.tookMillis() + " ms"));
        ObjectNode body = manifest.toJson();
        body.put("directory", target.toString());
        return HttpResponses.json(200, body);
    }

    /** The {@code "to"} of the body, as a path. */
    private static Path target(HttpRequest request, String requestId) {
        JsonNode command;
        try {
            command = HttpResponses.JSON.readTree(request.body());
        } catch (IOException e) {
            throw new Refusal(HttpResponses.error(ErrorCode.MALFORMED_JSON, "the body is not JSON: send"
                    + " {\"to\": \"directory\"}", requestId));
        }
        String to = command == null ? "" : command.path("to").asText("");
        if (to.isEmpty()) {
            throw new Refusal(HttpResponses.error(ErrorCode.INVALID_BACKUP, "send {\"to\": \"directory\"}: a new or"
                    + " empty directory under the server's --backup-root, absolute or relative to it", requestId));
        }
        try {
            return Path.of(to);
        } catch (InvalidPathException e) {
            throw new Refusal(HttpResponses.error(ErrorCode.INVALID_BACKUP, "\"" + to + "\" is not a path: "
                    + e.getMessage(), requestId));
        }
    }
}
