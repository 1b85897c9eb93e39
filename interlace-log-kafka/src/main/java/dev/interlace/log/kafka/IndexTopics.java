package dev.interlace.log.kafka;

import dev.interlace.runtime.ops.DaemonThreads;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The published deduplication indexes ({@link IndexTopic}) of the streams of one log: one per stream, and what they
 * share: the thread that publishes (one, at low priority: a segment file is sent in parts, never on a sequencer's
 * thread) and its producer, of its own so that large parts never queue before a publish record.
 */
final class IndexTopics implements AutoCloseable {

    private final String bootstrap;
    private final String clientId;
    private final Topics topics;
    private final Readers readers;
    private final IndexPublicationListener listener;
    private final Map<String, IndexTopic> byStream = new ConcurrentHashMap<>();
    private final ExecutorService publisher = Executors.newSingleThreadExecutor(
            DaemonThreads.named("interlace-dedup-publisher", Thread.NORM_PRIORITY - 1));
    private KafkaProducer<byte[], byte[]> producer;
    private boolean closed;

    IndexTopics(String bootstrap, String clientId, Topics topics, Readers readers) {
        this(bootstrap, clientId, topics, readers, IndexPublicationListener.NONE);
    }

    IndexTopics(String bootstrap, String clientId, Topics topics, Readers readers, IndexPublicationListener listener) {
        this.listener = listener;
        this.bootstrap = bootstrap;
        this.clientId = clientId;
        this.topics = topics;
        this.readers = readers;
    }

    /** The published index of {@code stream}. */
    IndexTopic of(String stream) {
        return byStream.computeIfAbsent(stream, name -> new IndexTopic(name, topics, readers, this));
    }

    /** Told of each step of a publication. */
    IndexPublicationListener listener() {
        return listener;
    }

    void publishLater(Runnable publication) {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        publisher.execute(publication);
    }

    synchronized KafkaProducer<byte[], byte[]> producer() {
        if (producer == null) {
            Properties properties = Topics.durableProducer(bootstrap, clientId);
            properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            producer = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
        }
        return producer;
    }

    /** Lets a publication under way finish (a few seconds), then closes the producer. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        byStream.values().forEach(index -> index.publishing(false));
        publisher.shutdown();
        DaemonThreads.awaitTermination(publisher, Duration.ofSeconds(10));
        synchronized (this) {
            if (producer != null) {
                producer.close(Duration.ofSeconds(5));
            }
        }
    }
}
