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
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code decimal(p,s)} takes a JSON number or a numeric string, exactly, at the column's scale; it never rounds, and
 * a value with too many digits is an error. Column {@code m} is {@code decimal(12,2)}: at most 10
 * integer digits and 2 fractional digits; column {@code amount} of the required stream is {@code decimal(38,10)}.
 */
class DecimalDecodingTest {

    @Test
    void decimalStoresANumberAtTheColumnScale() {
        BigDecimal total = allTypes("{'m': 49.5}").m();
        assertThat(total).isEqualTo(new BigDecimal("49.50"));
        assertThat(total.scale()).isEqualTo(2);
    }

    @Test
    void decimalStoresAnIntegerAtTheColumnScale() {
        assertThat(allTypes("{'m': 7}").m()).isEqualTo(new BigDecimal("7.00"));
    }

    @Test
    void decimalAcceptsANumericString() {
        assertThat(allTypes("{'m': '49.50'}").m()).isEqualTo(new BigDecimal("49.50"));
        assertThat(allTypes("{'m': '3'}").m()).isEqualTo(new BigDecimal("3.00"));
    }

    @Test
    void decimalAcceptsANegativeNumericString() {
        assertThat(allTypes("{'m': '-0.01'}").m()).isEqualTo(new BigDecimal("-0.01"));
    }

    @Test
    void decimalKeepsTheExactValueWithoutPassingThroughADouble() {
        // 0.1 has no exact double; BigDecimal.valueOf/ new BigDecimal(double) would not give exactly 0.10.
        BigDecimal tenth = allTypes("{'m': 0.1}").m();
        assertThat(tenth).isEqualTo(new BigDecimal("0.10"));
        assertThat(tenth.unscaledValue().longValueExact()).isEqualTo(10L);
        assertThat(allTypes("{'m': 1234567890.12}").m()).isEqualTo(new BigDecimal("1234567890.12"));
    }

    @Test
    void decimalTrailingZerosBeyondTheScaleAreNotRounding() {
        assertThat(allTypes("{'m': 49.500}").m()).isEqualTo(new BigDecimal("49.50"));
        assertThat(allTypes("{'m': '49.5000000'}").m()).isEqualTo(new BigDecimal("49.50"));
    }

    @Test
    void decimalNeverRoundsAValueWithTooManyFractionalDigits() {
        assertError(allTypesError("{'m': 1.234}"), "m",
                "1.234", "fractional digits", "never rounded");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"0.005", "0.001", "49.499", "-0.001", "'1.234'", "'0.125'", "1e-3"})
    void decimalRejectsEveryValueThatWouldNeedRounding(String value) {
        assertError(allTypesError("{'m': " + value + "}"), "m", "fractional digits");
    }

    @Test
    void decimalAcceptsTheLargestAndSmallestValuesThatFit() {
        assertThat(allTypes("{'m': 9999999999.99}").m()).isEqualTo(new BigDecimal("9999999999.99"));
        assertThat(allTypes("{'m': -9999999999.99}").m()).isEqualTo(new BigDecimal("-9999999999.99"));
        assertThat(allTypes("{'m': '9999999999.99'}").m()).isEqualTo(new BigDecimal("9999999999.99"));
    }

    @Test
    void decimalRejectsTooManyIntegerDigits() {
        // decimal(12,2) leaves 12 - 2 = 10 integer digits; 12345678901 has 11.
        assertError(allTypesError("{'m': 12345678901}"), "m", "12345678901", "10 integer digits");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"10000000000", "-10000000000", "10000000000.00", "'12345678901'", "1e10", "'1E+10'"})
    void decimalRejectsEveryValueWithMoreIntegerDigitsThanPrecisionMinusScale(String value) {
        assertError(allTypesError("{'m': " + value + "}"), "m", "integer digits");
    }

    @Test
    void decimalAcceptsExponentNotationThatFits() {
        assertThat(allTypes("{'m': 1.5e2}").m()).isEqualTo(new BigDecimal("150.00"));
        assertThat(allTypes("{'m': 4950e-2}").m()).isEqualTo(new BigDecimal("49.50"));
        assertThat(allTypes("{'m': '4950E-2'}").m()).isEqualTo(new BigDecimal("49.50"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"0", "-0", "0.000", "0e5", "'0'", "'-0.00'"})
    void decimalZeroInAnySpellingIsZeroAtTheColumnScale(String value) {
        assertThat(allTypes("{'m': " + value + "}").m()).isEqualTo(new BigDecimal("0.00"));
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"abc", "1,5", "+5", "", " 5", "5 ", ".5", "5.", "0x10", "NaN", "Infinity", "1_000",
            "05", "1e", "--1", "5-"})
    void decimalRejectsAStringThatIsNotADecimalNumber(String text) {
        assertError(allTypesError("{'m': '" + text + "'}"), "m", "not a decimal number", "49.50");
    }

    @Test
    void decimalRejectsBooleansArraysAndObjects() {
        assertThat(allTypesError("{'m': true}").reason()).contains("decimal");
        assertThat(allTypesError("{'m': [1.5]}").reason()).contains("decimal").contains("array");
        assertThat(allTypesError("{'m': {'amount': 1.5}}").reason()).contains("decimal").contains("object");
    }

    @Test
    void decimalStringWithAnExponentBeyondBigDecimalsRangeIsAFieldErrorNotACrash() {
        // never a 500 for bad input: the decoder must report it, not throw NumberFormatException.
        FieldError error = allTypesError("{'m': '1e2147483648'}");
        assertThat(error.field()).isEqualTo("m");
    }

    @Test
    void decimalNumberWithAnExponentBeyondBigDecimalsRangeIsAFieldErrorNotACrash() {
        FieldError error = allTypesError("{'m': 1e2147483648}");
        assertThat(error.field()).isEqualTo("m");
    }

    @Test
    void decimalWithAHugeButRepresentableExponentIsAnErrorAboutItsDigits() {
        assertThat(allTypesError("{'m': 1e999999999}").reason()).contains("integer digits");
        assertThat(allTypesError("{'m': '1e-999999999'}").reason()).contains("fractional digits");
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
