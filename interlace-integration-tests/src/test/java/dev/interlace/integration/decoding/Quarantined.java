package dev.interlace.integration.decoding;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.annotations.Stream;

/** A test-only stream that quarantines events that do not match its schema. */
@Stream(name = "decoding_quarantined",
        schema = {"id string not null", "n bigint"},
        onSchemaDrift = SchemaDrift.QUARANTINE)
public final class Quarantined {}
