package dev.interlace.integration.console;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.annotations.Stream;

/**
 * A test-only quarantining stream, as first deployed: events with a field it does not declare yet are set aside. The
 * console's browser test then rebuilds it with that column and replays them.
 */
@Stream(name = "console_visits",
        schema = {"visit_id string not null", "page string not null"},
        idempotencyKey = "visit_id",
        onSchemaDrift = SchemaDrift.QUARANTINE)
public final class Visits {}
