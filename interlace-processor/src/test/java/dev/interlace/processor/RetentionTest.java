package dev.interlace.processor;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RetentionTest {

    @ParameterizedTest
    @CsvSource({"30s, 30000", "5m, 300000", "12h, 43200000", "7d, 604800000", "2w, 1209600000", "1d, 86400000"})
    void eachUnitConvertsToMilliseconds(String retention, long millis) {
        assertThat(Retention.parseMillis(retention)).hasValue(millis);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "7", "d", "7days", "7D", "-1d", "0d", "1.5h", " 7d", "7d ", "1y", "999999999999w"})
    void anythingElseIsRefused(String retention) {
        assertThat(Retention.parseMillis(retention)).isEmpty();
    }
}
