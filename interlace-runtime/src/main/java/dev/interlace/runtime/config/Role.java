package dev.interlace.runtime.config;

import java.util.Locale;

/**
 * What a node of a cluster on the Kafka log runs ({@code serve --role}). On the SQLite log a server is always
 * {@link #ALL}: it owns its log and its warehouse.
 */
public enum Role {
    /** Everything: HTTP, the sequencers the group assigns it, the flusher, the warehouse and the models. */
    ALL,
    /** HTTP and sequencing only: no flusher, no warehouse, no models; what needs the warehouse goes to its node. */
    INGEST,
    /** The flusher, the warehouse, the models and {@code /sql}; sequences no stream. */
    WAREHOUSE;

    /** Whether this node runs the warehouse (the flusher, DuckDB, the models). */
    public boolean runsWarehouse() {
        return this != INGEST;
    }

    /** Whether this node may sequence streams (is a member of the sequencer group). */
    public boolean sequences() {
        return this != WAREHOUSE;
    }

    /** The form of the flag: {@code all}, {@code ingest}, {@code warehouse}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
