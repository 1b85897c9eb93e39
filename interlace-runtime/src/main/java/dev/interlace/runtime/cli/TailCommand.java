package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import dev.interlace.client.ServerException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.Map;

/**
 * {@code interlace tail <stream>}: prints a stream's events, one JSON line each ({@code offset}, {@code request_id},
 * {@code ingested_at}, {@code event}); the last 10 by default, or those after {@code --from}; {@code --follow} keeps
 * printing new ones as they arrive. A stream of several partitions is read one partition at a time, {@code --partition
 * N} (required for it: offsets are per partition).
 */
final class TailCommand extends RemoteCommand {

    /** @param environment the process environment, for {@code INTERLACE_API_KEY} */
    TailCommand(Map<String, String> environment) {
        super(environment,
                "tail",
                "<stream> [--partition N] [--from OFFSET] [--follow] " + ServerOptions.SYNOPSIS,
                "print a stream's events (the last 10, or after --from), --follow for new ones");
    }

    static final int DEFAULT_LAST = 10;
    private static final int PAGE = 500;

    @Override
    public int run(List<String> args, PrintStream out) {
        ServerOptions server = new ServerOptions();
        Arguments arguments = Arguments.parse(args, server, Set.of("--follow", "-f"), Set.of("--from", "--partition"));
        String stream = arguments.single("stream");
        Long from = arguments.number("--from", 0);
        Long partition = arguments.number("--partition", 0);
        boolean follow = arguments.flag("--follow") || arguments.flag("-f");
        ServerClient client = client(server);
        String base = "/streams/" + URLEncoder.encode(stream, StandardCharsets.UTF_8) + "/events"
                + (partition == null ? "?" : "?partition=" + partition + "&");
        long after;
        if (from != null) {
            after = from;
        } else {
            JsonNode probe = page(client, stream, base + "limit=1");
            after = Math.max(probe.get("earliest").asLong() - 1, probe.get("head").asLong() - DEFAULT_LAST);
        }
        while (true) {
            JsonNode page = page(client, stream, base + "after=" + after + "&limit=" + PAGE
                    + (follow ? "&wait_ms=10000" : ""));
            for (JsonNode event : page.get("events")) {
                out.println(TerminalText.json(event));
            }
            out.flush();
            after = page.get("next_after").asLong();
            if (!follow && page.get("count").asInt() < PAGE) {
                return 0;
            }
        }
    }

    /** One page of events; a stream of several partitions read without {@code --partition} says how to name one. */
    private static JsonNode page(ServerClient client, String stream, String path) {
        try {
            return client.exchange("GET", path, null, null);
        } catch (ServerException e) {
            if (e.errorCode().filter(ErrorCode.PARTITION_REQUIRED::equals).isPresent()) {
                int partitions = client.send("GET", "/streams/" + URLEncoder.encode(stream, StandardCharsets.UTF_8),
                        null, null).path("partitions").asInt();
                throw new UsageException("stream " + stream + " has " + partitions + " partitions, each with offsets of"
                        + " its own: name one with --partition 0 to --partition " + (partitions - 1));
            }
            if (e.errorCode().filter(ErrorCode.INVALID_PARAMETER::equals).isPresent()) {
                throw new UsageException(e.serverMessage().replace("partition must", "--partition must"));
            }
            throw new CommandFailedException(client.describe(e));
        }
    }
}
