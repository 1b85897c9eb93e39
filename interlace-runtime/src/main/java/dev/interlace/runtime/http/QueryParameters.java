package dev.interlace.runtime.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Decodes a request's query string; the first value of a repeated parameter wins. */
final class QueryParameters {

    private QueryParameters() {}

    static Map<String, String> parse(String query) {
        if (query == null || query.isEmpty()) {
            return Map.of(); // most requests (every publish without ?verbose) have none
        }
        Map<String, String> parameters = new LinkedHashMap<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
            String value = equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
            parameters.putIfAbsent(name, value);
        }
        return parameters;
    }
}
