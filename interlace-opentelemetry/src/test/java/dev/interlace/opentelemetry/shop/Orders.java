package dev.interlace.opentelemetry.shop;

import dev.interlace.annotations.Stream;

/** Orders whose publishes the tracing tests follow. */
@Stream(name = "traced_orders", schema = {"order_id string not null", "total decimal(12,2)"},
        idempotencyKey = "order_id", retention = "1d")
public final class Orders {}
