package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** {@code interlace run <model>}: runs a model and its dependants now; prints the run id. */
final class RunCommand implements Command {

    @Override
    public String name() {
        return "run";
    }

    @Override
    public String synopsis() {
        return "<model> [--server URL]";
    }

    @Override
    public String summary() {
        return "run a model and the models that depend on it";
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        String server = ServerClient.DEFAULT_SERVER;
        String model = null;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--server")) {
                if (i + 1 == args.size()) {
                    throw new UsageException("--server needs a URL");
                }
                server = args.get(++i);
            } else if (arg.startsWith("--")) {
                throw new UsageException("unknown option " + arg);
            } else if (model == null) {
                model = arg;
            } else {
                throw new UsageException("give one model");
            }
        }
        if (model == null) {
            throw new UsageException("no model given");
        }
        JsonNode body = new ServerClient(server).send("POST",
                "/models/" + URLEncoder.encode(model, StandardCharsets.UTF_8) + "/run", "application/json", "");
        out.println("queued " + body.get("run_id").asText() + " (GET /runs/" + body.get("run_id").asText()
                + " for its progress)");
        return 0;
    }
}
