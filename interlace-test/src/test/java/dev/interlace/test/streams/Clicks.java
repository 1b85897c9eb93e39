package dev.interlace.test.streams;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.annotations.Stream;

/** Clicks: an event off the schema is quarantined, the rest of its request accepted. */
@Stream(name = "clicks",
        schema = {"click_id string not null", "url string not null"},
        idempotencyKey = "click_id",
        retention = "1d",
        onSchemaDrift = SchemaDrift.QUARANTINE)
public final class Clicks {}
