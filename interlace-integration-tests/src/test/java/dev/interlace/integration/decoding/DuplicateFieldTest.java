package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.interlace.runtime.stream.DuplicateFieldException;
import dev.interlace.runtime.stream.EventDecoder;
import org.junit.jupiter.api.Test;

/**
 * Duplicate keys in one object are an error: the payload is ambiguous, so it is refused as a whole
 * (400 {@code duplicate_field}) rather than resolved by picking one value.
 */
class DuplicateFieldTest {

    private static DuplicateFieldException duplicate(EventDecoder<?> decoder, String singleQuoted) {
        DuplicateFieldException thrown = catchThrowableOfType(DuplicateFieldException.class,
                () -> decoder.decode(json(singleQuoted)));
        assertThat(thrown).as("decoding %s", singleQuoted).isNotNull();
        return thrown;
    }

    @Test
    void aDeclaredFieldSentTwiceIsRefused() {
        DuplicateFieldException thrown = duplicate(new AllTypesDecoder(), "{'s': 'a', 'b': 1, 's': 'b'}");
        assertThat(thrown.field()).isEqualTo("s");
        assertThat(thrown.getOriginalMessage()).contains("duplicate field \"s\"");
    }

    @Test
    void aDeclaredFieldSentTwiceWithTheSameValueIsStillRefused() {
        assertThat(duplicate(new AllTypesDecoder(), "{'b': 1, 'b': 1}").field()).isEqualTo("b");
    }

    @Test
    void aDeclaredFieldSentTwiceIsRefusedEvenWhenTheFirstValueWasInvalid() {
        assertThat(duplicate(new AllTypesDecoder(), "{'b': 'x', 'b': 1}").field()).isEqualTo("b");
    }

    @Test
    void aDeclaredFieldSentTwiceIsRefusedEvenWhenTheFirstValueWasNull() {
        assertThat(duplicate(new AllTypesDecoder(), "{'s': null, 's': 'a'}").field()).isEqualTo("s");
    }

    @Test
    void aDuplicateInsideANestedJsonValueIsRefused() {
        assertThat(duplicate(new AllTypesDecoder(), "{'j': {'a': 1, 'a': 2}}").field()).isEqualTo("a");
    }

    @Test
    void aDuplicateDeepInsideArraysOfAJsonValueIsRefused() {
        assertThat(duplicate(new AllTypesDecoder(), "{'j': [1, [{'ok': 1}, {'x': {'y': 1, 'y': 2}}]]}").field())
                .isEqualTo("y");
    }

    @Test
    void aDuplicateInsideAValueOfTheWrongTypeIsStillRefused() {
        assertThat(duplicate(new AllTypesDecoder(), "{'b': {'x': 1, 'x': 2}}").field()).isEqualTo("x");
    }

    @Test
    void anUndeclaredFieldSentTwiceIsRefused() {
        assertThat(duplicate(new AllTypesDecoder(), "{'extra': 1, 's': 'a', 'extra': 2}").field()).isEqualTo("extra");
    }

    @Test
    void aDuplicateInsideAnUndeclaredValueIsRefused() {
        assertThat(duplicate(new AllTypesDecoder(), "{'extra': {'k': 1, 'k': 1}}").field()).isEqualTo("k");
    }

    @Test
    void anUndeclaredFieldSentTwiceIsRefusedInAQuarantiningStream() {
        assertThat(duplicate(new QuarantinedDecoder(), "{'id': 'a', 'x': 1, 'x': 2}").field()).isEqualTo("x");
    }

    @Test
    void anUndeclaredFieldSentTwiceIsRefusedInAnEvolvingStream() {
        assertThat(duplicate(new EvolvingDecoder(), "{'n': 1, 'extra': 1, 'extra': 2}").field()).isEqualTo("extra");
    }

    @Test
    void aDuplicateInsideAnEvolvingFieldsValueIsRefused() {
        assertThat(duplicate(new EvolvingDecoder(), "{'n': 1, 'extra': [{'k': 1, 'k': 2}]}").field()).isEqualTo("k");
    }

    @Test
    void theSameNameInDifferentObjectsIsNotADuplicate() {
        AllTypesEvent event = allTypes("{'j': {'s': {'s': 1}, 'list': [{'s': 1}, {'s': 2}]}, 's': 'top'}");
        assertThat(event.s()).isEqualTo("top");
        assertThat(event.j()).isEqualTo("{\"s\":{\"s\":1},\"list\":[{\"s\":1},{\"s\":2}]}");
    }

    @Test
    void namesThatDifferOnlyInCaseAreNotDuplicatesInsideAJsonValue() {
        assertThat(allTypes("{'j': {'a': 1, 'A': 2}}").j()).isEqualTo("{\"a\":1,\"A\":2}");
    }

    @Test
    void aDuplicateFieldIsAJsonProcessingExceptionSoItIsNeverMistakenForAServerError() {
        assertThat(duplicate(new AllTypesDecoder(), "{'s': 'a', 's': 'b'}"))
                .isInstanceOf(JsonProcessingException.class);
    }
}
