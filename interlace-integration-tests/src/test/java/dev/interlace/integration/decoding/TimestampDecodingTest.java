package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.allTypesError;
import static dev.interlace.integration.decoding.Decoding.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.stream.FieldError;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code timestamp} takes an RFC 3339 string with {@code Z} or a {@code ±hh:mm} offset and up to 6 fractional
 * digits, normalised to UTC; a missing offset is an error that says to add one.
 */
class TimestampDecodingTest {

    private static Instant timestamp(String text) {
        return allTypes("{'t': '" + text + "'}").t();
    }

    private static FieldError timestampError(String text) {
        FieldError error = allTypesError("{'t': '" + text + "'}");
        assertThat(error.field()).isEqualTo("t");
        return error;
    }

    @Test
    void timestampAcceptsUtcWithZ() {
        assertThat(timestamp("2026-11-29T08:30:00Z")).isEqualTo(Instant.parse("2026-11-29T08:30:00Z"));
    }

    @Test
    void timestampNormalisesAPositiveOffsetToUtc() {
        assertThat(timestamp("2026-11-29T10:30:00+02:00")).isEqualTo(Instant.parse("2026-11-29T08:30:00Z"));
    }

    @Test
    void timestampNormalisesANegativeHalfHourOffsetToUtc() {
        assertThat(timestamp("2026-11-29T03:00:00-05:30")).isEqualTo(Instant.parse("2026-11-29T08:30:00Z"));
    }

    @Test
    void timestampNormalisationMayCrossIntoThePreviousYear() {
        assertThat(timestamp("2026-01-01T01:00:00+02:00")).isEqualTo(Instant.parse("2025-12-31T23:00:00Z"));
    }

    @Test
    void timestampTreatsZeroOffsetsLikeZ() {
        Instant utc = Instant.parse("2026-11-29T08:30:00Z");
        assertThat(timestamp("2026-11-29T08:30:00+00:00")).isEqualTo(utc);
        assertThat(timestamp("2026-11-29T08:30:00-00:00")).isEqualTo(utc);
    }

    @Test
    void timestampKeepsSixFractionalDigitsToTheMicrosecond() {
        Instant instant = timestamp("2026-11-29T08:30:00.123456Z");
        assertThat(instant).isEqualTo(Instant.parse("2026-11-29T08:30:00.123456Z"));
        assertThat(instant.getNano()).isEqualTo(123_456_000);
    }

    @Test
    void timestampAcceptsFewerFractionalDigits() {
        assertThat(timestamp("2026-11-29T08:30:00.5Z").getNano()).isEqualTo(500_000_000);
        assertThat(timestamp("2026-11-29T08:30:00.012+01:00"))
                .isEqualTo(Instant.parse("2026-11-29T07:30:00.012Z"));
    }

    @Test
    void timestampKeepsMicrosecondsBeforeTheEpoch() {
        assertThat(timestamp("1969-12-31T23:59:59.999999Z")).isEqualTo(Instant.ofEpochSecond(-1, 999_999_000));
    }

    @Test
    void timestampRejectsSevenFractionalDigitsAndSaysSixIsTheLimit() {
        FieldError error = timestampError("2026-11-29T08:30:00.1234567Z");
        assertThat(error.reason()).contains("7 fractional digits").contains("microseconds").contains("6");
    }

    @Test
    void timestampRejectsNanosecondPrecision() {
        assertThat(timestampError("2026-11-29T08:30:00.123456789+02:00").reason()).contains("microseconds");
    }

    @Test
    void timestampWithoutAnOffsetIsRejectedWithAHintToAddOne() {
        FieldError error = timestampError("2026-11-29T08:30:00");
        assertThat(error.reason()).contains("no UTC offset").contains("add").contains("Z").contains("+02:00");
    }

    @Test
    void timestampWithFractionButWithoutAnOffsetIsRejectedWithAHintToAddOne() {
        assertThat(timestampError("2026-11-29T08:30:00.250").reason()).contains("offset").contains("add");
    }

    @Test
    void timestampAcceptsTheLeapDayOfALeapYear() {
        assertThat(timestamp("2024-02-29T12:00:00Z")).isEqualTo(Instant.parse("2024-02-29T12:00:00Z"));
    }

    @Test
    void timestampRejectsFebruaryTwentyNinthOfACommonYear() {
        assertThat(timestampError("2023-02-29T12:00:00Z").reason()).contains("2023-02-29");
    }

    @Test
    void timestampRejectsAThirteenthMonth() {
        assertThat(timestampError("2026-13-01T00:00:00Z").reason()).contains("2026-13-01");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "2026-04-31T00:00:00Z", // April has 30 days
            "2026-00-10T00:00:00Z",
            "2026-01-00T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T23:60:00Z",
            "2026-01-01T23:59:61Z",
            "2026-01-01T00:00:00+24:00",
            "2026-01-01T00:00:00+02:60"})
    void timestampRejectsOutOfRangeFields(String text) {
        assertThat(timestampError(text).reason()).contains(text);
    }

    @Test
    void timestampAcceptsLowerCaseTAndZ() {
        assertThat(timestamp("2026-11-29t08:30:00z")).isEqualTo(Instant.parse("2026-11-29T08:30:00Z"));
        assertThat(timestamp("2026-11-29t10:30:00+02:00")).isEqualTo(Instant.parse("2026-11-29T08:30:00Z"));
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {
            "2026-11-29",
            "08:30:00Z",
            "2026-11-29T08:30Z",
            "2026-11-29T08:30:00.Z",
            "2026-11-29T08:30:00+0200",
            "2026-11-29T08:30:00+02",
            "2026-11-29T08:30:00 Z",
            "2026-11-29T08:30:00Zjunk",
            " 2026-11-29T08:30:00Z",
            "2026-11-29T08:30:00Z ",
            "26-11-29T08:30:00Z",
            "2026-11-29T8:30:00Z",
            "Sun, 29 Nov 2026 08:30:00 GMT",
            "1732868400",
            ""})
    void timestampRejectsTextThatIsNotRfc3339AndShowsAnExample(String text) {
        assertThat(timestampError(text).reason()).contains("RFC 3339").contains("2026-11-29T08:30:00.123456Z");
    }

    @Test
    void timestampRejectsAnEpochNumber() {
        assertError(allTypesError("{'t': 1732868400}"), "t", "RFC 3339", "number");
    }

    @Test
    void timestampTreatsJsonNullAsNoValueInANullableColumn() {
        assertThat(allTypes("{'t': null}").t()).isNull();
    }
}
