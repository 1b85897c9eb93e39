package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.allTypesError;
import static dev.interlace.integration.decoding.Decoding.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code bigint} takes JSON integers only, within the signed 64-bit range. */
class BigintDecodingTest {

    /** A JSON integer, negative, zero (also {@code -0}), up to the limits of a signed 64-bit integer. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            42                   | 42
            -7                   | -7
            0                    | 0
            -0                   | 0
            9223372036854775807  | 9223372036854775807
            -9223372036854775808 | -9223372036854775808
            """)
    void bigintAcceptsJsonIntegersWithinTheSigned64BitRange(String value, long expected) {
        assertThat(allTypes("{'b': " + value + "}").b()).isEqualTo(expected);
    }

    /**
     * Out of the signed 64-bit range; a fraction even when it is zero; an exponent even when the value is whole; a
     * numeric string, a boolean, an array, an object. The reason contains each {@code ;}-separated fragment.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            9223372036854775808   | 9223372036854775808;out of range
            -9223372036854775809  | -9223372036854775809;out of range
            5.0                   | 5.0;integer
            1e3                   | 1e3;integer
            1E3                   | 1E3;integer
            1e+3                  | 1e+3;integer
            5E0                   | 5E0;integer
            1000e-1               | 1000e-1;integer
            '5'                   | integer;string
            true                  | integer;boolean
            false                 | integer;boolean
            [5]                   | integer;array
            {'value': 5}          | integer;object
            """)
    void bigintRejectsEverythingButAnIntegerInRange(String value, String reasonFragments) {
        assertError(allTypesError("{'b': " + value + "}"), "b", reasonFragments.split(";"));
    }

    @Test
    void bigintRejectsAHugeIntegerAsOutOfRange() {
        assertError(allTypesError("{'b': " + "9".repeat(200) + "}"), "b", "out of range");
    }

    @Test
    void bigintTreatsJsonNullAsNoValueInANullableColumn() {
        assertThat(allTypes("{'b': null}").b()).isNull();
        assertThat(allTypes("{}").b()).isNull();
    }
}
