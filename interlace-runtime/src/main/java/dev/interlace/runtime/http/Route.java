package dev.interlace.runtime.http;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.List;

/** A handler for one method and path pattern; {@code {name}} segments are passed in order. */
record Route(String method, String pattern, Handler handler) {

    @FunctionalInterface
    interface Handler {
        void handle(HttpExchange exchange, List<String> pathParameters, String requestId) throws IOException;
    }

    /** The path parameters if {@code path} matches the pattern, else null. */
    List<String> match(String path) {
        String[] want = pattern.split("/", -1);
        String[] have = path.split("/", -1);
        if (want.length != have.length) {
            return null;
        }
        List<String> parameters = new java.util.ArrayList<>();
        for (int i = 0; i < want.length; i++) {
            if (want[i].startsWith("{")) {
                if (have[i].isEmpty()) {
                    return null;
                }
                parameters.add(have[i]);
            } else if (!want[i].equals(have[i])) {
                return null;
            }
        }
        return parameters;
    }
}
