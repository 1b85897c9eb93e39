package dev.interlace.warehouse.duckdb;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Type inference for columns an evolving stream gains from undeclared fields. Types only ever widen —
 * {@code BIGINT → DOUBLE → VARCHAR}, {@code BOOLEAN → VARCHAR}, {@code JSON → VARCHAR} — so a conflicting value never
 * stalls the stream, and every widening is a cast DuckDB can make of existing rows.
 */
final class EvolvedTypes {

    static final String BIGINT = "BIGINT";
    static final String DOUBLE = "DOUBLE";
    static final String BOOLEAN = "BOOLEAN";
    static final String VARCHAR = "VARCHAR";
    static final String JSON = "JSON";

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private static final Map<String, String> CANONICAL = Map.of(
            BIGINT, "bigint", DOUBLE, "double", BOOLEAN, "boolean", VARCHAR, "string", JSON, "json");

    private EvolvedTypes() {}

    /** The column type a JSON value needs, or null for JSON null (which says nothing about the type). */
    static String infer(String json) {
        JsonNode node = parse(json);
        if (node.isNull()) {
            return null;
        }
        if (node.isBoolean()) {
            return BOOLEAN;
        }
        if (node.isIntegralNumber()) {
            return node.canConvertToLong() ? BIGINT : VARCHAR;
        }
        if (node.isNumber()) {
            return Double.isFinite(node.doubleValue()) ? DOUBLE : VARCHAR;
        }
        if (node.isContainerNode()) {
            return JSON;
        }
        return VARCHAR;
    }

    /** The narrowest type holding values of both types; either may be null (no information). */
    static String widen(String a, String b) {
        if (a == null) {
            return b;
        }
        if (b == null || a.equals(b)) {
            return a;
        }
        if ((a.equals(BIGINT) && b.equals(DOUBLE)) || (a.equals(DOUBLE) && b.equals(BIGINT))) {
            return DOUBLE;
        }
        return VARCHAR;
    }

    /** The value to append for JSON text {@code json} into a column of {@code type} (wide enough by construction). */
    static Object convert(String json, String type) {
        JsonNode node = parse(json);
        if (node.isNull()) {
            return null;
        }
        return switch (type) {
            case BIGINT -> node.longValue();
            case DOUBLE -> node.doubleValue();
            case BOOLEAN -> node.booleanValue();
            case JSON -> json;
            default -> node.isTextual() ? node.textValue() : json;
        };
    }

    /** {@code bigint}, {@code double}, {@code boolean}, {@code string} or {@code json}. */
    static String canonical(String type) {
        return CANONICAL.getOrDefault(type, type.toLowerCase(java.util.Locale.ROOT));
    }

    private static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("an undeclared field is not valid JSON: " + json, e);
        }
    }
}
