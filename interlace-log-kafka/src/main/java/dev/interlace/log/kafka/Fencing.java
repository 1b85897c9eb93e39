package dev.interlace.log.kafka;

import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * How a sequencer keeps an earlier holder of its stream from writing, and what its node does when the sequencer group
 * takes the stream away. The log always runs {@link #TRANSACTIONAL}: a transactional producer per stream, whose epoch
 * fences any earlier holder, and a sequencer stopped on revocation. The fencing tests give their negative control a
 * strategy of their own, to show what a stream suffers without it.
 */
interface Fencing {

    /** A transactional producer per stream, its {@code transactional.id} the stream's. */
    Fencing TRANSACTIONAL = new Fencing() {
        @Override
        public void configure(Properties producer, String transactionalId) {
            producer.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }

        @Override
        public void fence(KafkaProducer<byte[], byte[]> producer) {
            producer.initTransactions();
        }

        @Override
        public void begin(KafkaProducer<byte[], byte[]> producer) {
            producer.beginTransaction();
        }

        @Override
        public void commit(KafkaProducer<byte[], byte[]> producer, List<Future<RecordMetadata>> sends) {
            producer.commitTransaction();
        }

        @Override
        public void revoked(String stream, Runnable stop) {
            stop.run();
        }
    };

    /** Sets the producer's properties that fencing needs, before it is made. */
    void configure(Properties producer, String transactionalId);

    /** Fences every earlier producer of the stream; may wait on the cluster. */
    void fence(KafkaProducer<byte[], byte[]> producer);

    /** Starts a group's writes. */
    void begin(KafkaProducer<byte[], byte[]> producer);

    /** Makes a group's writes ({@code sends}) visible and durable, or throws. */
    void commit(KafkaProducer<byte[], byte[]> producer, List<Future<RecordMetadata>> sends);

    /** The sequencer group took {@code stream} away from this node; {@code stop} stops its sequencer here. */
    void revoked(String stream, Runnable stop);
}
