package dev.interlace.examples.console;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.annotations.Stream;

/**
 * {@link Visits} after the developer added the column its quarantined events carried; the browser tests serve it
 * under the name {@code console_visits}, as a rebuilt application would.
 */
@Stream(name = "console_visits_v2",
        schema = {"visit_id string not null", "page string not null", "referrer string"},
        idempotencyKey = "visit_id",
        onSchemaDrift = SchemaDrift.QUARANTINE)
public final class VisitsWithReferrer {}
