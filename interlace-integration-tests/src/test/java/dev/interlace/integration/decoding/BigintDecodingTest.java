package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.allTypesError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.stream.FieldError;
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
        FieldError error = allTypesError("{'b': 9223372036854775808}");
        assertThat(error.field()).isEqualTo("b");
        assertThat(error.reason()).contains("9223372036854775808").contains("out of range");
    }

    @Test
    void bigintRejectsLongMinValueMinusOneAsOutOfRange() {
        FieldError error = allTypesError("{'b': -9223372036854775809}");
        assertThat(error.field()).isEqualTo("b");
        assertThat(error.reason()).contains("-9223372036854775809").contains("out of range");
    }

    @Test
    void bigintRejectsAHugeIntegerAsOutOfRange() {
        FieldError error = allTypesError("{'b': " + "9".repeat(200) + "}");
        assertThat(error.field()).isEqualTo("b");
        assertThat(error.reason()).contains("out of range");
    }

    @Test
    void bigintRejectsAFractionEvenWhenItIsZero() {
        FieldError error = allTypesError("{'b': 5.0}");
        assertThat(error.field()).isEqualTo("b");
        assertThat(error.reason()).contains("5.0").contains("integer");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"1e3", "1E3", "1e+3", "5E0", "1000e-1"})
    void bigintRejectsAnExponentEvenWhenTheValueIsWhole(String number) {
        FieldError error = allTypesError("{'b': " + number + "}");
        assertThat(error.field()).isEqualTo("b");
        assertThat(error.reason()).contains(number).contains("integer");
    }

    @Test
    void bigintRejectsANumericString() {
        FieldError error = allTypesError("{'b': '5'}");
        assertThat(error.field()).isEqualTo("b");
        assertThat(error.reason()).contains("integer").contains("string");
    }

    @Test
    void bigintRejectsBooleans() {
        FieldError error = allTypesError("{'b': true}");
        assertThat(error.field()).isEqualTo("b");
        assertThat(error.reason()).contains("integer").contains("boolean");
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
