package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.allTypesError;
import static dev.interlace.integration.decoding.Decoding.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code bigint} takes JSON integers only, within the signed 64-bit range. */
class BigintDecodingTest {

    @Test
    void bigintAcceptsAJsonInteger() {
        assertThat(allTypes("{'b': 42}").b()).isEqualTo(42L);
    }

    @Test
    void bigintAcceptsNegativeIntegersAndZero() {
        assertThat(allTypes("{'b': -7}").b()).isEqualTo(-7L);
        assertThat(allTypes("{'b': 0}").b()).isZero();
        assertThat(allTypes("{'b': -0}").b()).isZero();
    }

    @Test
    void bigintAcceptsLongMaxValue() {
        assertThat(allTypes("{'b': 9223372036854775807}").b()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void bigintAcceptsLongMinValue() {
        assertThat(allTypes("{'b': -9223372036854775808}").b()).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void bigintRejectsLongMaxValuePlusOneAsOutOfRange() {
        assertError(allTypesError("{'b': 9223372036854775808}"), "b",
                "9223372036854775808", "out of range");
    }

    @Test
    void bigintRejectsLongMinValueMinusOneAsOutOfRange() {
        assertError(allTypesError("{'b': -9223372036854775809}"), "b",
                "-9223372036854775809", "out of range");
    }

    @Test
    void bigintRejectsAHugeIntegerAsOutOfRange() {
        assertError(allTypesError("{'b': " + "9".repeat(200) + "}"), "b", "out of range");
    }

    @Test
    void bigintRejectsAFractionEvenWhenItIsZero() {
        assertError(allTypesError("{'b': 5.0}"), "b", "5.0", "integer");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"1e3", "1E3", "1e+3", "5E0", "1000e-1"})
    void bigintRejectsAnExponentEvenWhenTheValueIsWhole(String number) {
        assertError(allTypesError("{'b': " + number + "}"), "b", number, "integer");
    }

    @Test
    void bigintRejectsANumericString() {
        assertError(allTypesError("{'b': '5'}"), "b", "integer", "string");
    }

    @Test
    void bigintRejectsBooleans() {
        assertError(allTypesError("{'b': true}"), "b", "integer", "boolean");
        assertThat(allTypesError("{'b': false}").field()).isEqualTo("b");
    }

    @Test
    void bigintRejectsArraysAndObjects() {
        assertThat(allTypesError("{'b': [5]}").reason()).contains("integer").contains("array");
        assertThat(allTypesError("{'b': {'value': 5}}").reason()).contains("integer").contains("object");
    }

    @Test
    void bigintTreatsJsonNullAsNoValueInANullableColumn() {
        assertThat(allTypes("{'b': null}").b()).isNull();
        assertThat(allTypes("{}").b()).isNull();
    }
}
