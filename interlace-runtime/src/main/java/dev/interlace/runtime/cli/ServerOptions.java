package dev.interlace.runtime.cli;

import dev.interlace.client.TrustedCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;

/**
 * The options of every command that talks to a server: {@code --server URL}, {@code --api-key-file FILE} (the key on
 * its first line) and {@code --tls-ca FILE} (PEM certificates to trust). Without {@code --api-key-file} the key comes
 * from {@code INTERLACE_API_KEY}; never from the command line itself, where {@code ps} would show it.
 */
final class ServerOptions {

    /** The environment variable holding the API key when no {@code --api-key-file} is given. */
    static final String API_KEY_VARIABLE = "INTERLACE_API_KEY";
    /** For usage lines. */
    static final String SYNOPSIS = "[--server URL] [--api-key-file FILE] [--tls-ca FILE]";

    private static final List<String> OPTIONS = List.of("--server", "--api-key-file", "--tls-ca");

    private String server = ServerClient.DEFAULT_SERVER;
    private Path apiKeyFile;
    private Path tlsCa;

    /**
     * Takes {@code args.get(index)} (and its value) if it is one of these options, as {@code --name value} or
     * {@code --name=value}.
     *
     * @return the index of the last argument taken, or -1 when the argument is not one of these options
     * @throws UsageException when the option has no value
     */
    int accept(List<String> args, int index) {
        String arg = args.get(index);
        String name = arg;
        String value;
        int next = index;
        int equals = arg.indexOf('=');
        if (arg.startsWith("--") && equals > 0) {
            name = arg.substring(0, equals);
            value = arg.substring(equals + 1);
        } else if (OPTIONS.contains(arg)) {
            if (index + 1 == args.size()) {
                throw new UsageException(arg + " needs a value");
            }
            value = args.get(++next);
        } else {
            return -1;
        }
        switch (name) {
            case "--server" -> server = value;
            case "--api-key-file" -> apiKeyFile = Path.of(value);
            case "--tls-ca" -> tlsCa = Path.of(value);
            default -> {
                return -1;
            }
        }
        return next;
    }

    String server() {
        return server;
    }

    /**
     * A client for the server, with the API key from {@code --api-key-file} or {@code INTERLACE_API_KEY} and the
     * certificates of {@code --tls-ca}.
     *
     * @throws CommandFailedException when the key file or the CA file cannot be read
     */
    ServerClient client(Map<String, String> environment) {
        return client(environment, false);
    }

    /** {@link #client(Map)} that, with {@code route}, publishes to each partition's sequencer itself. */
    ServerClient client(Map<String, String> environment, boolean route) {
        return new ServerClient(server, apiKey(environment), sslContext(), apiKeyFile != null, route);
    }

    private String apiKey(Map<String, String> environment) {
        if (apiKeyFile != null) {
            List<String> lines;
            try {
                lines = Files.readAllLines(apiKeyFile, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new CommandFailedException("cannot read the API key file " + apiKeyFile + ": " + e);
            }
            String key = lines.isEmpty() ? "" : lines.get(0).strip();
            if (key.isEmpty()) {
                throw new CommandFailedException("the API key file " + apiKeyFile + " has no key on its first line");
            }
            return key;
        }
        String key = environment.get(API_KEY_VARIABLE);
        return key == null || key.isBlank() ? null : key.strip();
    }

    private SSLContext sslContext() {
        if (tlsCa == null) {
            return null;
        }
        try {
            return TrustedCertificates.sslContext(tlsCa);
        } catch (IllegalArgumentException | UncheckedIOException e) {
            throw new CommandFailedException("--tls-ca: " + e.getMessage());
        }
    }
}
