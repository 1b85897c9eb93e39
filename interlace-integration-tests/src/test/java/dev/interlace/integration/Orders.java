package dev.interlace.integration;

import dev.interlace.annotations.Stream;

/** Orders placed in a shop: deduplicated by order id for a week; anything off-schema is rejected with 422. */
@Stream(name = "orders",
        schema = {"order_id string not null", "total decimal(12,2)", "placed_at timestamp", "meta json"},
        idempotencyKey = "order_id",
        retention = "7d")
public final class Orders {}
