package dev.interlace.runtime.auth;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.ops.EpochMicros;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The format of {@code keys.json} (format 1): a JSON object with {@code format}, a {@code comment} for people and
 * {@code keys}, each key's id, name, scopes, SHA-256, quotas ({@code quota} in events per second, {@code quota_bytes}
 * in bytes per second, which a file written before byte quotas lacks) and times (RFC 3339). Reading checks every
 * field, so a file edited by hand into something else is an error that says where, never a silently different set of
 * keys.
 */
final class KeyFileFormat {

    /** A key id: {@code key_} and 8 hex digits. */
    static final Pattern ID = Pattern.compile("key_[0-9a-f]{8}");

    private static final int FORMAT = 1;
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper COMPACT_JSON = new ObjectMapper();

    private KeyFileFormat() {}

    /**
     * The keys in {@code content} (none when it is null: no file yet).
     *
     * @throws KeyFileException naming {@code file} and what is wrong, when it is not a key file of this format
     */
    static List<StoredKey> parse(Path file, byte[] content) {
        if (content == null) {
            return List.of();
        }
        try {
            JsonNode root = JSON.readTree(content);
            if (root == null || !root.isObject()) {
                throw new IOException("it is not a JSON object");
            }
            if (root.path("format").asInt() != FORMAT) {
                throw new IOException("\"format\" is " + root.path("format") + ", expected " + FORMAT);
            }
            JsonNode keys = root.get("keys");
            if (keys == null || !keys.isArray()) {
                throw new IOException("\"keys\" is not an array");
            }
            List<StoredKey> parsed = new ArrayList<>();
            for (JsonNode key : keys) {
                parsed.add(parseKey(key, parsed.size()));
            }
            return List.copyOf(parsed);
        } catch (IOException e) {
            throw new KeyFileException("the key file " + file + " is not valid: " + message(e) + "; restore it from a"
                    + " backup (deleting it deletes every key, and a loopback server without keys is open to anyone"
                    + " on the machine)", e);
        }
    }

    /**
     * One key alone, in the form of an entry of the file.
     *
     * @throws IllegalArgumentException saying what is wrong
     */
    static StoredKey parseKey(byte[] json) {
        try {
            JsonNode key = JSON.readTree(json);
            if (key == null || !key.isObject()) {
                throw new IOException("it is not a JSON object");
            }
            return parseKey(key, 0);
        } catch (IOException e) {
            throw new IllegalArgumentException("not a stored key: " + message(e), e);
        }
    }

    private static StoredKey parseKey(JsonNode key, int index) throws IOException {
        String where = "key " + index;
        String id = text(key, "id", where);
        if (!ID.matcher(id).matches()) {
            throw new IOException(where + ": \"id\" is not a key id: " + id);
        }
        where = "key " + id;
        String name = text(key, "name", where);
        List<Scope> scopes = new ArrayList<>();
        try {
            for (String scope : text(key, "scopes", where).split(",")) {
                scopes.add(Scope.parse(scope));
            }
        } catch (IllegalArgumentException e) {
            throw new IOException(where + ": " + e.getMessage());
        }
        String hash = text(key, "sha256", where);
        if (!SHA256_HEX.matcher(hash).matches()) {
            throw new IOException(where + ": \"sha256\" is not 64 lower-case hex digits");
        }
        JsonNode quota = key.get("quota");
        if (quota == null || !quota.isNumber() || quota.asDouble() < 0) {
            throw new IOException(where + ": \"quota\" is not a number of events per second (0 for none)");
        }
        // Absent from keys written before byte quotas existed: those keys have none.
        JsonNode quotaBytes = key.get("quota_bytes");
        if (quotaBytes != null && !(quotaBytes.isIntegralNumber() && quotaBytes.canConvertToLong()
                && quotaBytes.asLong() >= 0)) {
            throw new IOException(where + ": \"quota_bytes\" is not a whole number of bytes per second (0 for none)");
        }
        return new StoredKey(id, name, scopes, HexFormat.of().parseHex(hash), micros(key, "created_at", where, false),
                micros(key, "last_used_at", where, true), quota.asDouble(),
                quotaBytes == null ? 0 : quotaBytes.asLong(), micros(key, "revoked_at", where, true));
    }

    private static String text(JsonNode key, String field, String where) throws IOException {
        JsonNode value = key.get(field);
        if (value == null || !value.isTextual() || value.asText().isEmpty()) {
            throw new IOException(where + ": \"" + field + "\" is missing or not text");
        }
        return value.asText();
    }

    private static long micros(JsonNode key, String field, String where, boolean nullable) throws IOException {
        JsonNode value = key.get(field);
        if (nullable && (value == null || value.isNull())) {
            return 0;
        }
        if (value == null || !value.isTextual()) {
            throw new IOException(where + ": \"" + field + "\" is not a time like 2026-01-31T12:00:00.123456Z");
        }
        try {
            return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse(value.asText()));
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new IOException(where + ": \"" + field + "\" is not a time like 2026-01-31T12:00:00.123456Z");
        }
    }

    /** The file's bytes for {@code keys}: indented JSON and a final newline, so people can read and diff it. */
    static byte[] serialize(List<StoredKey> keys) {
        ObjectNode root = JSON.createObjectNode();
        root.put("format", FORMAT);
        root.put("comment", "API keys of this data directory, managed by `interlace keys`. Secrets are not stored,"
                + " only their SHA-256.");
        ArrayNode array = root.putArray("keys");
        for (StoredKey key : keys) {
            array.add(node(key));
        }
        return withNewline(root);
    }

    /** One key alone, in the form of an entry of the file. */
    static byte[] serializeKey(StoredKey key) {
        try {
            return COMPACT_JSON.writeValueAsBytes(node(key));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ObjectNode node(StoredKey key) {
        ObjectNode node = JSON.createObjectNode();
        node.put("id", key.id());
        node.put("name", key.name());
        node.put("scopes", String.join(",", key.scopes().stream().map(Scope::toString).toList()));
        node.put("sha256", HexFormat.of().formatHex(key.sha256()));
        node.put("created_at", instant(key.createdAtMicros()));
        node.put("last_used_at", key.lastUsedAtMicros() == 0 ? null : instant(key.lastUsedAtMicros()));
        node.put("quota", key.quotaEventsPerSecond());
        node.put("quota_bytes", key.quotaBytesPerSecond());
        node.put("revoked_at", key.live() ? null : instant(key.revokedAtMicros()));
        return node;
    }

    private static byte[] withNewline(ObjectNode root) {
        try {
            byte[] json = JSON.writeValueAsBytes(root);
            byte[] withNewline = Arrays.copyOf(json, json.length + 1);
            withNewline[json.length] = '\n';
            return withNewline;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String message(IOException e) {
        return e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
    }

    /** A stored time as written in the file (and in messages about it). */
    static String instant(long micros) {
        return EpochMicros.toInstant(micros).toString();
    }
}
