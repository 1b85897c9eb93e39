package dev.interlace.annotations;

/** What a stream does with an event that does not match its declared schema. */
public enum SchemaDrift {

    /** Any unknown field or invalid value fails the whole request with 422; nothing is stored. */
    REJECT,

    /**
     * Valid events are accepted; invalid ones are stored durably, with every error, in the stream's quarantine for
     * inspection and replay.
     */
    QUARANTINE,

    /**
     * Declared columns are validated as with {@link #REJECT}; unknown fields become new nullable columns with inferred
     * types, widened on conflict rather than stalling the stream.
     */
    EVOLVE
}
