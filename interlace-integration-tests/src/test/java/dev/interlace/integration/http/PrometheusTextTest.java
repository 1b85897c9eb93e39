package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The test-side Prometheus text reader accepts the format and refuses what breaks it, so that a body it accepts in
 * {@link MetricsTest} really is valid.
 */
class PrometheusTextTest {

    private static final String VALID = String.join("\n",
            "# HELP requests_total Requests, with a \\\\ and a \\n in the help",
            "# TYPE requests_total counter",
            "requests_total{route=\"/a\",status=\"200\"} 3.0",
            "requests_total{route=\"/b \\\"quoted\\\"\",status=\"200\"} 1 1764403200000",
            "# TYPE latency_seconds histogram",
            "latency_seconds_bucket{le=\"0.1\"} 1",
            "latency_seconds_bucket{le=\"1.0\"} 2",
            "latency_seconds_bucket{le=\"+Inf\"} 3",
            "latency_seconds_count 3",
            "latency_seconds_sum 4.5e0",
            "# TYPE temperature gauge",
            "temperature -1.5",
            "temperature{room=\"b\"} NaN",
            "");

    @Test
    void readsEveryLineOfAValidBody() {
        PrometheusText text = PrometheusText.parse(VALID);
        assertThat(text.samples()).hasSize(9);
        assertThat(text.value("requests_total", "route", "/b \"quoted\"", "status", "200")).isEqualTo(1.0);
        assertThat(text.value("latency_seconds_sum")).isEqualTo(4.5);
        assertThat(text.families().get("latency_seconds").type()).isEqualTo("histogram");
        assertThat(text.families().get("requests_total").help()).isEqualTo("Requests, with a \\\\ and a \\n in the help");
    }

    @Test
    void refusesASampleWhoseFamilyHasNoType() {
        assertRefused("# HELP x Something\nx 1\n", "no TYPE");
        assertRefused("# TYPE x gauge\ny 1\n", "no TYPE");
    }

    @Test
    void refusesBadNamesValuesAndEscapes() {
        assertRefused("# TYPE 1x gauge\n", "invalid metric name");
        assertRefused("# TYPE x gauge\nx{1a=\"v\"} 1\n", "invalid label name");
        assertRefused("# TYPE x gauge\nx{a=\"v\\t\"} 1\n", "invalid escape");
        assertRefused("# TYPE x gauge\nx{a=v} 1\n", "quoted");
        assertRefused("# TYPE x gauge\nx one\n", "not a float");
        assertRefused("# TYPE x gauge\nx 0x10\n", "not a float");
        assertRefused("# TYPE x gauge\nx Infinity\n", "not a float");
        assertRefused("# TYPE x gauge\nx  1\n", "not a float");
        assertRefused("# TYPE x gauge\nx 1 now\n", "invalid timestamp");
        assertRefused("# TYPE x_total counter\nx_total -1\n", "never negative");
    }

    @Test
    void refusesOtherLinesAndAnUnterminatedBody() {
        assertRefused("# TYPE x gauge\n\nx 1\n", "invalid metric name");
        assertRefused("# some comment\n", "only");
        assertRefused("# TYPE x gauge\nx 1", "line feed");
        assertRefused("# TYPE x thing\n", "TYPE must be");
    }

    @Test
    void refusesRepeatsAndScatteredFamilies() {
        assertRefused("# TYPE x gauge\n# TYPE x gauge\n", "second TYPE");
        assertRefused("# TYPE x gauge\nx{a=\"1\"} 1\nx{a=\"1\"} 2\n", "twice");
        assertRefused("# TYPE x gauge\n# TYPE y gauge\nx 1\ny 1\n", "contiguous");
        assertRefused("# TYPE x gauge\nx 1\n# TYPE y gauge\ny 1\nx{a=\"b\"} 1\n", "contiguous");
    }

    @Test
    void refusesInconsistentHistograms() {
        assertRefused("# TYPE h histogram\nh_bucket 1\n", "no TYPE");
        assertRefused("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum 1\n",
                "cumulative");
        assertRefused("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_count 2\nh_sum 1\n",
                "differs");
        assertRefused("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\n", "no _count");
        assertRefused("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n", "no _sum");
    }

    private static void assertRefused(String body, String reason) {
        assertThatThrownBy(() -> PrometheusText.parse(body)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(reason);
    }
}
