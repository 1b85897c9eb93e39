package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static dev.interlace.integration.decoding.Decoding.allTypesError;
import static dev.interlace.integration.decoding.Decoding.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.stream.FieldError;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
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

    /**
     * {@code Z} or an offset, normalised to UTC (also across a year, also a negative half-hour offset; zero offsets
     * are like {@code Z}), up to six fractional digits to the microsecond, also before the epoch, the leap day of a
     * leap year, lower-case {@code t} and {@code z}.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            2026-11-29T08:30:00Z             | 2026-11-29T08:30:00Z
            2026-11-29T10:30:00+02:00        | 2026-11-29T08:30:00Z
            2026-11-29T03:00:00-05:30        | 2026-11-29T08:30:00Z
            2026-01-01T01:00:00+02:00        | 2025-12-31T23:00:00Z
            2026-11-29T08:30:00+00:00        | 2026-11-29T08:30:00Z
            2026-11-29T08:30:00-00:00        | 2026-11-29T08:30:00Z
            2026-11-29T08:30:00.123456Z      | 2026-11-29T08:30:00.123456Z
            2026-11-29T08:30:00.5Z           | 2026-11-29T08:30:00.500Z
            2026-11-29T08:30:00.012+01:00    | 2026-11-29T07:30:00.012Z
            1969-12-31T23:59:59.999999Z      | 1969-12-31T23:59:59.999999Z
            2024-02-29T12:00:00Z             | 2024-02-29T12:00:00Z
            2026-11-29t08:30:00z             | 2026-11-29T08:30:00Z
            2026-11-29t10:30:00+02:00        | 2026-11-29T08:30:00Z
            """)
    void timestampIsNormalisedToUtcToTheMicrosecond(String text, String utc) {
        assertThat(timestamp(text)).isEqualTo(Instant.parse(utc));
    }

    /**
     * More than six fractional digits, no offset (with a hint to add one), and a field out of range (February 29th of
     * a common year, a thirteenth month, ...) are errors; the reason contains each {@code ;}-separated fragment.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            2026-11-29T08:30:00.1234567Z        | 7 fractional digits;microseconds;6
            2026-11-29T08:30:00.123456789+02:00 | microseconds
            2026-11-29T08:30:00                 | no UTC offset;add;Z;+02:00
            2026-11-29T08:30:00.250             | offset;add
            2023-02-29T12:00:00Z                | 2023-02-29
            2026-13-01T00:00:00Z                | 2026-13-01
            # April has 30 days
            2026-04-31T00:00:00Z                | 2026-04-31T00:00:00Z
            2026-00-10T00:00:00Z                | 2026-00-10T00:00:00Z
            2026-01-00T00:00:00Z                | 2026-01-00T00:00:00Z
            2026-01-01T24:00:00Z                | 2026-01-01T24:00:00Z
            2026-01-01T23:60:00Z                | 2026-01-01T23:60:00Z
            2026-01-01T23:59:61Z                | 2026-01-01T23:59:61Z
            2026-01-01T00:00:00+24:00           | 2026-01-01T00:00:00+24:00
            2026-01-01T00:00:00+02:60           | 2026-01-01T00:00:00+02:60
            """)
    void timestampRejectsTooMuchPrecisionNoOffsetAndOutOfRangeFields(String text, String reasonFragments) {
        assertThat(timestampError(text).reason()).contains(reasonFragments.split(";"));
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
