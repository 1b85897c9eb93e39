package com.example.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.interlace.test.InterlaceTest;
import dev.interlace.test.Publication;
import dev.interlace.test.TestInterlace;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@InterlaceTest
class CustomerBalanceTest {

    @Test
    void theBalanceIsWhatACustomerPaidLessTheirRefunds(TestInterlace interlace) {
        interlace.publish("orders",
                "{\"order_id\": \"o1\", \"customer\": \"ada\", \"total\": 30.00}",
                "{\"order_id\": \"o2\", \"customer\": \"bob\", \"total\": 12.50}");
        interlace.publish("refunds", "{\"refund_id\": \"r1\", \"order_id\": \"o1\", \"amount\": 5}");

        interlace.awaitMaterialised();

        assertEquals(List.of(
                        Map.of("customer", "ada", "balance", new BigDecimal("25.00")),
                        Map.of("customer", "bob", "balance", new BigDecimal("12.50"))),
                interlace.sql("SELECT customer, balance FROM customer_balance ORDER BY customer"));
        assertEquals("succeeded", interlace.runs("customer_balance").get(0).status().wire());
    }

    @Test
    void aRetriedOrderIsCountedOnce(TestInterlace interlace) {
        String order = "{\"order_id\": \"o1\", \"customer\": \"ada\", \"total\": 30.00}";
        assertEquals(List.of("accepted"), interlace.publish("orders", order).statuses());
        assertEquals(List.of("duplicate"), interlace.publish("orders", order).statuses());

        interlace.awaitMaterialised();

        assertEquals(List.of(Map.of("customer", "ada", "balance", new BigDecimal("30.00"))),
                interlace.sql("SELECT customer, balance FROM customer_balance"));
    }

    @Test
    void aRefundWithoutAnAmountIsQuarantinedNotCounted(TestInterlace interlace) {
        Publication refund = interlace.publish("refunds", "{\"refund_id\": \"r1\", \"order_id\": \"o1\"}");

        assertEquals(List.of("quarantined"), refund.statuses());
        assertEquals(1, interlace.quarantine("refunds").size());
        interlace.awaitMaterialised();
        assertEquals(1, interlace.correlate(refund.requestId()).path("quarantine").path("total").asInt());
        assertTrue(interlace.sql("SELECT * FROM streams.refunds").isEmpty());
    }
}
