package dev.interlace.log.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Keyed events {@code key-0} … appended to {@code orders} through a node's log, as the takeover tests store them. */
final class KeyedAppends {

    private KeyedAppends() {}

    /**
     * Appends events {@code key-0} to {@code key-(keys - 1)}, {@code batch} a request, each retried while the node
     * does not sequence the stream yet; returns each key's offset, in key order. A retry of an attempt that failed
     * but was stored is deduplicated to it.
     */
    static List<Long> append(KafkaStreamLog log, int keys, int batch) throws Exception {
        List<Long> offsets = new ArrayList<>();
        for (int from = 0; from < keys; from += batch) {
            List<AppendRequest.Entry> events = new ArrayList<>();
            for (int i = from; i < Math.min(keys, from + batch); i++) {
                events.add(new AppendRequest.Event(("{\"id\":\"key-" + i + "\"}").getBytes(StandardCharsets.UTF_8),
                        "key-" + i));
            }
            AppendResult result = Eventually.retrying("the node sequences the stream", Duration.ofSeconds(60),
                    ExecutionException.class, () -> log.append(new AppendRequest("orders", "req-"
                            + UUID.randomUUID(), System.currentTimeMillis() * 1_000, "v1", events))
                            .get(30, TimeUnit.SECONDS));
            for (AppendResult.EntryResult entry : ((AppendResult.Committed) result).entries()) {
                assertThat(entry.status()).isIn(AppendResult.Status.ACCEPTED, AppendResult.Status.DUPLICATE);
                offsets.add(entry.offset());
            }
        }
        return offsets;
    }
}
