package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * {@code GET /ui} and {@code GET /ui/{file}}: the operator console, static files from the runtime's resources. They
 * need no key (the page asks for one and sends it with its API calls), but the {@code Host} and {@code Origin}
 * checks apply as to any route. Everything the console shows was sent by someone with a publish key, so every answer
 * carries a Content-Security-Policy that allows only the console's own scripts and styles (no inline script, no
 * other origin, no framing) and forbids content sniffing.
 */
final class ConsoleRoutes implements RouteSet {

    /** The policy of every console answer: the console's own files only, never inside a frame. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; frame-ancestors 'none'";

    /** Where the files are, on the class path. */
    private static final String RESOURCES = "dev/interlace/runtime/http/console/";

    /**
     * A file name the console may serve: one path segment of lower-case letters, digits and dashes with a known
     * extension. No {@code /}, {@code .} runs or percent escapes can pass, so a path can never leave the folder.
     */
    private static final Pattern FILE = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}\\.(html|css|js|svg|png)");

    private static final Map<String, String> CONTENT_TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "svg", "image/svg+xml",
            "png", "image/png");

    /** Files read so far; only files that exist are kept, so a flood of made-up names holds no memory. */
    private final Map<String, byte[]> files = new ConcurrentHashMap<>();

    @Override
    public void register(List<Route> routes) {
        routes.add(Route.blocking("GET", "/ui", Access.PUBLIC, (request, path, requestId) ->
                serve("index.html", requestId)));
        routes.add(Route.blocking("GET", "/ui/{file}", Access.PUBLIC, (request, path, requestId) ->
                serve(path.get(0), requestId)));
    }

    private HttpAnswer serve(String name, String requestId) {
        Optional<byte[]> body = FILE.matcher(name).matches() ? file(name) : Optional.empty();
        HttpAnswer answer = body.isPresent()
                ? HttpAnswer.bytes(200, CONTENT_TYPES.get(name.substring(name.lastIndexOf('.') + 1)), body.get())
                        .header("Cache-Control", "no-cache")
                : HttpResponses.error(ErrorCode.NOT_FOUND, "the console has no file named \"" + cut(name)
                        + "\"; open /ui", requestId);
        return answer.header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                .header("X-Content-Type-Options", "nosniff")
                .header("Referrer-Policy", "no-referrer")
                .header("X-Frame-Options", "DENY");
    }

    private Optional<byte[]> file(String name) {
        byte[] cached = files.get(name);
        if (cached != null) {
            return Optional.of(cached);
        }
        Optional<byte[]> read = read(name);
        read.ifPresent(bytes -> files.put(name, bytes));
        return read;
    }

    private static Optional<byte[]> read(String name) {
        try (InputStream in = ConsoleRoutes.class.getClassLoader().getResourceAsStream(RESOURCES + name)) {
            return in == null ? Optional.empty() : Optional.of(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the console's " + name, e);
        }
    }

    private static String cut(String text) {
        return text.length() <= 100 ? text : text.substring(0, 100) + "…";
    }
}
