package dev.interlace.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JavaNamesTest {

    @ParameterizedTest
    @CsvSource({"order_id, orderId", "id, id", "a1_b2, a1B2", "trailing_, trailing", "x__y, xY", "class, class_",
            "default, default_", "hash_code, hashCode_", "to_string, toString_", "get_class, getClass_",
            "record, record", "var, var"})
    void columnNamesBecomeSafeComponentNames(String column, String component) {
        assertThat(JavaNames.componentName(column, List.of())).isEqualTo(component);
    }

    @Test
    void namesAlreadyTakenGetAnUnderscore() {
        assertThat(JavaNames.componentName("errors", List.of("errors"))).isEqualTo("errors_");
        assertThat(JavaNames.componentName("a_b", List.of("aB", "aB_"))).isEqualTo("aB__");
    }
}
