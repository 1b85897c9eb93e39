package com.example.shop;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.annotations.Stream;

/** Refunds from the support desk: a malformed one is quarantined for a human to fix and replay. */
@Stream(name = "refunds",
        schema = {"refund_id string not null", "order_id string not null", "amount decimal(10,2) not null"},
        idempotencyKey = "refund_id",
        retention = "7d",
        onSchemaDrift = SchemaDrift.QUARANTINE)
public final class Refunds {}
