package dev.interlace.log.kafka;

import static dev.interlace.log.kafka.KeyedOrders.appendUntilServed;
import static dev.interlace.log.kafka.KeyedOrders.entry;
import static dev.interlace.log.kafka.KeyedOrders.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.log.kafka.testing.KafkaCluster;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;

/**
 * A retry of events already committed is answered without the sequencer's thread, and only such a retry: the
 * sequencer still decides every new key, once.
 */
class SettledRetryTest extends SharedBrokerTest {

    @Test
    void aRetryOfACommittedKeyIsAnsweredWhileTheSequencerIsHeldInACommit() throws Exception {
        HeldCommits held = new HeldCommits();
        try (KafkaStreamLog log = open(held)) {
            log.register(orders);
            AppendResult.EntryResult original = entry(appendUntilServed(log, "settled-1"));
            assertThat(original.status()).isEqualTo(AppendResult.Status.ACCEPTED);

            held.hold();
            CompletableFuture<AppendResult> blocked = log.append(request("new-while-held"));
            held.awaitHeld();
            AppendResult retried = log.append(request("settled-1")).get(30, TimeUnit.SECONDS);
            assertThat(blocked).as("the sequencer is still held in its commit").isNotDone();
            assertThat(entry(retried).status()).isEqualTo(AppendResult.Status.DUPLICATE);
            assertThat(entry(retried).offset()).isEqualTo(original.offset());

            held.release();
            AppendResult.EntryResult fresh = entry(blocked.get(30, TimeUnit.SECONDS));
            assertThat(fresh.status()).isEqualTo(AppendResult.Status.ACCEPTED);
            assertThat(fresh.offset()).isEqualTo(original.offset() + 1);
            AppendResult.EntryResult again = entry(log.append(request("new-while-held")).get(30, TimeUnit.SECONDS));
            assertThat(again.status()).isEqualTo(AppendResult.Status.DUPLICATE);
            assertThat(again.offset()).isEqualTo(fresh.offset());
        }
    }

    @Test
    void aNewKeyIsQueuedAtOnceWhileARetryOfACommittedKeyIsLeftToTheLookupThatAnswersIt() throws Exception {
        HeldCommits held = new HeldCommits();
        try (KafkaStreamLog log = open(held)) {
            log.register(orders);
            assertThat(log.appendReturnsAtOnce()).isTrue();
            AppendResult.EntryResult original = entry(appendUntilServed(log, "committed-1"));
            for (int i = 0; i < 30; i++) { // beyond the 10 recent keys: most are in sealed segments by now
                appendUntilServed(log, "older-" + i);
            }

            held.hold();
            CompletableFuture<AppendResult> fresh = log.appendAtOnce(request("fresh-1"));
            assertThat(fresh).as("a new key goes straight to the sequencer").isNotNull();
            held.awaitHeld();
            assertThat(log.appendAtOnce(request("committed-1"))).as("a retry of a committed key").isNull();
            assertThat(log.appendAtOnce(request("older-3"))).as("a retry of a key sealed to disk").isNull();
            CompletableFuture<AppendResult> again = log.appendAtOnce(request("fresh-1"));
            assertThat(again).as("a key the transaction under way accepts is not committed yet").isNotNull();
            AppendResult retried = log.append(request("committed-1")).get(30, TimeUnit.SECONDS);
            assertThat(entry(retried).status()).isEqualTo(AppendResult.Status.DUPLICATE);
            assertThat(entry(retried).offset()).isEqualTo(original.offset());

            held.release();
            AppendResult.EntryResult accepted = entry(fresh.get(30, TimeUnit.SECONDS));
            assertThat(accepted.status()).isEqualTo(AppendResult.Status.ACCEPTED);
            assertThat(accepted.offset()).isEqualTo(original.offset() + 31);
            AppendResult.EntryResult duplicate = entry(again.get(30, TimeUnit.SECONDS));
            assertThat(duplicate.status()).isEqualTo(AppendResult.Status.DUPLICATE);
            assertThat(duplicate.offset()).isEqualTo(accepted.offset());
            assertThat(log.appendAtOnce(request("fresh-1"))).as("now committed").isNull();
        }
    }

    @Test
    void twoClientsPublishingTheSameNewKeyAtOnceAreAcceptedExactlyOnce() throws Exception {
        try (KafkaStreamLog log = open(Fencing.TRANSACTIONAL)) {
            log.register(orders);
            appendUntilServed(log, "warm-up");
            for (int round = 0; round < 20; round++) {
                String key = "raced-" + round;
                CyclicBarrier start = new CyclicBarrier(2);
                List<CompletableFuture<AppendResult>> answers = new ArrayList<>();
                for (int client = 0; client < 2; client++) {
                    answers.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            start.await(30, TimeUnit.SECONDS);
                            return log.append(request(key)).get(30, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }));
                }
                AppendResult.EntryResult first = entry(answers.get(0).get(60, TimeUnit.SECONDS));
                AppendResult.EntryResult second = entry(answers.get(1).get(60, TimeUnit.SECONDS));
                assertThat(List.of(first.status(), second.status())).as(key).containsExactlyInAnyOrder(
                        AppendResult.Status.ACCEPTED, AppendResult.Status.DUPLICATE);
                assertThat(first.offset()).as(key).isEqualTo(second.offset());
                assertThat(first.offset()).as(key).isEqualTo(round + 2);
            }
        }
    }

    private KafkaStreamLog open(Fencing fencing) {
        return new KafkaStreamLog(new KafkaLogSettings(KafkaCluster.shared().bootstrap(), prefix, 1, 1,
                "http://node.test", Duration.ofSeconds(6), Duration.ofSeconds(20), true, directory.resolve("node")),
                LogSettings.defaults(100_000).withDedup(new DedupIndex.Settings(10, 2)),
                KeyedOrders.EVERYTHING_FLUSHED, Clock.systemUTC(), fencing);
    }

    /** Transactional fencing whose next commit, once {@link #hold} is called, waits until {@link #release}. */
    private static final class HeldCommits implements Fencing {

        private volatile CountDownLatch released = new CountDownLatch(0);
        private volatile CountDownLatch reached = new CountDownLatch(0);

        void hold() {
            released = new CountDownLatch(1);
            reached = new CountDownLatch(1);
        }

        void awaitHeld() throws InterruptedException {
            assertThat(reached.await(30, TimeUnit.SECONDS)).as("a commit reached the hold").isTrue();
        }

        void release() {
            released.countDown();
        }

        @Override
        public void configure(Properties producer, String transactionalId) {
            TRANSACTIONAL.configure(producer, transactionalId);
        }

        @Override
        public void fence(KafkaProducer<byte[], byte[]> producer) {
            TRANSACTIONAL.fence(producer);
        }

        @Override
        public void begin(KafkaProducer<byte[], byte[]> producer) {
            TRANSACTIONAL.begin(producer);
        }

        @Override
        public void commit(KafkaProducer<byte[], byte[]> producer, List<Future<RecordMetadata>> sends) {
            reached.countDown();
            try {
                released.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            TRANSACTIONAL.commit(producer, sends);
        }

        @Override
        public void revoked(String stream, Runnable stop) {
            TRANSACTIONAL.revoked(stream, stop);
        }
    }
}
