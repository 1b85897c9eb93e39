package dev.interlace.runtime.log;

import static dev.interlace.runtime.log.Leases.Actor.SERVER;
import static dev.interlace.runtime.log.OrdersFixture.NOTHING_MATERIALISED;
import static dev.interlace.runtime.log.OrdersFixture.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The query process's view of the server's log: it reads what the server's log committed, learns of appends by itself,
 * writes nothing to the file, and keeps its flusher's leases in memory with tokens above any earlier run's.
 */
class SqliteLogFollowerTest {

    @TempDir
    Path dataDirectory;

    private static AppendRequest request(String... keys) {
        return OrdersFixture.request(1L, keys);
    }

    @Test
    void readsWhatTheServersLogCommitsIsToldOfAppendsAndRefusesToWrite() throws Exception {
        try (SqliteStreamLog server = new SqliteStreamLog(dataDirectory, LogSettings.defaults(1_000_000), NOTHING_MATERIALISED,
                CommitListener.NONE, Clock.systemUTC())) {
            server.register(ORDERS);
            server.append(request("a", "b")).get();
            try (SqliteLogFollower follower = new SqliteLogFollower(dataDirectory, Clock.systemUTC())) {
                assertThat(follower.heads().get("orders").head()).isEqualTo(2);
                Set<String> told = ConcurrentHashMap.newKeySet();
                follower.addAppendListener(told::add);

                server.append(request("c")).get();
                Eventually.until("the follower saw the append", Duration.ofSeconds(10),
                        () -> told.contains("orders") && follower.heads().get("orders").head() == 3);
                List<LogEntry> entries = follower.read("orders", 0, 10, Duration.ZERO);
                assertThat(entries).extracting(LogEntry::offset).containsExactly(1L, 2L, 3L);
                assertThat(new String(entries.get(2).payload(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"c\"}");

                assertThat(follower.trim("orders", 3)).isZero();
                assertThat(follower.append(request("d"))).failsWithin(Duration.ofSeconds(5))
                        .withThrowableOfType(ExecutionException.class)
                        .withCauseInstanceOf(UnsupportedOperationException.class);
                assertThat(server.read("orders", 0, 10, Duration.ZERO)).hasSize(3);
                assertThat(server.heads().get("orders").earliest()).isEqualTo(1);
            }
        }
    }

    @Test
    void leasesAreKeptInMemoryWithTokensAboveThoseOfAnEarlierRun() throws Exception {
        try (SqliteStreamLog server = new SqliteStreamLog(dataDirectory, LogSettings.defaults(1_000_000), NOTHING_MATERIALISED,
                CommitListener.NONE, Clock.systemUTC())) {
            server.register(ORDERS);
            server.append(request("a")).get();
            long earlier;
            try (SqliteLogFollower first = new SqliteLogFollower(dataDirectory, Clock.systemUTC())) {
                Leases.Granted granted = (Leases.Granted) first.lease("orders", "__flusher", "query-process",
                        Duration.ofSeconds(15), SERVER);
                earlier = granted.token().epoch();
                assertThat(first.commit("orders", "__flusher", granted.token(), 1, SERVER))
                        .isInstanceOf(Leases.Committed.class);
                assertThat(first.groups("orders")).singleElement()
                        .satisfies(group -> assertThat(group.committedOffset()).isEqualTo(1));
            }
            assertThat(server.groups("orders")).as("nothing written to the server's log").isEmpty();
            Eventually.until("a microsecond passed", Duration.ofSeconds(5),
                    () -> dev.interlace.runtime.ops.EpochMicros.now(Clock.systemUTC()) > earlier);
            try (SqliteLogFollower second = new SqliteLogFollower(dataDirectory, Clock.systemUTC())) {
                Leases.Granted granted = (Leases.Granted) second.lease("orders", "__flusher", "query-process",
                        Duration.ofSeconds(15), SERVER);
                assertThat(granted.token().epoch()).as("above the earlier run's token").isGreaterThan(earlier);
            }
        }
    }
}
