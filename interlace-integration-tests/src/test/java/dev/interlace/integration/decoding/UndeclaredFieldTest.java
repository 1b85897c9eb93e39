package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypesError;
import static dev.interlace.integration.decoding.Decoding.allTypesErrors;
import static dev.interlace.integration.decoding.Decoding.assertError;
import static dev.interlace.integration.decoding.Decoding.errors;
import static dev.interlace.integration.decoding.Decoding.json;
import static dev.interlace.integration.decoding.Decoding.onlyError;
import static dev.interlace.integration.decoding.Decoding.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.entry;

import dev.interlace.runtime.stream.DecodeResult;
import dev.interlace.runtime.stream.FieldError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fields the schema does not declare (docs/streaming.md#schema-drift): streams that reject or quarantine drift
 * report each one as an error naming the declared columns; a stream that evolves keeps them, as JSON text, for new
 * columns.
 */
class UndeclaredFieldTest {

    @Nested
    class WhenTheStreamRejectsDrift {

        @Test
        void anUndeclaredFieldIsAnErrorNamingTheDeclaredColumns() {
            assertError(allTypesError("{'s': 'a', 'extra': 1}"), "extra",
                    "not a declared column", "s, b, d, m, f, t, day, j, class");
        }

        @Test
        void everyUndeclaredFieldIsReported() {
            assertThat(allTypesErrors("{'x1': 1, 's': 'a', 'x2': {'nested': [1]}, 'x3': null}"))
                    .extracting(FieldError::field).containsExactly("x1", "x2", "x3");
        }

        @Test
        void fieldNamesMatchColumnsExactlyIncludingCase() {
            assertThat(allTypesError("{'S': 'a'}").field()).isEqualTo("S");
        }

        @Test
        void theJavaComponentNameOfAKeywordColumnIsNotAColumnName() {
            assertThat(allTypesError("{'class_': 'a'}").field()).isEqualTo("class_");
        }

        @Test
        void reservedColumnsCannotBeSent() {
            assertThat(allTypesErrors("{'_offset': 1, '_ingested_at': 'x', '_request_id': 'r'}"))
                    .extracting(FieldError::field).containsExactly("_offset", "_ingested_at", "_request_id");
        }

        @Test
        void aValidEventHasNoUndeclaredFields() {
            assertThat(valid(new AllTypesDecoder(), json("{'s': 'a'}")).undeclaredFields()).isEmpty();
        }
    }

    @Nested
    class WhenTheStreamQuarantinesDrift {

        @Test
        void anUndeclaredFieldIsAnErrorNamingTheDeclaredColumns() {
            assertError(onlyError(new QuarantinedDecoder(), json("{'id': 'a', 'extra': true}")), "extra",
                    "not a declared column", "id, n");
        }

        @Test
        void everyUndeclaredFieldIsReportedWithTheOtherErrors() {
            assertThat(errors(new QuarantinedDecoder(), json("{'x': 1, 'n': 'one', 'y': 2}")))
                    .extracting(FieldError::field).containsExactly("x", "n", "y", "id");
        }

        @Test
        void aValidEventHasNoUndeclaredFields() {
            DecodeResult.Valid<QuarantinedEvent> result = valid(new QuarantinedDecoder(), json("{'id': 'a', 'n': 2}"));
            assertThat(result.event().id()).isEqualTo("a");
            assertThat(result.event().n()).isEqualTo(2L);
            assertThat(result.undeclaredFields()).isEmpty();
        }
    }

    @Nested
    class WhenTheStreamEvolves {

        @Test
        void undeclaredFieldsAreReturnedAsCompactJsonText() {
            DecodeResult.Valid<EvolvingEvent> result = valid(new EvolvingDecoder(),
                    json("{'s': 'a', 'n': 1, 'tags': ['x', 'y'], 'price': 2.50, 'meta': {'k': [1, null]},"
                            + " 'label': 'hi', 'ok': true}"));
            assertThat(result.event().s()).isEqualTo("a");
            assertThat(result.event().n()).isEqualTo(1L);
            assertThat(result.undeclaredFields()).containsOnly(
                    entry("tags", "[\"x\",\"y\"]"),
                    entry("price", "2.50"),
                    entry("meta", "{\"k\":[1,null]}"),
                    entry("label", "\"hi\""),
                    entry("ok", "true"));
        }

        @Test
        void anEvolvingFieldHoldingANumberBeyondBigDecimalsRangeDoesNotCrashTheDecoder() {
            // Valid JSON in an undeclared field must be kept or reported, never a NumberFormatException (a 500).
            assertThatCode(() -> new EvolvingDecoder().decode(json("{'n': 1, 'big': 1e2147483648}")))
                    .doesNotThrowAnyException();
        }

        @Test
        void anEventWithoutUndeclaredFieldsHasNone() {
            assertThat(valid(new EvolvingDecoder(), json("{'n': 1}")).undeclaredFields()).isEmpty();
        }

        @Test
        void undeclaredFieldsKeepTheOrderTheyWereSentIn() {
            Map<String, String> sent = new LinkedHashMap<>();
            for (String name : List.of("zeta", "alpha", "mike", "bravo", "yankee", "charlie", "xray", "delta")) {
                sent.put(name, "1");
            }
            sent.put("n", "1");
            Map<String, String> undeclared = valid(new EvolvingDecoder(), Decoding.object(sent)).undeclaredFields();
            List<String> expected = new ArrayList<>(sent.keySet());
            expected.remove("n");
            assertThat(new ArrayList<>(undeclared.keySet())).containsExactlyElementsOf(expected);
        }

        @Test
        void declaredColumnsStillFollowTheRejectRules() {
            List<FieldError> errors = errors(new EvolvingDecoder(), json("{'s': 5, 'n': 1.5, 'extra': 1}"));
            assertThat(errors).extracting(FieldError::field).containsExactly("s", "n");
        }

        @Test
        void declaredNotNullColumnsAreStillRequired() {
            assertError(onlyError(new EvolvingDecoder(), json("{'extra': 1}")), "n", "missing");
        }

        @Test
        void aFieldWhoseNameIsNotAValidColumnNameIsAnError() {
            assertError(onlyError(new EvolvingDecoder(), json("{'n': 1, 'Bad-Name': 1}")), "Bad-Name",
                    "cannot become a new column", "[a-z][a-z0-9_]{0,62}");
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"1abc", "_offset", "_private", "has space", "dash-ed", "caMel", "é",
                "a234567890123456789012345678901234567890123456789012345678901234"})
        void everyNameOutsideTheColumnPatternIsAnError(String name) {
            assertError(onlyError(new EvolvingDecoder(), json("{'n': 1, '" + name + "': 1}")), name,
                    "cannot become a new column");
        }

        @Test
        void aNameOfSixtyThreeCharactersCanBecomeAColumn() {
            String name = "a" + "b".repeat(62);
            assertThat(valid(new EvolvingDecoder(), json("{'n': 1, '" + name + "': 1}")).undeclaredFields())
                    .containsOnlyKeys(name);
        }

        @Test
        void aFieldThatDiffersOnlyInCaseFromADeclaredColumnIsAnError() {
            assertError(onlyError(new EvolvingDecoder(), json("{'n': 1, 'S': 'a'}")), "S",
                    "cannot become a new column");
        }

        @Test
        void everyBadNameIsReported() {
            assertThat(errors(new EvolvingDecoder(), json("{'N': 2, 'n': 1, 'ok_name': 1, 'Bad-Name': 1, 'S': 1}")))
                    .extracting(FieldError::field).containsExactly("N", "Bad-Name", "S");
        }
    }
}
