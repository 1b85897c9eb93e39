package dev.interlace.test.streams;

import dev.interlace.annotations.Stream;

/** Orders, deduplicated by order id; anything off-schema is refused with 422. */
@Stream(name = "orders",
        schema = {"order_id string not null", "total decimal(12,2) not null"},
        idempotencyKey = "order_id",
        retention = "1d")
public final class Orders {}
