package dev.interlace.runtime.log.tck;

import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Nested;

/**
 * The conformance suite (TCK) every {@link StreamLog} must pass (docs/architecture.md#seams-and-conformance-suites):
 * the suites of its four concerns, run as nested classes against the logs {@link #openLog} returns.
 *
 * <ul>
 *   <li>{@link EventLogContract} ({@link dev.interlace.runtime.log.EventLog}): dense per-stream offsets from 1 that
 *       never rewind; atomic appends (all of a request's entries or none, consecutive offsets, never half-visible to
 *       readers); the deduplication window (a key deduplicates exactly while its first acceptance is younger than the
 *       stream's retention, forever without retention, and no longer once trimmed); reads and long polls; heads;
 *       trim bounds; many concurrent appenders.
 *   <li>{@link ConsumerGroupsContract} ({@link dev.interlace.runtime.log.ConsumerGroups}): exclusive leases with
 *       monotonically increasing fencing tokens; every commit refusal; competing leasers.
 *   <li>{@link PublishRecordsContract} ({@link dev.interlace.runtime.log.PublishRecords}): a record of every
 *       committed request, its filters and its retention.
 *   <li>{@link QuarantineStoreContract} ({@link dev.interlace.runtime.log.QuarantineStore}): a replay appends like
 *       a publish and marks its entries replayed in the same atomic step; never twice, also under concurrent
 *       replays; dry runs write nothing.
 * </ul>
 *
 * <p>Every suite goes through the interfaces only. The whole TCK runs in a few seconds on two cores.
 *
 * <h2>Running it against a backend</h2>
 *
 * <p>The suite ships in the runtime's test jar. A backend module (PostgreSQL, a Kafka-protocol broker, ...) adds
 *
 * <pre>{@code
 * <dependency>
 *   <groupId>dev.interlace</groupId>
 *   <artifactId>interlace-runtime</artifactId>
 *   <version>${project.version}</version>
 *   <type>test-jar</type>
 *   <scope>test</scope>
 * </dependency>
 * }</pre>
 *
 * <p>plus test-scoped {@code junit-jupiter} and {@code assertj-core} (the test jar does not carry its test
 * dependencies), and extends this class:
 *
 * <pre>{@code
 * class PostgresStreamLogContractTest extends StreamLogContract {
 *     @Override
 *     protected StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock) {
 *         return new PostgresStreamLog(schemaFor(dataDirectory), settings, watermarks, clock);
 *     }
 * }
 * }</pre>
 *
 * <p>{@code SqliteStreamLogContractTest} (same package) is the reference.
 *
 * <h2>What {@link #openLog} must do</h2>
 *
 * <ul>
 *   <li>Return an open, writable log. A directory the suite has not used before must give an <em>empty</em> log
 *       (no streams, no events, no consumer groups). Each test gets a fresh JUnit temporary directory; a backend
 *       that does not store files should derive an isolated namespace from it (a database schema, a topic prefix)
 *       and may drop that namespace in an {@code @AfterEach} of its own.
 *   <li>Opening the <em>same</em> directory again after the previous log was closed must give back the same durable
 *       state: the restart tests ({@code ...Reopen...}) close a log and open it again.
 *   <li>Use {@code settings.maxPending()} for backpressure and {@code watermarks} for the materialised positions,
 *       read at append time (the suite moves watermarks between appends). Other settings may be ignored.
 *   <li>Take every notion of "now" (the deduplication window, lease grants and expiry, {@code committedAtMicros})
 *       from {@code clock}. The suites pass a {@link dev.interlace.runtime.testing.ManualClock} that only moves when a test
 *       advances it, so expiry is deterministic. Long polls ({@link StreamLog#read} with a wait) use real time.
 * </ul>
 *
 * <p>The suites register their streams ({@link LogContractSupport#ORDERS}, {@link LogContractSupport#CLICKS},
 * {@link LogContractSupport#LEDGER}) themselves, close every log they opened after each test, and never cast to an
 * implementation type.
 */
public abstract class StreamLogContract {

    /**
     * Opens (creating if needed) a log keeping its state under {@code dataDirectory}; see the class comment for what
     * it must guarantee.
     */
    protected abstract StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock);

    /** The {@link EventLogContract} against this backend. */
    @Nested
    class EventLogSuite extends EventLogContract {
        @Override
        protected StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock) {
            return StreamLogContract.this.openLog(dataDirectory, settings, watermarks, clock);
        }
    }

    /** The {@link ConsumerGroupsContract} against this backend. */
    @Nested
    class ConsumerGroupsSuite extends ConsumerGroupsContract {
        @Override
        protected StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock) {
            return StreamLogContract.this.openLog(dataDirectory, settings, watermarks, clock);
        }
    }

    /** The {@link PublishRecordsContract} against this backend. */
    @Nested
    class PublishRecordsSuite extends PublishRecordsContract {
        @Override
        protected StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock) {
            return StreamLogContract.this.openLog(dataDirectory, settings, watermarks, clock);
        }
    }

    /** The {@link QuarantineStoreContract} against this backend. */
    @Nested
    class QuarantineStoreSuite extends QuarantineStoreContract {
        @Override
        protected StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock) {
            return StreamLogContract.this.openLog(dataDirectory, settings, watermarks, clock);
        }
    }
}
