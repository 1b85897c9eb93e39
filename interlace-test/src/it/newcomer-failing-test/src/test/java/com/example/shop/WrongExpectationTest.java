package com.example.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.interlace.test.InterlaceTest;
import dev.interlace.test.TestInterlace;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@InterlaceTest
class WrongExpectationTest {

    @Test
    void expectsTwoOrdersWhereOneWasPublished(TestInterlace interlace) {
        interlace.publish("orders", "{\"order_id\": \"o1\", \"customer\": \"ada\", \"total\": 30.00}");
        interlace.awaitMaterialised();

        assertEquals(List.of(Map.of("n", 2L)), interlace.sql("SELECT count(*) AS n FROM streams.orders"));
    }
}
