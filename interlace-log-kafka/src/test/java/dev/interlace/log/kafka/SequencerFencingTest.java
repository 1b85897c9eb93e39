package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.dedup.SegmentListener;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.NoSequencerException;
import dev.interlace.runtime.log.ReplayRequest;
import dev.interlace.runtime.log.ReplayResult;
import dev.interlace.runtime.log.Watermarks;
import dev.interlace.runtime.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two sequencers of one stream, as after a holder was paused past its ownership: the old one took the stream over
 * and stopped reading it (its view is stale, as a paused or cut-off node's is), the new one took it over after it.
 * Oracle: the stream's topic holds dense, unique offsets, and every acknowledged event is stored at the offset it
 * was acknowledged with. With the transactional producers the old holder's append fails and is never acknowledged;
 * the negative control runs the same scenario with producers that do not fence, and the oracle must fail.
 */
class SequencerFencingTest {

    private static final LogSettings SETTINGS = LogSettings.defaults(1_000_000);
    private static final Watermarks NOTHING_FLUSHED = KeyedOrders.NOTHING_FLUSHED;

    private final String prefix = "fence-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private final List<AutoCloseable> opened = new ArrayList<>();

    @TempDir
    Path directory;
    /** Offset to payload of every acknowledged event. */
    private final Map<Long, String> acknowledged = new HashMap<>();

    @AfterEach
    void closeEverything() throws Exception {
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
    }

    @Test
    void theOlderSequencerIsFencedAndNeverAcknowledgesAfterATakeover() throws Exception {
        List<String> violations = pausedHolderScenario(Fencing.TRANSACTIONAL);
        assertThat(violations).isEmpty();
    }

    @Test
    void negativeControlWithoutFencingThePausedHolderCorruptsTheStream() throws Exception {
        List<String> violations = pausedHolderScenario(Unfenced.NONE);
        assertThat(violations).as("the oracle must catch a sequencer that is not fenced").isNotEmpty();
    }

    @Test
    void aPausedHolderCannotReplayAnEntryTheNewHolderReplayed() throws Exception {
        Node old = node("old", Fencing.TRANSACTIONAL);
        Sequencer oldSequencer = old.sequencer();
        append(oldSequencer, "a");
        oldSequencer.append(new AppendRequest("orders", "req-q", 1_000_000L, "v1", List.of(
                new AppendRequest.Quarantined(payload("q").getBytes(StandardCharsets.UTF_8), List.of()))))
                .get(30, TimeUnit.SECONDS);
        old.tailer.close(); // the old holder stops reading: it never sees the new holder's replay mark

        Node current = node("new", Fencing.TRANSACTIONAL);
        Sequencer newSequencer = current.sequencer();
        assertThat(((ReplayResult.Replayed) newSequencer.replay(replayOfQ("replay-new")).get(30, TimeUnit.SECONDS))
                .entries()).containsExactly(new ReplayResult.EntryResult(1, ReplayResult.Status.ACCEPTED, 2));
        acknowledged.put(2L, payload("q"));

        try {
            ReplayResult late = oldSequencer.replay(replayOfQ("replay-old")).get(30, TimeUnit.SECONDS);
            assertThat(late).as("the paused holder must not replay the entry again").isNull();
        } catch (ExecutionException refused) {
            assertThat(refused.getCause()).isInstanceOf(NoSequencerException.class);
        }
        assertThat(oracle(current.topics.events("orders"))).isEmpty();
        assertThat(current.view.replayOf(1)).extracting(Codec.ReplayMark::requestId).isEqualTo("replay-new");
    }

    /** A replay of quarantined entry 1 (the event {@code q}, keyed {@code q}). */
    private static ReplayRequest replayOfQ(String requestId) {
        return new ReplayRequest("orders", requestId, 2_000_000L, "v1", List.of(new ReplayRequest.Entry(1,
                new AppendRequest.Event(payload("q").getBytes(StandardCharsets.UTF_8), "q"))), null, null, false);
    }

    /** Runs the scenario and returns what the oracle found wrong. */
    private List<String> pausedHolderScenario(Fencing fencing) throws Exception {
        Node old = node("old", fencing);
        Sequencer oldSequencer = old.sequencer();
        assertThat(append(oldSequencer, "a").entries()).containsExactly(
                new AppendResult.EntryResult(AppendResult.Status.ACCEPTED, 1));
        old.tailer.close(); // the old holder stops reading: paused, or cut off from the cluster

        Node current = node("new", fencing);
        Sequencer newSequencer = current.sequencer();
        assertThat(append(newSequencer, "b").entries()).containsExactly(
                new AppendResult.EntryResult(AppendResult.Status.ACCEPTED, 2));

        try {
            AppendResult late = oldSequencer.append(request("c")).get(30, TimeUnit.SECONDS);
            record((AppendResult.Committed) late, "c");
        } catch (ExecutionException refused) {
            assertThat(refused.getCause()).isInstanceOf(NoSequencerException.class);
        }
        append(newSequencer, "d");
        return oracle(current.topics.events("orders"));
    }

    @Test
    void aSequencerThatFailsUnexpectedlyTakesItsStreamOverAgainAndLosesNothingAcknowledged() throws Exception {
        AtomicInteger faults = new AtomicInteger(1);
        Node node = new Node("restarting", Fencing.TRANSACTIONAL, stream -> {
            if (faults.getAndDecrement() > 0) {
                throw new IllegalStateException("test: a fault in this process after a commit");
            }
        });
        Sequencer sequencer = node.sequencer();
        AppendResult.Committed first = append(sequencer, "a"); // committed and answered, then the fault

        Eventually.until("the sequencer reports a problem", Duration.ofSeconds(60), () -> sequencer.problem() != null);
        assertThat(sequencer.problem()).as("the failure is reported while it lasts").contains("test: a fault");
        Eventually.until("the sequencer is active again", Duration.ofSeconds(60),
                () -> sequencer.state() == Sequencer.State.ACTIVE);
        assertThat(sequencer.state()).as("the sequencer serves again").isEqualTo(Sequencer.State.ACTIVE);
        assertThat(sequencer.problem()).isNull();

        AppendResult.Committed retried = (AppendResult.Committed) sequencer.append(request("a"))
                .get(30, TimeUnit.SECONDS);
        assertThat(retried.entries()).containsExactly(new AppendResult.EntryResult(AppendResult.Status.DUPLICATE,
                first.entries().get(0).offset()));
        assertThat(append(sequencer, "b").entries()).containsExactly(new AppendResult.EntryResult(
                AppendResult.Status.ACCEPTED, first.entries().get(0).offset() + 1));
        assertThat(oracle(node.topics.events("orders"))).isEmpty();
    }

    private AppendResult.Committed append(Sequencer sequencer, String id) throws Exception {
        AppendResult.Committed committed = (AppendResult.Committed) sequencer.append(request(id))
                .get(30, TimeUnit.SECONDS);
        record(committed, id);
        return committed;
    }

    private void record(AppendResult.Committed committed, String id) {
        for (AppendResult.EntryResult entry : committed.entries()) {
            acknowledged.put(entry.offset(), payload(id));
        }
    }

    /**
     * Dense unique offsets from 1 in the topic, and each acknowledged event at its offset. A transaction's commit
     * returns before its markers reach the partition, so a committed read right after the last acknowledgement may
     * end before it: the topic is read again until it reaches the highest acknowledged offset (30 s at most).
     */
    private List<String> oracle(TopicPartition events) {
        long highest = acknowledged.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
        List<StreamTopic.Event> read = new ArrayList<>();
        try {
            Eventually.until("the topic's committed events reach offset " + highest, Duration.ofSeconds(30), () -> {
                read.clear();
                read.addAll(StreamTopic.read(KafkaCluster.shared().bootstrap(), events));
                return read.stream().anyMatch(event -> event.offset() >= highest);
            });
        } catch (AssertionError notReached) {
            // judged on the last read: the acknowledged events missing from it are the violations
        }
        Map<Long, List<String>> stored = new HashMap<>();
        for (StreamTopic.Event event : read) {
            stored.computeIfAbsent(event.offset(), offset -> new ArrayList<>()).add(event.payload());
        }
        List<String> violations = new ArrayList<>();
        for (long offset = 1; offset <= stored.size(); offset++) {
            List<String> payloads = stored.get(offset);
            if (payloads == null) {
                violations.add("offset " + offset + " is missing");
            } else if (payloads.size() > 1) {
                violations.add("offset " + offset + " was given to " + payloads.size() + " events: " + payloads);
            }
        }
        acknowledged.forEach((offset, payload) -> {
            List<String> payloads = stored.getOrDefault(offset, List.of());
            if (!payloads.equals(List.of(payload))) {
                violations.add("acknowledged " + payload + " at offset " + offset + ", but the topic holds "
                        + payloads + " there");
            }
        });
        return violations;
    }

    private static AppendRequest request(String id) {
        return new AppendRequest("orders", "req-" + id, 1_000_000L, "v1", List.of(new AppendRequest.Event(
                payload(id).getBytes(StandardCharsets.UTF_8), id)));
    }

    private static String payload(String id) {
        return "{\"id\":\"" + id + "\"}";
    }

    /** One node's parts, wired as {@link KafkaStreamLog} wires them, holding a sequencer of stream orders. */
    private final class Node {
        final Topics topics;
        final Tailer tailer;
        final StreamView view = new StreamView("orders", 0);
        final SequencerContext context;
        final KafkaProducer<byte[], byte[]> plain;

        Node(String name, Fencing fencing) {
            this(name, fencing, stream -> { });
        }

        /** With {@code appended} called after each commit that moved the head, as the log's flush trigger is. */
        Node(String name, Fencing fencing, Consumer<String> appended) {
            Admin admin = KafkaCluster.shared().admin();
            opened.add(admin);
            topics = new Topics(admin, prefix, 1, 1);
            topics.ensureLogTopics();
            topics.ensureStreamTopics(List.of("orders"));
            tailer = new Tailer(KafkaCluster.shared().bootstrap(), prefix + name, record -> {
                if (record.topic().equals(topics.events("orders").topic())) {
                    view.applyEvent(Codec.longHeader(record.headers(), Codec.OFFSET), record.offset(),
                            Codec.longHeader(record.headers(), Codec.AT), Codec.longHeader(record.headers(), Codec.LAST));
                } else if (record.topic().equals(topics.quarantine("orders").topic())) {
                    view.applyQuarantine(Codec.longHeader(record.headers(), Codec.SEQ), record.offset());
                } else if (record.topic().equals(topics.state().topic()) && record.value() != null
                        && Codec.text(record.key()).startsWith("replay/")) {
                    view.applyReplay(Codec.json(record.value(), Codec.ReplayMark.class));
                }
            });
            opened.add(tailer);
            tailer.follow(Set.of(topics.events("orders"), topics.quarantine("orders"), topics.state()));
            view.registered(0, true);
            Readers readers = new Readers(KafkaCluster.shared().bootstrap(), prefix + name + "-reader");
            opened.add(readers);
            SequencerIndexes indexes = new SequencerIndexes(directory.resolve(name), SETTINGS.dedup(),
                    SegmentListener.NONE, Clock.systemUTC());
            opened.add(indexes::close);
            plain = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaCluster.shared()
                    .bootstrap(), ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(),
                    new ByteArraySerializer());
            opened.add(plain);
            context = new SequencerContext(KafkaCluster.shared().bootstrap(), "http://" + name, topics, tailer,
                    PublishStore.create(directory.resolve(name + "-publishes.sqlite")), SETTINGS, NOTHING_FLUSHED,
                    Clock.systemUTC(), () -> { }, appended, Runnable::run, fencing, readers, indexes, () -> plain,
                    (stream, confirm) -> null, // takes over whenever asked: this test runs no sequencer group
                    stream -> view);
        }

        /** Takes the stream over and waits until the sequencer serves. */
        Sequencer sequencer() throws InterruptedException {
            Sequencer sequencer = new Sequencer(view, context);
            opened.add(sequencer::stop);
            sequencer.start();
            Eventually.until("the sequencer took over", Duration.ofSeconds(60),
                    () -> sequencer.state() == Sequencer.State.ACTIVE);
            return sequencer;
        }
    }

    private Node node(String name, Fencing fencing) {
        return new Node(name, fencing);
    }
}
