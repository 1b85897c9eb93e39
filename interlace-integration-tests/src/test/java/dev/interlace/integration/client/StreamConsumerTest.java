package dev.interlace.integration.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.client.InterlaceClient;
import dev.interlace.client.StreamConsumer;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The consumer loop: at least once, resumes from the committed offset, redelivers a batch whose handler failed. */
class StreamConsumerTest {

    @TempDir
    Path dataDirectory;

    private static List<Map<String, Object>> orders(String prefix, int count) {
        List<Map<String, Object>> orders = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            orders.add(Map.of("order_id", prefix + i));
        }
        return orders;
    }

    @Test
    void everyEventIsHandledAtLeastOnceAndTheNextConsumerResumesAfterTheCommit() throws Exception {
        try (Interlace server = Interlace.builder().config(ConfigLoader.load(new String[] {"--port", "0",
                "--data-dir", dataDirectory.toString()}, Map.of()).config()).start()) {
            InterlaceClient client = InterlaceClient.builder(server.uri()).build();
            client.publish("orders", orders("a", 35));

            Set<Long> handled = new ConcurrentSkipListSet<>();
            List<Long> deliveries = new ArrayList<>();
            AtomicBoolean failedOnce = new AtomicBoolean();
            StreamConsumer first = StreamConsumer.of(server.uri(), "orders", "billing", "worker-1")
                    .with(Duration.ofSeconds(10), 10, Duration.ofMillis(200));
            CompletableFuture<Void> running = CompletableFuture.runAsync(() -> {
                try {
                    first.run(events -> {
                        synchronized (deliveries) {
                            events.forEach(event -> deliveries.add(event.offset()));
                        }
                        if (events.get(0).offset() == 11 && failedOnce.compareAndSet(false, true)) {
                            throw new IllegalStateException("handler failed once");
                        }
                        events.forEach(event -> handled.add(event.offset()));
                        if (handled.size() == 35) {
                            first.stop();
                        }
                    });
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            running.get(30, TimeUnit.SECONDS);
            assertThat(handled).hasSize(35).contains(1L, 35L);
            assertThat(deliveries.stream().filter(offset -> offset == 11L).count()).as("redelivered").isEqualTo(2);

            client.publish("orders", orders("b", 5));
            Set<Long> second = new TreeSet<>();
            StreamConsumer next = StreamConsumer.of(server.uri(), "orders", "billing", "worker-2")
                    .with(Duration.ofSeconds(10), 10, Duration.ofMillis(200));
            CompletableFuture.runAsync(() -> {
                try {
                    next.run(events -> {
                        events.forEach(event -> second.add(event.offset()));
                        if (second.contains(40L)) {
                            next.stop();
                        }
                    });
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }).get(30, TimeUnit.SECONDS);
            assertThat(second).containsExactly(36L, 37L, 38L, 39L, 40L);
        }
    }
}
