package dev.interlace.log.kafka;

/**
 * Where a stream's records sit in one of its topics, by their numbers (the events' offsets, the quarantined entries'
 * sequence numbers), as far as its {@link StreamView} knows: read and learned under the view's lock.
 */
interface TopicPositions {

    /** A Kafka offset from which reading the topic forward reaches record {@code number}. */
    long readFrom(long number);

    /** A Kafka offset where a read through record {@code number} may stop (exclusive). */
    long readEnd(long number);

    /** Remembers where a read found record {@code number}, so that the next read after it starts there. */
    void learn(long number, long kafkaOffset);
}
