package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.allTypesError;
import static dev.interlace.integration.decoding.Decoding.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code string} takes exactly a JSON string, which must be valid Unicode. */
class StringDecodingTest {

    @Test
    void stringAcceptsPlainText() {
        assertThat(allTypes("{'s': 'hello'}").s()).isEqualTo("hello");
    }

    @Test
    void stringAcceptsTheEmptyStringAsAValueNotAsNull() {
        assertThat(allTypes("{'s': ''}").s()).isEmpty();
    }

    @Test
    void stringKeepsEmojiExactly() {
        String emoji = "\uD83D\uDE00 \uD83D\uDC69\u200D\uD83D\uDC69\u200D\uD83D\uDC67 \uD83C\uDDEB\uD83C\uDDF7";
        assertThat(allTypes("{'s': '" + emoji + "'}").s()).isEqualTo(emoji);
    }

    @Test
    void stringKeepsCjkTextExactly() {
        assertThat(allTypes("{'s': '漢字テスト 한국어'}").s()).isEqualTo("漢字テスト 한국어");
    }

    @Test
    void stringKeepsCombiningCharactersWithoutNormalising() {
        String decomposed = "e\u0301"; // e + COMBINING ACUTE ACCENT, not the precomposed U+00E9
        String decoded = allTypes("{'s': '" + decomposed + "'}").s();
        assertThat(decoded).isEqualTo(decomposed).hasSize(2).isNotEqualTo("\u00E9");
    }

    @Test
    void stringDecodesAnEscapedSurrogatePairToOneCodePoint() {
        String decoded = allTypes("{'s': '\\ud83d\\ude00'}").s();
        assertThat(decoded).isEqualTo("\uD83D\uDE00");
        assertThat(decoded.codePointCount(0, decoded.length())).isEqualTo(1);
    }

    @Test
    void stringDecodesJsonEscapes() {
        String payload = "{\"s\": \"quote \\\" backslash \\\\ slash \\/ tab \\t newline \\n escaped \\u0041\"}";
        assertThat(Decoding.valid(new AllTypesDecoder(), payload).event().s())
                .isEqualTo("quote \" backslash \\ slash / tab \t newline \n escaped A");
    }

    @Test
    void stringRejectsAnUnpairedHighSurrogateEscape() {
        assertError(allTypesError("{'s': '\\ud800'}"), "s", "Unicode", "surrogate");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"\\udc00", "a\\ud800b", "\\ud800\\ud800", "\\ude00\\ud83d", "end \\ud83d"})
    void stringRejectsEveryUnpairedSurrogateEscape(String escaped) {
        assertError(allTypesError("{'s': '" + escaped + "'}"), "s", "surrogate");
    }

    @Test
    void stringRejectsNumbers() {
        assertError(allTypesError("{'s': 5}"), "s", "expected a string", "number");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"5", "1.5", "true", "['a']", "{'a': 'b'}"})
    void stringRejectsEveryOtherJsonType(String value) {
        assertError(allTypesError("{'s': " + value + "}"), "s", "expected a string");
    }

    @Test
    void stringTreatsJsonNullAsNoValueInANullableColumn() {
        assertThat(allTypes("{'s': null}").s()).isNull();
    }

    @Test
    void aColumnNamedAfterAJavaKeywordIsDecodedIntoItsSafeComponent() {
        assertThat(allTypes("{'class': 'premium'}").class_()).isEqualTo("premium");
    }
}
