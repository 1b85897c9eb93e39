package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.json;
import static dev.interlace.integration.decoding.Decoding.valid;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code json} takes any JSON value, kept as compact JSON text with numbers exactly as sent. */
class JsonDecodingTest {

    private static String jsonColumn(String payload) {
        return valid(new AllTypesDecoder(), payload).event().j();
    }

    /**
     * Any JSON value is kept as compact text: nested objects and arrays, fields in the order sent, numbers exactly as
     * sent, strings as JSON text, Unicode, booleans, empty values and a null inside a value.
     * Both columns are single-quoted JSON.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            {'j': { 'a' : [1, 2.50, {'b': null}] }} | {'a':[1,2.50,{'b':null}]}
            {'j': {'z': 1, 'a': 2, 'm': 3}}         | {'z':1,'a':2,'m':3}
            {'j': 'hello'}                          | 'hello'
            {'j': {'name': '漢字 \uD83D\uDE00'}}      | {'name':'漢字 \uD83D\uDE00'}
            {'j': 42}                               | 42
            {'j': 2.50}                             | 2.50
            {'j': true}                             | true
            {'j': false}                            | false
            {'j': {}}                               | {}
            {'j': []}                               | []
            {'j': [null]}                           | [null]
            """)
    void jsonKeepsAnyValueAsCompactTextExactlyAsSent(String singleQuoted, String expected) {
        assertThat(jsonColumn(json(singleQuoted))).isEqualTo(json(expected));
    }

    @Test
    void jsonEscapesStringsItWrites() {
        assertThat(jsonColumn("{\"j\": {\"q\": \"a\\\"b\\\\c\\nd\"}}")).isEqualTo("{\"q\":\"a\\\"b\\\\c\\nd\"}");
    }

    @Test
    void jsonKeepsNumbersExactlyWithoutPassingThroughADouble() {
        assertThat(jsonColumn("{\"j\": [0.1, 49.50, 123456789012345678901234567890, -0.000001]}"))
                .isEqualTo("[0.1,49.50,123456789012345678901234567890,-0.000001]");
    }

    @Test
    void jsonAcceptsANumberWhoseExponentIsBeyondBigDecimalsRange() {
        // a json column takes any value: 1e2147483648 is a valid JSON number, so it must neither be refused nor crash
        // the decoder with a NumberFormatException (which would surface as a 500).
        assertThat(jsonColumn("{\"j\": [1e2147483648]}")).isIn("[1e2147483648]", "[1E+2147483648]");
    }

    @Test
    void jsonNullIsNoValueRatherThanTheTextNull() {
        assertThat(allTypes("{'j': null}").j()).isNull();
    }

    @Test
    void jsonValuesDoNotDisturbTheFieldsAfterThem() {
        AllTypesEvent event = allTypes("{'j': {'s': 'inner', 'b': [1, {'b': 2}]}, 's': 'outer', 'b': 3}");
        assertThat(event.j()).isEqualTo("{\"s\":\"inner\",\"b\":[1,{\"b\":2}]}");
        assertThat(event.s()).isEqualTo("outer");
        assertThat(event.b()).isEqualTo(3L);
    }
}
