package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.assertError;
import static dev.interlace.integration.decoding.Decoding.errors;
import static dev.interlace.integration.decoding.Decoding.onlyError;
import static dev.interlace.integration.decoding.Decoding.requiredFields;
import static dev.interlace.integration.decoding.Decoding.requiredWith;
import static dev.interlace.integration.decoding.Decoding.requiredWithout;
import static dev.interlace.integration.decoding.Decoding.valid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.stream.FieldError;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A {@code not null} column rejects a missing field and an explicit JSON null. */
class NotNullTest {

    private static final String[] NOT_NULL_COLUMNS =
            {"id", "amount", "name", "at", "day", "flag", "ratio", "payload"};

    @Test
    void anEventWithEveryNotNullColumnDecodes() {
        RequiredEvent event = valid(new RequiredDecoder(), requiredWith("note", "\"gift\"")).event();
        assertThat(event.id()).isEqualTo(1L);
        assertThat(event.amount()).isEqualTo(new BigDecimal("12.5000000000"));
        assertThat(event.name()).isEqualTo("widget");
        assertThat(event.at()).isEqualTo(Instant.parse("2026-11-29T08:30:00Z"));
        assertThat(event.day()).isEqualTo(LocalDate.of(2026, 11, 29));
        assertThat(event.flag()).isTrue();
        assertThat(event.ratio()).isEqualTo(0.5);
        assertThat(event.payload()).isEqualTo("{\"k\":[1,2]}");
        assertThat(event.note()).isEqualTo("gift");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"id", "amount", "name", "at", "day", "flag", "ratio", "payload"})
    void aMissingNotNullColumnIsAnErrorNamingTheField(String column) {
        assertError(onlyError(new RequiredDecoder(), requiredWithout(column)), column,
                "missing", "not null");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"id", "amount", "name", "at", "day", "flag", "ratio", "payload"})
    void anExplicitNullInANotNullColumnIsAnErrorNamingTheField(String column) {
        assertError(onlyError(new RequiredDecoder(), requiredWith(column, "null")), column, "is null", "not null");
    }

    @Test
    void aMissingNullableColumnIsANullComponent() {
        assertThat(valid(new RequiredDecoder(), Decoding.object(requiredFields())).event().note()).isNull();
    }

    @Test
    void anExplicitNullInANullableColumnIsANullComponent() {
        assertThat(valid(new RequiredDecoder(), requiredWith("note", "null")).event().note()).isNull();
    }

    @Test
    void everyMissingNotNullColumnIsReportedInDeclarationOrder() {
        List<FieldError> errors = errors(new RequiredDecoder(), "{}");
        assertThat(errors).extracting(FieldError::field).containsExactly(NOT_NULL_COLUMNS);
        assertThat(errors).allSatisfy(error -> assertThat(error.reason()).contains("missing"));
    }

    @Test
    void aNotNullColumnWithAValueOfTheWrongTypeGetsOneErrorAboutTheType() {
        FieldError error = onlyError(new RequiredDecoder(), requiredWith("id", "\"7\""));
        assertThat(error.field()).isEqualTo("id");
        assertThat(error.reason()).contains("expected an integer").doesNotContain("missing");
    }

    @Test
    void aNotNullColumnWithAnInvalidValueGetsOneErrorAboutTheValue() {
        assertError(onlyError(new RequiredDecoder(), requiredWith("amount", "0.00000000001")), "amount",
                "fractional digits");
    }

    @Test
    void theOrdersStreamRequiresItsOrderId() {
        assertError(onlyError(new dev.interlace.integration.OrdersDecoder(), "{\"total\": 49.5}"), "order_id",
                "missing");
    }
}
