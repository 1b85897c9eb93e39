package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypesErrors;
import static dev.interlace.integration.decoding.Decoding.errors;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.stream.DecodeResult;
import dev.interlace.runtime.stream.FieldError;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every error of an event is reported, not just the first, in the order found, as the 422 body lists them. */
class ErrorReportingTest {

    @Test
    void anEventWithThreeBadFieldsHasThreeErrorsInTheOrderSent() {
        List<FieldError> errors = allTypesErrors("{'f': 'yes', 's': 'fine', 'b': 1.5, 'day': 'tomorrow'}");
        assertThat(errors).extracting(FieldError::field).containsExactly("f", "b", "day");
        assertThat(errors.get(0).reason()).contains("true or false");
        assertThat(errors.get(1).reason()).contains("integer");
        assertThat(errors.get(2).reason()).contains("YYYY-MM-DD");
    }

    @Test
    void errorsFollowThePayloadOrderNotTheDeclarationOrder() {
        assertThat(allTypesErrors("{'day': 1, 'b': 'x', 's': 2}"))
                .extracting(FieldError::field).containsExactly("day", "b", "s");
    }

    @Test
    void everyColumnTypeReportsItsOwnErrorInOneEvent() {
        List<FieldError> errors = allTypesErrors("{'s': 1, 'b': 1.5, 'd': 'x', 'm': 1.234, 'f': 1,"
                + " 't': '2026-11-29T08:30:00', 'day': '2026-1-5', 'class': false}");
        assertThat(errors).extracting(FieldError::field)
                .containsExactly("s", "b", "d", "m", "f", "t", "day", "class");
    }

    @Test
    void wronglyTypedArraysAndObjectsAreSkippedSoTheFieldsAfterThemAreStillChecked() {
        List<FieldError> errors = allTypesErrors(
                "{'b': [1, {'x': [2, 3]}], 'f': {'a': [true, {'b': {}}]}, 's': 5, 'd': 1.5}");
        assertThat(errors).extracting(FieldError::field).containsExactly("b", "f", "s");
    }

    @Test
    void undeclaredFieldsAreReportedAmongTheValueErrorsInOrder() {
        assertThat(allTypesErrors("{'b': 'x', 'nope': 1, 'f': 2, 'also_nope': null}"))
                .extracting(FieldError::field).containsExactly("b", "nope", "f", "also_nope");
    }

    @Test
    void missingNotNullColumnsAreReportedAfterTheValueErrors() {
        List<FieldError> errors = errors(new RequiredDecoder(), "{\"flag\": \"no\", \"id\": \"x\", \"note\": 3}");
        assertThat(errors).extracting(FieldError::field)
                .containsExactly("flag", "id", "note", "amount", "name", "at", "day", "ratio", "payload");
    }

    @Test
    void anInvalidEventCarriesNoPartialEvent() throws Exception {
        DecodeResult<AllTypesEvent> result = new AllTypesDecoder().decode("{\"s\": \"ok\", \"b\": \"bad\"}");
        assertThat(result).isInstanceOf(DecodeResult.Invalid.class);
    }

    @Test
    void aFieldErrorReadsAsFieldThenReason() {
        FieldError error = Decoding.allTypesError("{'b': true}");
        assertThat(error).hasToString("b: " + error.reason());
    }
}
