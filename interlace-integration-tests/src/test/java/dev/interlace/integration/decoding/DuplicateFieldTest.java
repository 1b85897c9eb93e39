package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.interlace.runtime.stream.DuplicateFieldException;
import dev.interlace.runtime.stream.EventDecoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

    private static EventDecoder<?> decoder(String stream) {
        return switch (stream) {
            case "all_types" -> new AllTypesDecoder();
            case "quarantined" -> new QuarantinedDecoder();
            case "evolving" -> new EvolvingDecoder();
            default -> throw new IllegalArgumentException(stream);
        };
    }

    @Test
    void aDeclaredFieldSentTwiceIsRefused() {
        DuplicateFieldException thrown = duplicate(new AllTypesDecoder(), "{'s': 'a', 'b': 1, 's': 'b'}");
        assertThat(thrown.field()).isEqualTo("s");
        assertThat(thrown.getOriginalMessage()).contains("duplicate field \"s\"");
    }

    /** A field sent twice, declared or not, at the top or nested anywhere: refused, naming the field. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            declared, the same value twice  | all_types   | {'b': 1, 'b': 1}                                 | b
            declared, first value invalid   | all_types   | {'b': 'x', 'b': 1}                               | b
            declared, first value null      | all_types   | {'s': null, 's': 'a'}                            | s
            nested in a JSON value          | all_types   | {'j': {'a': 1, 'a': 2}}                          | a
            deep in arrays of a JSON value  | all_types   | {'j': [1, [{'ok': 1}, {'x': {'y': 1, 'y': 2}}]]} | y
            in a value of the wrong type    | all_types   | {'b': {'x': 1, 'x': 2}}                          | x
            undeclared                      | all_types   | {'extra': 1, 's': 'a', 'extra': 2}               | extra
            in an undeclared value          | all_types   | {'extra': {'k': 1, 'k': 1}}                      | k
            undeclared, quarantining stream | quarantined | {'id': 'a', 'x': 1, 'x': 2}                      | x
            undeclared, evolving stream     | evolving    | {'n': 1, 'extra': 1, 'extra': 2}                 | extra
            in an evolving field's value    | evolving    | {'n': 1, 'extra': [{'k': 1, 'k': 2}]}            | k
            """)
    void aDuplicateAnywhereIsRefusedNamingTheDuplicatedField(String description, String stream, String singleQuoted,
            String field) {
        assertThat(duplicate(decoder(stream), singleQuoted).field()).isEqualTo(field);
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
