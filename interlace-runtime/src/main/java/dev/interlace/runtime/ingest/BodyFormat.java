package dev.interlace.runtime.ingest;

/** How a publish body lists its events. */
public enum BodyFormat {
    /** One JSON object, or a JSON array of objects ({@code application/json}). */
    JSON,
    /** One JSON object per line ({@code application/x-ndjson}); blank lines are skipped. */
    NDJSON
}
