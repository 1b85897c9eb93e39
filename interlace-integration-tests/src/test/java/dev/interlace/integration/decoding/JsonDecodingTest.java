package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.valid;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code json} takes any JSON value, kept as compact JSON text with numbers exactly as sent. */
class JsonDecodingTest {

    private static String jsonColumn(String payload) {
        return valid(new AllTypesDecoder(), payload).event().j();
    }

    @Test
    void jsonKeepsNestedObjectsAndArraysAsCompactTextWithExactNumbers() {
        assertThat(jsonColumn("{\"j\": { \"a\" : [1, 2.50, {\"b\": null}] }}")).isEqualTo("{\"a\":[1,2.50,{\"b\":null}]}");
    }

    @Test
    void jsonKeepsFieldOrderAsSent() {
        assertThat(jsonColumn("{\"j\": {\"z\": 1, \"a\": 2, \"m\": 3}}")).isEqualTo("{\"z\":1,\"a\":2,\"m\":3}");
    }

    @Test
    void jsonKeepsNumbersExactlyWithoutPassingThroughADouble() {
        assertThat(jsonColumn("{\"j\": [0.1, 49.50, 123456789012345678901234567890, -0.000001]}"))
                .isEqualTo("[0.1,49.50,123456789012345678901234567890,-0.000001]");
    }

    @Test
    void jsonAcceptsAStringValueAsJsonText() {
        assertThat(jsonColumn("{\"j\": \"hello\"}")).isEqualTo("\"hello\"");
    }

    @Test
    void jsonEscapesStringsItWrites() {
        assertThat(jsonColumn("{\"j\": {\"q\": \"a\\\"b\\\\c\\nd\"}}")).isEqualTo("{\"q\":\"a\\\"b\\\\c\\nd\"}");
    }

    @Test
    void jsonKeepsUnicodeInsideValues() {
        assertThat(jsonColumn("{\"j\": {\"name\": \"漢字 \uD83D\uDE00\"}}")).isEqualTo("{\"name\":\"漢字 \uD83D\uDE00\"}");
    }

    @Test
    void jsonAcceptsANumberValue() {
        assertThat(jsonColumn("{\"j\": 42}")).isEqualTo("42");
        assertThat(jsonColumn("{\"j\": 2.50}")).isEqualTo("2.50");
    }

    @Test
    void jsonAcceptsANumberWhoseExponentIsBeyondBigDecimalsRange() {
        // a json column takes any value: 1e2147483648 is a valid JSON number, so it must neither be refused nor crash
        // the decoder with a NumberFormatException (which would surface as a 500).
        assertThat(jsonColumn("{\"j\": [1e2147483648]}")).isIn("[1e2147483648]", "[1E+2147483648]");
    }

    @Test
    void jsonAcceptsBooleans() {
        assertThat(jsonColumn("{\"j\": true}")).isEqualTo("true");
        assertThat(jsonColumn("{\"j\": false}")).isEqualTo("false");
    }

    @Test
    void jsonAcceptsEmptyObjectsAndArrays() {
        assertThat(jsonColumn("{\"j\": {}}")).isEqualTo("{}");
        assertThat(jsonColumn("{\"j\": []}")).isEqualTo("[]");
    }

    @Test
    void jsonNullIsNoValueRatherThanTheTextNull() {
        assertThat(allTypes("{'j': null}").j()).isNull();
    }

    @Test
    void jsonNullNestedInsideAValueIsKept() {
        assertThat(jsonColumn("{\"j\": [null]}")).isEqualTo("[null]");
    }

    @Test
    void jsonValuesDoNotDisturbTheFieldsAfterThem() {
        AllTypesEvent event = allTypes("{'j': {'s': 'inner', 'b': [1, {'b': 2}]}, 's': 'outer', 'b': 3}");
        assertThat(event.j()).isEqualTo("{\"s\":\"inner\",\"b\":[1,{\"b\":2}]}");
        assertThat(event.s()).isEqualTo("outer");
        assertThat(event.b()).isEqualTo(3L);
    }
}
