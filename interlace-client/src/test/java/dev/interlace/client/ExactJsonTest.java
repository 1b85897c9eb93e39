package dev.interlace.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ExactJsonTest {

    @Test
    void theExactMapperKeepsScaleAndLongIntegers() throws Exception {
        String text = "{\"a\":49.50,\"b\":" + "1".repeat(400) + "}";
        assertThat(ExactJson.mapper().readTree(text).toString()).isEqualTo(text);
    }

    @Test
    void theExactMapperReadsNumbersLongerThanJacksonsDefaultLimit() throws Exception {
        String text = "{\"a\":" + "9".repeat(2000) + "." + "5".repeat(2000) + "}";
        assertThat(ExactJson.mapper().readTree(text).toString()).isEqualTo(text);
    }
}
