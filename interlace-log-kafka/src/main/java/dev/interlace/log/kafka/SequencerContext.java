package dev.interlace.log.kafka;

import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.Watermarks;
import java.time.Clock;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * What the log gives each of its {@link Sequencer}s.
 *
 * @param acknowledger completes the appends' futures after their commit, off the sequencer's thread: the callers'
 *     dependent stages (building the answers) run there, not before the next transaction
 * @param fencing {@link Fencing#TRANSACTIONAL} always, except in the negative control of the fencing tests
 * @param plainProducer the node's producer outside any transaction, for the publish records of settled retries
 * @param guard says whether this node may take a stream over now
 */
record SequencerContext(String bootstrap, String nodeUrl, Topics topics, Tailer tailer, PublishStore publishes,
        LogSettings settings, Watermarks watermarks, Clock clock, Runnable stateChanged,
        java.util.function.Consumer<String> appended, java.util.concurrent.Executor acknowledger,
        Fencing fencing, Readers readers, SequencerIndexes indexes,
        java.util.function.Supplier<KafkaProducer<byte[], byte[]>> plainProducer, TakeoverGuard guard,
        java.util.function.Function<String, StreamView> views) {}
