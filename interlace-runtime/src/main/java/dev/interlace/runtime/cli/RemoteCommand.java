package dev.interlace.runtime.cli;

import java.util.Map;

/** A command that asks a running server ({@link ServerOptions}: its URL, TLS trust and API key). */
abstract class RemoteCommand extends Command {

    private final Map<String, String> environment;

    /** @param environment the process environment, for {@code INTERLACE_API_KEY} */
    RemoteCommand(Map<String, String> environment, String name, String synopsis, String summary) {
        super(name, synopsis, summary);
        this.environment = environment;
    }

    /** A client of the server the options name, with the key from them or from the environment. */
    final ServerClient client(ServerOptions server) {
        return client(server, false);
    }

    /** {@link #client(ServerOptions)} that, with {@code route}, publishes to each partition's sequencer itself. */
    final ServerClient client(ServerOptions server, boolean route) {
        return server.client(environment, route);
    }
}
