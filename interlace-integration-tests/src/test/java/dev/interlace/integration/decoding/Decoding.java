package dev.interlace.integration.decoding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.stream.DecodeResult;
import dev.interlace.runtime.stream.EventDecoder;
import dev.interlace.runtime.stream.FieldError;
import dev.interlace.runtime.stream.StreamEvent;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/** Shared helpers: decode a payload and insist on the kind of result a test expects. */
final class Decoding {

    private Decoding() {}

    /**
     * JSON written with single quotes so that payloads stay readable in Java strings: {@code json("{'a': 'b'}")} is
     * {@code {"a": "b"}}. Only for payloads without apostrophes.
     */
    static String json(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }

    /** Decodes {@code payload} (real JSON, not single-quoted) and requires it to be valid. */
    static <T extends StreamEvent> DecodeResult.Valid<T> valid(EventDecoder<T> decoder, String payload) {
        DecodeResult<T> result = decode(decoder, payload);
        if (result instanceof DecodeResult.Invalid<T> invalid) {
            throw new AssertionError("expected " + payload + " to decode, but it was rejected: " + invalid.errors());
        }
        return (DecodeResult.Valid<T>) result;
    }

    /** Decodes {@code payload} and requires it to be invalid; returns every error, in order. */
    static <T extends StreamEvent> List<FieldError> errors(EventDecoder<T> decoder, String payload) {
        DecodeResult<T> result = decode(decoder, payload);
        if (result instanceof DecodeResult.Valid<T> valid) {
            throw new AssertionError("expected " + payload + " to be rejected, but it decoded to " + valid.event()
                    + (valid.undeclaredFields().isEmpty() ? "" : " with undeclared fields " + valid.undeclaredFields()));
        }
        List<FieldError> errors = ((DecodeResult.Invalid<T>) result).errors();
        assertThat(errors).as("errors of %s", payload).isNotEmpty();
        return errors;
    }

    /** Decodes {@code payload} and requires exactly one error, which it returns. */
    static <T extends StreamEvent> FieldError onlyError(EventDecoder<T> decoder, String payload) {
        List<FieldError> errors = errors(decoder, payload);
        assertThat(errors).as("errors of %s", payload).hasSize(1);
        return errors.get(0);
    }

    /**
     * Requires {@code error} to name {@code field} and its reason to contain each of {@code reasonContains}; returns
     * it for further checks.
     */
    static FieldError assertError(FieldError error, String field, String... reasonContains) {
        assertThat(error.field()).isEqualTo(field);
        assertThat(error.reason()).contains(reasonContains);
        return error;
    }

    private static <T extends StreamEvent> DecodeResult<T> decode(EventDecoder<T> decoder, String payload) {
        try {
            return decoder.decode(payload);
        } catch (IOException e) {
            throw new AssertionError("expected " + payload + " to be decoded, but decoding threw " + e, e);
        }
    }

    // Shorthands for the all_types stream, taking single-quoted JSON.

    static AllTypesEvent allTypes(String singleQuoted) {
        return valid(new AllTypesDecoder(), json(singleQuoted)).event();
    }

    static FieldError allTypesError(String singleQuoted) {
        return onlyError(new AllTypesDecoder(), json(singleQuoted));
    }

    static List<FieldError> allTypesErrors(String singleQuoted) {
        return errors(new AllTypesDecoder(), json(singleQuoted));
    }

    // Payloads of the required stream, whose columns are all not null except "note".

    /** A valid value (as JSON text) for every not null column of the required stream, in declaration order. */
    static Map<String, String> requiredFields() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("id", "1");
        fields.put("amount", "12.5");
        fields.put("name", "\"widget\"");
        fields.put("at", "\"2026-11-29T08:30:00Z\"");
        fields.put("day", "\"2026-11-29\"");
        fields.put("flag", "true");
        fields.put("ratio", "0.5");
        fields.put("payload", "{\"k\": [1, 2]}");
        return fields;
    }

    /** A complete valid payload of the required stream with {@code column} set to {@code valueJson}. */
    static String requiredWith(String column, String valueJson) {
        Map<String, String> fields = requiredFields();
        fields.put(column, valueJson);
        return object(fields);
    }

    /** A complete valid payload of the required stream without {@code column}. */
    static String requiredWithout(String column) {
        Map<String, String> fields = requiredFields();
        fields.remove(column);
        return object(fields);
    }

    /** A JSON object of the given fields (values are JSON text), in map order. */
    static String object(Map<String, String> fields) {
        StringJoiner out = new StringJoiner(", ", "{", "}");
        fields.forEach((name, value) -> out.add("\"" + name + "\": " + value));
        return out.toString();
    }
}
