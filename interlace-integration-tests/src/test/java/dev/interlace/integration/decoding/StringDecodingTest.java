package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.allTypesError;
import static dev.interlace.integration.decoding.Decoding.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code string} takes exactly a JSON string, which must be valid Unicode. */
class StringDecodingTest {

    /**
     * Plain text; the empty string as a value, not as null; emoji, CJK text and combining characters exactly as sent
     * (never normalised: {@code e} and COMBINING ACUTE ACCENT stay two characters, not the precomposed U+00E9).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            plain text           | hello
            the empty string     | ""
            emoji                | \uD83D\uDE00 \uD83D\uDC69\u200D\uD83D\uDC69\u200D\uD83D\uDC67 \uD83C\uDDEB\uD83C\uDDF7
            CJK text             | 漢字テスト 한국어
            combining characters | e\u0301
            """)
    void stringKeepsTextExactlyAsSent(String description, String text) {
        assertThat(allTypes("{'s': '" + text + "'}").s()).isEqualTo(text);
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

    /**
     * An unpaired surrogate escape (high or low, alone, twice, reversed, at the end) is not Unicode; every other JSON
     * type is not a string. The reason contains each of the {@code ;}-separated fragments.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            '\\ud800'         | Unicode;surrogate
            '\\udc00'         | surrogate
            'a\\ud800b'       | surrogate
            '\\ud800\\ud800'   | surrogate
            '\\ude00\\ud83d'   | surrogate
            'end \\ud83d'     | surrogate
            5                | expected a string;number
            1.5              | expected a string
            true             | expected a string
            ['a']            | expected a string
            {'a': 'b'}       | expected a string
            """)
    void stringRejectsUnpairedSurrogatesAndEveryOtherJsonType(String value, String reasonFragments) {
        assertError(allTypesError("{'s': " + value + "}"), "s", reasonFragments.split(";"));
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
