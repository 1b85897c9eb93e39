package dev.interlace.integration.decoding;

import dev.interlace.annotations.Stream;

/** A test-only stream whose columns are {@code not null}, of every type, plus one nullable column. */
@Stream(name = "decoding_required",
        schema = {"id bigint not null", "amount decimal(38,10) not null", "name string not null",
                  "at timestamp not null", "day date not null", "flag boolean not null", "ratio double not null",
                  "payload json not null", "note string"},
        idempotencyKey = "id")
public final class Required {}
