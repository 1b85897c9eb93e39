package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.interlace.runtime.stream.DecodeResult;
import dev.interlace.runtime.stream.DuplicateFieldException;
import dev.interlace.runtime.stream.EventJson;
import dev.interlace.runtime.stream.NotAnObjectException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One event is exactly one well-formed JSON object ({@code not_an_object}, {@code malformed_json}).
 */
class DocumentShapeTest {

    private final AllTypesDecoder decoder = new AllTypesDecoder();

    @Test
    void anArrayIsNotAnObject() {
        assertThatThrownBy(() -> decoder.decode("[1]"))
                .isInstanceOf(NotAnObjectException.class)
                .hasMessageContaining("expected a JSON object, got an array");
    }

    @Test
    void aStringIsNotAnObject() {
        assertThatThrownBy(() -> decoder.decode("\"x\""))
                .isInstanceOf(NotAnObjectException.class)
                .hasMessageContaining("got a string");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"5", "1.5", "true", "null", "[{\"s\": \"a\"}]", "[]"})
    void everyOtherJsonValueIsNotAnObject(String document) {
        assertThatThrownBy(() -> decoder.decode(document)).isInstanceOf(NotAnObjectException.class);
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"", " ", "\n"})
    void anEmptyDocumentIsRefused(String document) {
        assertThatThrownBy(() -> decoder.decode(document)).isInstanceOf(JsonProcessingException.class);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"{", "{\"s\": \"a\"", "{\"s\": }", "{s: \"a\"}", "{'s': 'a'}", "{\"s\": \"a\",}",
            "{\"s\" \"a\"}", "{\"b\": 01}", "{\"s\": \"unterminated}", "{\"j\": [1, 2}", "{\"s\": undefined}"})
    void malformedJsonIsAJsonProcessingException(String document) {
        assertThatThrownBy(() -> decoder.decode(document))
                .isInstanceOf(JsonProcessingException.class)
                .isNotInstanceOf(NotAnObjectException.class)
                .isNotInstanceOf(DuplicateFieldException.class);
    }

    @Test
    void invalidUtf8IsMalformed() {
        byte[] payload = {'{', '"', 's', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
        assertThatThrownBy(() -> decoder.decode(payload)).isInstanceOf(JsonProcessingException.class);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"{\"s\": \"a\"} {\"s\": \"b\"}", "{\"s\": \"a\"}x", "{\"s\": \"a\"}]", "{\"s\": \"a\"}}",
            "{\"s\": \"a\"} 5", "{\"s\": \"a\"}\n{\"s\": \"b\"}"})
    void contentAfterTheObjectIsRefused(String document) {
        assertThatThrownBy(() -> decoder.decode(document)).isInstanceOf(JsonProcessingException.class);
    }

    @Test
    void whitespaceAroundTheObjectIsFine() {
        assertThat(Decoding.valid(decoder, " \n\t{\"s\": \"a\"} \r\n").event().s()).isEqualTo("a");
    }

    @Test
    void anEmptyObjectIsAValidEventWhenNothingIsRequired() {
        AllTypesEvent event = Decoding.valid(decoder, "{}").event();
        for (int i = 0; i < 9; i++) {
            assertThat(event.value(i)).as("column %d", i).isNull();
        }
    }

    @Test
    void bytesAndTextDecodeTheSame() throws Exception {
        String payload = json("{'s': '漢字', 'm': 1.5, 'j': {'a': [1]}}");
        assertThat(decoder.decode(payload.getBytes(StandardCharsets.UTF_8))).isEqualTo(decoder.decode(payload));
    }

    @Test
    void nestingUpToTheLimitIsAccepted() {
        // The event object is one level; its json value may add the rest.
        int depth = EventJson.MAX_NESTING_DEPTH - 1;
        String payload = "{\"j\": " + "[".repeat(depth) + "]".repeat(depth) + "}";
        assertThat(Decoding.valid(decoder, payload).event().j()).hasSize(2 * depth);
    }

    @Test
    void nestingBeyondTheLimitIsRefused() {
        int depth = EventJson.MAX_NESTING_DEPTH;
        String payload = "{\"j\": " + "[".repeat(depth) + "]".repeat(depth) + "}";
        assertThatThrownBy(() -> decoder.decode(payload)).isInstanceOf(JsonProcessingException.class);
    }

    @Test
    void decodingFromAParserConsumesExactlyOneObject() throws Exception {
        try (JsonParser parser = EventJson.FACTORY.createParser(json("[{'s': 'a'}, {'s': 'b', 'j': {'s': 'c'}}]"))) {
            assertThat(parser.nextToken()).isEqualTo(JsonToken.START_ARRAY);
            assertThat(parser.nextToken()).isEqualTo(JsonToken.START_OBJECT);
            DecodeResult<AllTypesEvent> first = decoder.decode(parser);
            assertThat(parser.currentToken()).isEqualTo(JsonToken.END_OBJECT);
            assertThat(parser.nextToken()).isEqualTo(JsonToken.START_OBJECT);
            DecodeResult<AllTypesEvent> second = decoder.decode(parser);
            assertThat(parser.nextToken()).isEqualTo(JsonToken.END_ARRAY);

            assertThat(((DecodeResult.Valid<AllTypesEvent>) first).event().s()).isEqualTo("a");
            assertThat(((DecodeResult.Valid<AllTypesEvent>) second).event().s()).isEqualTo("b");
        }
    }

    @Test
    void decodingFromAParserStaysInStepAfterAnInvalidEvent() throws Exception {
        try (JsonParser parser = EventJson.FACTORY.createParser(json("[{'b': [1, {'x': 2}], 'f': 'no'}, {'s': 'b'}]"))) {
            parser.nextToken();
            parser.nextToken();
            assertThat(decoder.decode(parser)).isInstanceOf(DecodeResult.Invalid.class);
            assertThat(parser.nextToken()).isEqualTo(JsonToken.START_OBJECT);
            assertThat(decoder.decode(parser)).isInstanceOf(DecodeResult.Valid.class);
            assertThat(parser.nextToken()).isEqualTo(JsonToken.END_ARRAY);
        }
    }
}
