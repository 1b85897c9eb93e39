package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code interlace backup --to DIR}: asks the running server for an online backup ({@code POST /admin/backup}) into a
 * directory on the server's machine. The server takes it because only its process may open the warehouse and the
 * log while it runs.
 */
final class BackupCommand extends RemoteCommand {

    /** @param environment the process environment, for {@code INTERLACE_API_KEY} */
    BackupCommand(Map<String, String> environment) {
        super(environment,
                "backup",
                "--to DIR [--json] " + ServerOptions.SYNOPSIS,
                "take an online backup of the running server's data (an admin key)");
    }

    @Override
    public String help() {
        return """
                  --to DIR   a directory on the server's machine under its --backup-root (default
                             <data-dir>/backups), absolute or relative to it, that does not exist or is empty
                  --json     print the backup's manifest (positions, files, checksums) as JSON
                The server goes on serving meanwhile. Restore with: interlace restore DIR --data-dir NEW
                """;
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        ServerOptions server = new ServerOptions();
        Arguments arguments = Arguments.parse(args, server, Set.of("--json"), Set.of("--to"));
        if (!arguments.positionals().isEmpty()) {
            throw new UsageException("backup takes no arguments but options; name the directory with --to DIR");
        }
        String to = arguments.value("--to");
        if (to == null) {
            throw new UsageException("backup needs --to DIR, a directory under the server's --backup-root");
        }
        JsonNode manifest = client(server).send("POST", "/admin/backup", "application/json",
                ServerClient.JSON.createObjectNode().put("to", to).toString());
        if (arguments.flag("--json")) {
            out.println(manifest.toPrettyString());
            return 0;
        }
        long bytes = 0;
        for (JsonNode file : manifest.path("files")) {
            bytes += file.path("bytes").asLong();
        }
        out.println("backup in " + manifest.path("directory").asText() + ": " + manifest.path("files").size()
                + " files, " + bytes + " bytes, " + manifest.path("took_ms").asLong() + " ms (log: "
                + manifest.path("log").asText() + ")");
        manifest.path("streams").fields().forEachRemaining(stream -> out.println("  " + stream.getKey()
                + ": log head " + stream.getValue().path("log_head").asLong() + ", flushed "
                + stream.getValue().path("flushed").asLong()));
        return 0;
    }
}
