package dev.interlace.log.kafka;

/**
 * Told of the steps by which a holder publishes its deduplication segments ({@link IndexTopic}): parts, then the seal
 * naming them, then tombstones for the parts no seal names any more. Does nothing by default; crash tests stop the
 * process at these steps (a test module reaches the log's constructor that takes one; no flag does).
 */
public interface IndexPublicationListener {

    IndexPublicationListener NONE = new IndexPublicationListener() {};

    /**
     * Part {@code part} of {@code parts} of segment file {@code file} of {@code stream} is on the brokers; no seal names
     * it yet.
     */
    default void partSent(String stream, String file, int part, int parts) {}

    /**
     * A seal of {@code stream} holding every key through {@code sealedThrough} is on the brokers; the parts it no
     * longer names are not tombstoned yet.
     */
    default void sealed(String stream, long sealedThrough) {}

    /**
     * The tombstone of part {@code part} of {@code file} of {@code stream}, which the last seal no longer names, is on
     * the brokers.
     */
    default void tombstoned(String stream, String file, int part) {}
}
