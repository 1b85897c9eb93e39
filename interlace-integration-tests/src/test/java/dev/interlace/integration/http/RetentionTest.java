package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.AbstractModule;
import com.google.inject.Module;
import dev.interlace.runtime.log.RetentionSweep;
import dev.interlace.runtime.testing.FaultModules;
import dev.interlace.runtime.testing.ManualClock;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The retention sweep trims only materialised entries older than the window; the window deduplicates exactly. */
class RetentionTest {

    @TempDir
    Path dataDirectory;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-29T08:00:00Z"));

    private Module clockModule() {
        return new AbstractModule() {
            @Override
            protected void configure() {
                bind(Clock.class).toInstance(clock);
            }
        };
    }

    @Test
    void materialisedEntriesOlderThanTheWindowAreTrimmedAndTheirKeysAcceptedAgain() {
        try (TestServer api = TestServer.startWith(dataDirectory, TestServer.CATALOG, List.of(clockModule()))) {
            api.postJson("/streams/clicks", "[{\"click_id\":\"c1\",\"url\":\"/\",\"at\":\"2026-11-29T08:00:00Z\"},"
                    + "{\"click_id\":\"c2\",\"url\":\"/\",\"at\":\"2026-11-29T08:00:00Z\"}]");
            clock.advance(Duration.ofHours(23));
            api.postJson("/streams/clicks", "{\"click_id\":\"c3\",\"url\":\"/\",\"at\":\"2026-11-29T08:00:00Z\"}");
            api.awaitFlushed("clicks");
            clock.advance(Duration.ofHours(2));

            Map<String, Long> trimmed = api.server.instance(RetentionSweep.class).sweep();
            assertThat(trimmed).containsExactly(Map.entry("clicks", 2L));
            assertThat(api.get("/streams/clicks").body().get("earliest").asLong()).isEqualTo(3);

            TestServer.Response old = api.postJson("/streams/clicks",
                    "{\"click_id\":\"c1\",\"url\":\"/\",\"at\":\"2026-11-29T08:00:00Z\"}");
            assertThat(old.body().get("accepted").asInt()).isEqualTo(1);
            assertThat(old.body().get("last_offset").asLong()).isEqualTo(4);
            TestServer.Response young = api.postJson("/streams/clicks",
                    "{\"click_id\":\"c3\",\"url\":\"/\",\"at\":\"2026-11-29T08:00:00Z\"}");
            assertThat(young.body().get("deduplicated").asInt()).isEqualTo(1);
            assertThat(young.body().get("last_offset").asLong()).isEqualTo(3);

            api.awaitFlushed("clicks");
            assertThat(api.post("/sql", "text/plain", "SELECT count(*) FROM streams.clicks").body().get("rows")
                    .get(0).get(0).asLong()).isEqualTo(4);
        }
    }

    @Test
    void anUnflushedEntryIsNeverTrimmedHoweverOld() {
        Module failing = FaultModules.failingWarehouse();
        try (TestServer api = TestServer.startWith(dataDirectory, TestServer.CATALOG,
                List.of(clockModule(), failing))) {
            api.postJson("/streams/clicks", "{\"click_id\":\"c1\",\"url\":\"/\",\"at\":\"2026-11-29T08:00:00Z\"}");
            clock.advance(Duration.ofDays(30));
            assertThat(api.server.instance(RetentionSweep.class).sweep()).isEmpty();
            assertThat(api.get("/streams/clicks").body().get("earliest").asLong()).isEqualTo(1);
        }
    }
}
