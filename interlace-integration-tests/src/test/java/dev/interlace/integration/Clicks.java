package dev.interlace.integration;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.annotations.Stream;

/** Page clicks from a web front end: bad events are quarantined instead of failing the whole batch. */
@Stream(name = "clicks",
        schema = {"click_id string not null", "user_id string", "url string not null", "at timestamp not null"},
        idempotencyKey = "click_id",
        retention = "1d",
        onSchemaDrift = SchemaDrift.QUARANTINE)
public final class Clicks {}
