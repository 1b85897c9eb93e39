package dev.interlace.log.kafka;

import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A decision of a {@link Sequencer}'s control task on {@code _state}: the answer, the records that make it durable,
 * what to apply once committed (given the Kafka offset of the first record written), and how to tell, after a
 * transaction whose outcome is unknown and a resync, whether the records landed after all.
 */
record ControlDecision<T>(T answer, List<ProducerRecord<byte[], byte[]>> writes,
        java.util.function.LongConsumer afterCommit, java.util.function.BooleanSupplier landed) {
    ControlDecision(T answer, List<ProducerRecord<byte[], byte[]>> writes,
            java.util.function.LongConsumer afterCommit) {
        this(answer, writes, afterCommit, () -> false);
    }

    static <T> ControlDecision<T> answerOnly(T answer) {
        return new ControlDecision<>(answer, List.of(), position -> { });
    }
}
