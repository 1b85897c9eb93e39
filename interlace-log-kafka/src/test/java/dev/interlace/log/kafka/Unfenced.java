package dev.interlace.log.kafka;

import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.logging.Logger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;

/**
 * The negative control of the fencing tests: no fencing at all. A plain idempotent producer, each group flushed with
 * {@code acks=all} instead of committed, and a holder that keeps its sequencer when the sequencer group takes the stream
 * away, as a holder cut off from the group's coordinator but not from the stream's partition leader would (whether a
 * holder that does learn of the revocation writes anything before it does is a race, and a control must not depend
 * on one). Its writes wait out any cut from the brokers (a delivery timeout of ten minutes, longer than a test
 * cuts), so that what it wrote with a stale head during a cut lands when the cut heals, as a real holder's would.
 */
final class Unfenced implements Fencing {

    static final Fencing NONE = new Unfenced();

    private static final Logger LOG = Logger.getLogger(Unfenced.class.getName());

    private Unfenced() {}

    @Override
    public void configure(Properties producer, String transactionalId) {
        // No transactional id: nothing fences an earlier producer.
        producer.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(10 * 60 * 1000));
    }

    @Override
    public void fence(KafkaProducer<byte[], byte[]> producer) {
        // Nothing to fence with.
    }

    @Override
    public void begin(KafkaProducer<byte[], byte[]> producer) {
        // No transaction.
    }

    @Override
    public void commit(KafkaProducer<byte[], byte[]> producer, List<Future<RecordMetadata>> sends) {
        producer.flush();
        for (Future<RecordMetadata> send : sends) {
            try {
                send.get();
            } catch (ExecutionException e) {
                throw e.getCause() instanceof KafkaException kafka ? kafka : new KafkaException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KafkaException("interrupted", e);
            }
        }
    }

    @Override
    public void revoked(String stream, Runnable stop) {
        LOG.warning("negative control: this node keeps sequencing stream " + stream
                + " although the sequencer group took it away");
    }
}
