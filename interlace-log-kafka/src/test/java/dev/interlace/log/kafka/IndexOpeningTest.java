package dev.interlace.log.kafka;

import static dev.interlace.log.kafka.KeyedOrders.entry;
import static dev.interlace.log.kafka.KeyedOrders.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.log.kafka.testing.KafkaCluster;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.dedup.SegmentListener;
import dev.interlace.runtime.flush.FlushLease;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.LogSettings;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A node that takes a keyed stream over serves a flusher's lease and commits as soon as it has fenced the previous
 * holder and caught up, while its deduplication index still opens; a publish waits for the index and is then decided
 * exactly, an old key deduplicated to its original offset.
 */
class IndexOpeningTest extends SharedBrokerTest {

    private static final int KEYS = 2_000;
    private static final String NODE = "http://second.test";

    @Test
    void aFlushLeaseIsGrantedAndItsWatermarkCommittedWhileTheIndexOpens() throws Exception {
        List<Long> offsets = publishedByAnotherNode();
        HeldOpening opening = new HeldOpening(false);
        try (KafkaStreamLog second = openUntilOpening(opening)) {
            Leases.LeaseResult lease = second.lease("orders", FlushLease.GROUP, NODE, Duration.ofSeconds(30),
                    Leases.Actor.SERVER);
            assertThat(lease).isInstanceOf(Leases.Granted.class);
            Leases.Token token = ((Leases.Granted) lease).token();
            long watermark = offsets.get(KEYS / 2);
            assertThat(second.commit("orders", FlushLease.GROUP, token, watermark, Leases.Actor.SERVER))
                    .isEqualTo(new Leases.Committed(watermark));
            CompletableFuture<AppendResult> old = CompletableFuture.supplyAsync(
                    () -> second.append(request("key-7")).join());
            CompletableFuture<AppendResult> fresh = CompletableFuture.supplyAsync(
                    () -> second.append(request("key-new")).join());
            assertThat(second.holder("orders")).as("a node opening its index does not serve publishes").isEmpty();
            assertThat(old).as("a publish waits for the index").isNotDone();
            assertThat(fresh).as("a publish waits for the index").isNotDone();

            opening.released.countDown();
            AppendResult.EntryResult duplicate = entry(old.get(60, TimeUnit.SECONDS));
            assertThat(duplicate.status()).isEqualTo(AppendResult.Status.DUPLICATE);
            assertThat(duplicate.offset()).isEqualTo(offsets.get(7));
            AppendResult.EntryResult accepted = entry(fresh.get(60, TimeUnit.SECONDS));
            assertThat(accepted.status()).isEqualTo(AppendResult.Status.ACCEPTED);
            assertThat(accepted.offset()).isEqualTo(offsets.get(KEYS - 1) + 1);
            assertThat(second.groups("orders")).filteredOn(group -> group.group().equals(FlushLease.GROUP))
                    .extracting(Leases.Group::committedOffset).containsExactly(watermark);
            assertThat(second.holder("orders")).contains(NODE);
        }
    }

    @Test
    void anIndexThatFailsToOpenIsOpenedAgainAndDecidesExactly() throws Exception {
        List<Long> offsets = publishedByAnotherNode();
        HeldOpening opening = new HeldOpening(true);
        try (KafkaStreamLog second = openUntilOpening(opening)) {
            AppendResult.EntryResult duplicate = entry(KeyedOrders.appendUntilServed(second, "key-7"));
            assertThat(duplicate.status()).isEqualTo(AppendResult.Status.DUPLICATE);
            assertThat(duplicate.offset()).isEqualTo(offsets.get(7));
            assertThat(second.lease("orders", FlushLease.GROUP, NODE, Duration.ofSeconds(30), Leases.Actor.SERVER))
                    .isInstanceOf(Leases.Granted.class);
        }
    }

    /** Keys {@code key-0} … published through a first node, closed since; their offsets in key order. */
    private List<Long> publishedByAnotherNode() throws Exception {
        try (KafkaStreamLog first = KeyedOrders.log(prefix, directory.resolve("first"), "first", true, 1000)) {
            first.register(orders);
            return KeyedAppends.append(first, KEYS, 500);
        }
    }

    /** The second node with {@code orders} registered, once its index's opening has reached {@code opening}. */
    private KafkaStreamLog openUntilOpening(HeldOpening opening) throws InterruptedException {
        KafkaStreamLog second = open(opening);
        try {
            second.register(orders);
            assertThat(opening.reached.await(60, TimeUnit.SECONDS)).as("the index opening was reached").isTrue();
            return second;
        } catch (RuntimeException | InterruptedException | AssertionError e) {
            second.close();
            throw e;
        }
    }

    private KafkaStreamLog open(HeldOpening opening) {
        return new KafkaStreamLog(new KafkaLogSettings(KafkaCluster.shared().bootstrap(), prefix, 1, 1, NODE,
                Duration.ofSeconds(6), Duration.ofSeconds(20), true, directory.resolve("second")),
                LogSettings.defaults(100_000).withDedup(new DedupIndex.Settings(1000, 2)),
                KeyedOrders.EVERYTHING_FLUSHED, Clock.systemUTC(), opening, IndexPublicationListener.NONE);
    }

    /**
     * Holds the first opening of a sequencer's index where it tells which segments it uses, until released; or,
     * {@code failing}, makes that opening fail there (as a disk error would).
     */
    private static final class HeldOpening implements SegmentListener {
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);
        private final boolean failing;

        HeldOpening(boolean failing) {
            this.failing = failing;
        }

        @Override
        public void inUse(List<Path> files, long sealedThrough) {
            if (!Thread.currentThread().getName().startsWith("interlace-kafka-index-") || reached.getCount() == 0) {
                return;
            }
            reached.countDown();
            if (failing) {
                throw new UncheckedIOException(new java.io.IOException("the disk failed (a test)"));
            }
            try {
                released.await(120, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
