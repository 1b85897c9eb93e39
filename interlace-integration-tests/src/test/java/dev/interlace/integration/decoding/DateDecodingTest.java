package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.allTypesError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.stream.FieldError;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code date} takes a {@code YYYY-MM-DD} string naming a real calendar day. */
class DateDecodingTest {

    private static FieldError dateError(String value) {
        FieldError error = allTypesError("{'day': " + value + "}");
        assertThat(error.field()).isEqualTo("day");
        return error;
    }

    @Test
    void dateAcceptsAnIsoCalendarDate() {
        assertThat(allTypes("{'day': '2026-11-29'}").day()).isEqualTo(LocalDate.of(2026, 11, 29));
    }

    @Test
    void dateAcceptsTheLeapDayOfALeapYear() {
        assertThat(allTypes("{'day': '2024-02-29'}").day()).isEqualTo(LocalDate.of(2024, 2, 29));
    }

    @Test
    void dateAcceptsTheFirstAndLastDayOfTheYear() {
        assertThat(allTypes("{'day': '2026-01-01'}").day()).isEqualTo(LocalDate.of(2026, 1, 1));
        assertThat(allTypes("{'day': '2026-12-31'}").day()).isEqualTo(LocalDate.of(2026, 12, 31));
    }

    @Test
    void dateRejectsFebruaryTwentyNinthOfACommonYear() {
        assertThat(dateError("'2023-02-29'").reason()).contains("2023-02-29").contains("not a valid date");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"2026-13-01", "2026-00-10", "2026-04-31", "2026-01-32", "2026-01-00"})
    void dateRejectsDaysThatDoNotExist(String text) {
        assertThat(dateError("'" + text + "'").reason()).contains(text);
    }

    @Test
    void dateRejectsMonthsAndDaysWithoutLeadingZeros() {
        assertThat(dateError("'2026-1-5'").reason()).contains("2026-1-5").contains("YYYY-MM-DD");
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"2026-11-29T08:30:00Z", "2026-11-29T00:00:00", "2026-11-29 ", "20261129", "29/11/2026",
            "2026/11/29", "26-11-29", "+2026-11-29", ""})
    void dateRejectsTextThatIsNotExactlyYyyyMmDd(String text) {
        assertThat(dateError("'" + text + "'").reason()).contains("YYYY-MM-DD");
    }

    @Test
    void dateRejectsTimestamps() {
        assertThat(dateError("'2026-11-29T08:30:00Z'").reason()).contains("not a date");
    }

    @Test
    void dateRejectsNumbers() {
        assertThat(dateError("20261129").reason()).contains("date string").contains("number");
    }

    @Test
    void dateTreatsJsonNullAsNoValueInANullableColumn() {
        assertThat(allTypes("{'day': null}").day()).isNull();
    }
}
