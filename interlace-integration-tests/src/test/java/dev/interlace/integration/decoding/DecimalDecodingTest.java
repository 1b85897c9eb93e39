package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.allTypesError;
import static dev.interlace.integration.decoding.Decoding.assertError;
import static dev.interlace.integration.decoding.Decoding.onlyError;
import static dev.interlace.integration.decoding.Decoding.requiredWith;
import static dev.interlace.integration.decoding.Decoding.valid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.stream.FieldError;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code decimal(p,s)} takes a JSON number or a numeric string, exactly, at the column's scale; it never rounds, and
 * a value with too many digits is an error. Column {@code m} is {@code decimal(12,2)}: at most 10
 * integer digits and 2 fractional digits; column {@code amount} of the required stream is {@code decimal(38,10)}.
 */
class DecimalDecodingTest {

    /**
     * A number or a numeric string, stored exactly at the column's scale (never through a double: 0.1 is exactly
     * 0.10), trailing zeros beyond the scale are not rounding, the largest and smallest values that fit, exponent
     * notation that fits, zero in any spelling. {@code expected} is compared with its scale.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            49.5            | 49.50
            7               | 7.00
            '49.50'         | 49.50
            '3'             | 3.00
            '-0.01'         | -0.01
            0.1             | 0.10
            1234567890.12   | 1234567890.12
            49.500          | 49.50
            '49.5000000'    | 49.50
            9999999999.99   | 9999999999.99
            -9999999999.99  | -9999999999.99
            '9999999999.99' | 9999999999.99
            1.5e2           | 150.00
            4950e-2         | 49.50
            '4950E-2'       | 49.50
            0               | 0.00
            -0              | 0.00
            0.000           | 0.00
            0e5             | 0.00
            '0'             | 0.00
            '-0.00'         | 0.00
            """)
    void decimalStoresTheExactValueAtTheColumnScale(String value, String expected) {
        assertThat(allTypes("{'m': " + value + "}").m()).isEqualTo(new BigDecimal(expected));
    }

    /**
     * Never rounded: too many fractional digits (also as a string, in exponent notation, or a huge negative exponent)
     * or more integer digits than precision minus scale (10: 12345678901 has 11) is an error; so are booleans, arrays
     * and objects. The reason contains each of the {@code ;}-separated fragments.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            1.234            | 1.234;fractional digits;never rounded
            0.005            | fractional digits
            0.001            | fractional digits
            49.499           | fractional digits
            -0.001           | fractional digits
            '1.234'          | fractional digits
            '0.125'          | fractional digits
            1e-3             | fractional digits
            '1e-999999999'   | fractional digits
            12345678901      | 12345678901;10 integer digits
            10000000000      | integer digits
            -10000000000     | integer digits
            10000000000.00   | integer digits
            '12345678901'    | integer digits
            1e10             | integer digits
            '1E+10'          | integer digits
            1e999999999      | integer digits
            true             | decimal
            [1.5]            | decimal;array
            {'amount': 1.5}  | decimal;object
            """)
    void decimalRejectsWhatItWouldHaveToRoundOrCannotRead(String value, String reasonFragments) {
        assertError(allTypesError("{'m': " + value + "}"), "m", reasonFragments.split(";"));
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"abc", "1,5", "+5", "", " 5", "5 ", ".5", "5.", "0x10", "NaN", "Infinity", "1_000",
            "05", "1e", "--1", "5-"})
    void decimalRejectsAStringThatIsNotADecimalNumber(String text) {
        assertError(allTypesError("{'m': '" + text + "'}"), "m", "not a decimal number", "49.50");
    }

    /** Never a 500 for bad input: the decoder must report it, not throw NumberFormatException. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"1e2147483648", "'1e2147483648'"})
    void decimalWithAnExponentBeyondBigDecimalsRangeIsAFieldErrorNotACrash(String value) {
        assertThat(allTypesError("{'m': " + value + "}").field()).isEqualTo("m");
    }

    @Test
    void decimalTreatsJsonNullAsNoValueInANullableColumn() {
        assertThat(allTypes("{'m': null}").m()).isNull();
    }

    @Test
    void wideDecimalKeepsABigValueExactly() {
        RequiredEvent event = valid(new RequiredDecoder(),
                requiredWith("amount", "1234567890123456789012345678.0123456789")).event();
        assertThat(event.amount()).isEqualTo(new BigDecimal("1234567890123456789012345678.0123456789"));
        assertThat(event.amount().precision()).isEqualTo(38);
    }

    @Test
    void wideDecimalKeepsABigNumericStringExactly() {
        RequiredEvent event = valid(new RequiredDecoder(),
                requiredWith("amount", "\"-9999999999999999999999999999.9999999999\"")).event();
        assertThat(event.amount()).isEqualTo(new BigDecimal("-9999999999999999999999999999.9999999999"));
    }

    @Test
    void wideDecimalPadsSmallValuesToItsScale() {
        RequiredEvent event = valid(new RequiredDecoder(), requiredWith("amount", "0.1")).event();
        assertThat(event.amount()).isEqualTo(new BigDecimal("0.1000000000"));
    }

    @Test
    void wideDecimalRejectsTwentyNineIntegerDigits() {
        FieldError error = onlyError(new RequiredDecoder(),
                requiredWith("amount", "12345678901234567890123456789.5"));
        assertThat(error.field()).isEqualTo("amount");
        assertThat(error.reason()).contains("28 integer digits");
    }

    @Test
    void wideDecimalRejectsElevenFractionalDigits() {
        assertError(onlyError(new RequiredDecoder(), requiredWith("amount", "0.12345678901")), "amount",
                "10 fractional digits", "never rounded");
    }
}
