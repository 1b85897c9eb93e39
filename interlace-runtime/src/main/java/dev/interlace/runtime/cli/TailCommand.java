package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.Map;

/**
 * {@code interlace tail <stream>}: prints a stream's events, one JSON line each ({@code offset}, {@code request_id},
 * {@code ingested_at}, {@code event}); the last 10 by default, or those after {@code --from}; {@code --follow} keeps
 * printing new ones as they arrive.
 */
final class TailCommand extends RemoteCommand {

    /** @param environment the process environment, for {@code INTERLACE_API_KEY} */
    TailCommand(Map<String, String> environment) {
        super(environment,
                "tail",
                "<stream> [--from OFFSET] [--follow] " + ServerOptions.SYNOPSIS,
                "print a stream's events (the last 10, or after --from), --follow for new ones");
    }

    static final int DEFAULT_LAST = 10;
    private static final int PAGE = 500;

    @Override
    public int run(List<String> args, PrintStream out) {
        ServerOptions server = new ServerOptions();
        Arguments arguments = Arguments.parse(args, server, Set.of("--follow", "-f"), Set.of("--from"));
        String stream = arguments.single("stream");
        Long from = arguments.number("--from", 0);
        boolean follow = arguments.flag("--follow") || arguments.flag("-f");
        ServerClient client = client(server);
        String base = "/streams/" + URLEncoder.encode(stream, StandardCharsets.UTF_8) + "/events";
        long after;
        if (from != null) {
            after = from;
        } else {
            JsonNode probe = client.send("GET", base + "?limit=1", null, null);
            after = Math.max(probe.get("earliest").asLong() - 1, probe.get("head").asLong() - DEFAULT_LAST);
        }
        while (true) {
            JsonNode page = client.send("GET", base + "?after=" + after + "&limit=" + PAGE
                    + (follow ? "&wait_ms=10000" : ""), null, null);
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
}
