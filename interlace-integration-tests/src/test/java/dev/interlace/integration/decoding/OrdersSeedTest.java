package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.assertError;
import static dev.interlace.integration.decoding.Decoding.json;
import static dev.interlace.integration.decoding.Decoding.onlyError;
import static dev.interlace.integration.decoding.Decoding.valid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.integration.OrdersDecoder;
import dev.interlace.integration.OrdersEvent;
import dev.interlace.integration.OrdersStream;
import dev.interlace.runtime.stream.DecodeResult;
import java.math.BigDecimal;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The real {@code orders} example stream decodes the payloads shown in the docs and the seed post. */
class OrdersSeedTest {

    @Test
    void theSeedPayloadDecodesToTypedValues() {
        OrdersEvent event = valid(new OrdersDecoder(), "{\"order_id\": \"o1\", \"total\": 49.5}").event();
        assertThat(event.orderId()).isEqualTo("o1");
        assertThat(event.total()).isEqualTo(new BigDecimal("49.50"));
        assertThat(event.total().scale()).isEqualTo(2);
        assertThat(event.placedAt()).isNull();
        assertThat(event.meta()).isNull();
    }

    @Test
    void theDescriptorsDecoderIsTheGeneratedOne() throws Exception {
        DecodeResult<?> result = OrdersStream.DESCRIPTOR.decoder().decode("{\"order_id\": \"o1\", \"total\": 49.5}");
        assertThat(result).isEqualTo(new DecodeResult.Valid<>(
                new OrdersEvent("o1", new BigDecimal("49.50"), null, null), java.util.Map.of()));
    }

    @Test
    void aFullOrderDecodesEveryColumn() {
        OrdersEvent event = valid(new OrdersDecoder(), json("{'order_id': 'o2', 'total': '1234.00',"
                + " 'placed_at': '2026-11-29T10:30:00.25+02:00', 'meta': {'coupon': 'XMAS', 'items': [1, 2]}}")).event();
        assertThat(event.orderId()).isEqualTo("o2");
        assertThat(event.total()).isEqualTo(new BigDecimal("1234.00"));
        assertThat(event.placedAt()).isEqualTo(Instant.parse("2026-11-29T08:30:00.250Z"));
        assertThat(event.meta()).isEqualTo("{\"coupon\":\"XMAS\",\"items\":[1,2]}");
    }

    @Test
    void anOrderTotalIsNeverRounded() {
        assertError(onlyError(new OrdersDecoder(), json("{'order_id': 'o3', 'total': 49.999}")), "total",
                "never rounded");
    }

    @Test
    void anOrdersUnknownFieldIsRejectedNamingTheDeclaredColumns() {
        assertError(onlyError(new OrdersDecoder(), json("{'order_id': 'o4', 'customer': 'c1'}")), "customer",
                "order_id, total, placed_at, meta");
    }
}
