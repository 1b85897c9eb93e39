package com.example.shop;

import dev.interlace.annotations.Stream;

/** Orders from the checkout: one per order id, anything off-schema refused. */
@Stream(name = "orders",
        schema = {"order_id string not null", "customer string not null", "total decimal(10,2) not null"},
        idempotencyKey = "order_id",
        retention = "7d")
public final class Orders {}
