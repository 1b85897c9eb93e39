package dev.interlace.integration.decoding;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.annotations.Stream;

/** A test-only stream that evolves: undeclared fields become new columns instead of errors. */
@Stream(name = "decoding_evolving",
        schema = {"s string", "n bigint not null"},
        onSchemaDrift = SchemaDrift.EVOLVE)
public final class Evolving {}
