package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.allTypesError;
import static dev.interlace.integration.decoding.Decoding.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** {@code boolean} takes exactly JSON {@code true} or {@code false}. */
class BooleanDecodingTest {

    @Test
    void booleanAcceptsTrue() {
        assertThat(allTypes("{'f': true}").f()).isTrue();
    }

    @Test
    void booleanAcceptsFalse() {
        assertThat(allTypes("{'f': false}").f()).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"'true'", "'false'", "1", "0", "'yes'", "[true]", "{}"})
    void booleanRejectsEverythingThatIsNotAJsonBoolean(String value) {
        assertError(allTypesError("{'f': " + value + "}"), "f", "true or false");
    }

    @Test
    void booleanSaysWhatItGotInstead() {
        assertThat(allTypesError("{'f': 'true'}").reason()).contains("string").contains("\"true\"");
        assertThat(allTypesError("{'f': 1}").reason()).contains("number").contains("1");
    }

    @Test
    void booleanTreatsJsonNullAsNoValueInANullableColumn() {
        assertThat(allTypes("{'f': null}").f()).isNull();
    }
}
