package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.Map;

/** {@code interlace run <model>}: runs a model and its dependants now; prints the run id. */
final class RunCommand extends RemoteCommand {

    /** @param environment the process environment, for {@code INTERLACE_API_KEY} */
    RunCommand(Map<String, String> environment) {
        super(environment, "run", "<model> " + ServerOptions.SYNOPSIS, "run a model and the models that depend on it");
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        ServerOptions server = new ServerOptions();
        String model = Arguments.parse(args, server, Set.of(), Set.of()).single("model");
        JsonNode body = client(server).send("POST",
                "/models/" + URLEncoder.encode(model, StandardCharsets.UTF_8) + "/run", "application/json", "");
        out.println("queued " + body.get("run_id").asText() + " (GET /runs/" + body.get("run_id").asText()
                + " for its progress)");
        return 0;
    }
}
