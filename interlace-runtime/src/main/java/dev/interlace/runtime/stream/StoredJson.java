package dev.interlace.runtime.stream;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.interlace.client.ExactJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Stored JSON (event payloads, stored error lists) as values of a response: the stored text itself, never re-parsed
 * into doubles and re-formatted.
 *
 * <p>Re-parsing with a default {@link ObjectMapper} turns {@code 49.50} into {@code 49.5},
 * {@code 0.1000000000000000055} into {@code 0.1}, {@code 1e999999} into {@code "Infinity"} and alters long
 * integers; a reader asking "what did I send?" must get what it sent. Every read route answers stored JSON through
 * this class.
 */
public final class StoredJson {

    /**
     * Checks stored text for being one JSON value, with no limit on nesting or number length: what publish validated
     * under the current limits, or under older ones, is answered as stored.
     */
    private static final JsonFactory CHECKER = ExactJson.unlimitedFactory();

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private StoredJson() {}

    /**
     * A node that writes {@code stored} exactly as it is; when it is somehow not one valid JSON value, a string node
     * holding it, so that one damaged entry never fails a whole response.
     */
    public static JsonNode value(byte[] stored) {
        return value(new String(stored, StandardCharsets.UTF_8));
    }

    /** As {@link #value(byte[])}, for stored text. */
    public static JsonNode value(String stored) {
        if (stored == null) {
            return NODES.nullNode();
        }
        return isOneJsonValue(stored) ? NODES.rawValueNode(new RawValue(stored)) : NODES.textNode(stored);
    }

    /** Whether {@code stored} is one JSON value, so that it may be written as it is (see {@link #value(byte[])}). */
    public static boolean isOneJsonValue(byte[] stored) {
        try {
            return holdsOneValue(CHECKER.createParser(stored));
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean isOneJsonValue(String text) {
        try {
            return holdsOneValue(CHECKER.createParser(text));
        } catch (IOException e) {
            return false;
        }
    }

    /** Reads one value and whether nothing follows it; closes the parser. */
    private static boolean holdsOneValue(JsonParser created) throws IOException {
        try (JsonParser parser = created) {
            if (parser.nextToken() == null) {
                return false;
            }
            parser.skipChildren();
            return parser.nextToken() == null;
        }
    }
}
