package dev.interlace.spring.boot.shop;

import dev.interlace.annotations.Stream;

/** Orders the shop publishes. */
@Stream(name = "shop_orders", schema = {"order_id string not null", "total decimal(12,2)"},
        idempotencyKey = "order_id", retention = "1d")
public final class Orders {}
