package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.allTypesError;
import static dev.interlace.integration.decoding.Decoding.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import org.junit.jupiter.api.Test;

/** {@code double} takes any JSON number that is finite as a 64-bit float. */
class DoubleDecodingTest {

    @Test
    void doubleAcceptsIntegers() {
        assertThat(allTypes("{'d': 3}").d()).isEqualTo(3.0);
        assertThat(allTypes("{'d': -12}").d()).isEqualTo(-12.0);
    }

    @Test
    void doubleAcceptsFractionsAndExponents() {
        assertThat(allTypes("{'d': 2.5}").d()).isEqualTo(2.5);
        assertThat(allTypes("{'d': -1.25e-3}").d()).isEqualTo(-0.00125);
        assertThat(allTypes("{'d': 1E2}").d()).isEqualTo(100.0);
    }

    @Test
    void doubleAcceptsIntegersBeyondTheLongRangeAsTheNearestDouble() {
        assertThat(allTypes("{'d': 123456789012345678901234567890}").d()).isEqualTo(1.2345678901234568E29);
    }

    @Test
    void doubleAcceptsTheLargestFiniteDouble() {
        assertThat(allTypes("{'d': 1.7976931348623157e308}").d()).isEqualTo(Double.MAX_VALUE);
        assertThat(allTypes("{'d': -1.7976931348623157e308}").d()).isEqualTo(-Double.MAX_VALUE);
    }

    @Test
    void doubleRejectsANumberThatOverflowsToInfinity() {
        assertError(allTypesError("{'d': 1e400}"), "d", "1e400", "out of range");
    }

    @Test
    void doubleRejectsANegativeNumberThatOverflowsToInfinity() {
        assertError(allTypesError("{'d': -1e400}"), "d", "out of range");
    }

    @Test
    void doubleRejectsNumericStrings() {
        assertError(allTypesError("{'d': '1.5'}"), "d", "number", "string");
    }

    @Test
    void doubleRejectsTheStringsNaNAndInfinity() {
        assertThat(allTypesError("{'d': 'NaN'}").field()).isEqualTo("d");
        assertThat(allTypesError("{'d': 'Infinity'}").field()).isEqualTo("d");
    }

    @Test
    void doubleRejectsBareNaNAndInfinityBecauseTheyAreNotJson() {
        assertThatThrownBy(() -> new AllTypesDecoder().decode("{\"d\": NaN}"))
                .isInstanceOf(JsonProcessingException.class);
        assertThatThrownBy(() -> new AllTypesDecoder().decode("{\"d\": Infinity}"))
                .isInstanceOf(JsonProcessingException.class);
    }

    @Test
    void doubleRejectsBooleans() {
        assertError(allTypesError("{'d': false}"), "d", "number");
    }

    @Test
    void doubleTreatsJsonNullAsNoValueInANullableColumn() {
        assertThat(allTypes("{'d': null}").d()).isNull();
    }
}
