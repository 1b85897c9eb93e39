package dev.interlace.integration.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.integration.crash.Ledger;
import dev.interlace.integration.crash.Load;
import dev.interlace.log.kafka.testing.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The sequencer of a keyed stream publishes each set of deduplication segments it uses (their parts, then a seal
 * naming them, then tombstones for the parts no seal names any more) so that the next holder reads their filters
 * instead of every key block. Here the holder, publishing under load ({@link Load}: 16 clients of fresh keys), halts
 * at a step of a publication ({@link PublicationFault}); then a fresh node (empty data directory, the only candidate)
 * takes the stream over, restoring the published index, and {@link KafkaOracle} checks that every acknowledged key is
 * in the stream's topic exactly once at its offset and is answered {@code deduplicated} at that offset when
 * re-published on the new holder, which accepts new keys. Segments of {@value PublishedIndexFaultServeMain#RECENT_KEYS}
 * keys merged two at a time: a publication every few thousand keys. The negative control publishes a segment that
 * claims offsets whose keys it does not hold, and the oracle must catch it.
 */
class PublishedIndexCrashTest extends KafkaFailureTest {

    private static final Duration LOAD_AT_MOST = Duration.ofSeconds(120);
    private static final Duration TAKEOVER_AT_MOST = Duration.ofSeconds(120);
    private static final String RESTORED = "deduplication segments of stream orders through offset";

    PublishedIndexCrashTest() {
        super("index-crash", 33, KafkaCluster::shared);
    }

    /**
     * The holder killed after some parts of a publication were sent and before its seal; right after a seal, before
     * its tombstones; while tombstoning the segments a merge replaced.
     */
    @ParameterizedTest(name = "holder killed at {0} (trigger {1}) loses nothing")
    @CsvSource({"PART_SENT, 1", "SEALED, 2", "TOMBSTONED, 1"})
    void aHolderKilledAtAStepOfAPublicationLosesNothing(PublicationFault fault, int trigger) throws Exception {
        KafkaOracle.Findings findings = crashThenTakeOver(fault, trigger);
        assertThat(findings.problems()).as(findings.toString()).isEmpty();
    }

    @Test
    void negativeControlASegmentPublishedAheadOfItsKeysIsTrustedAndTheOracleSaysSo() throws Exception {
        KafkaOracle.Findings findings = crashThenTakeOver(PublicationFault.SEGMENT_AHEAD, 1);
        assertThat(findings.problems()).as("the oracle must catch acknowledged keys answered as new")
                .isNotEmpty();
        assertThat(String.join("\n", findings.problems())).as(findings.toString()).contains("re-published");
    }

    /**
     * Loads a holder that halts at {@code fault}'s step until it is gone, lets a fresh node take the stream over,
     * publishes new keys there and runs the oracle on it.
     */
    private KafkaOracle.Findings crashThenTakeOver(PublicationFault fault, int trigger) throws Exception {
        String bootstrap = cluster().bootstrap();
        ServeNode holder = track(ServeNode.startWithIndexFault(directory.resolve("holder"), bootstrap, prefix, fault,
                trigger));
        Ledger ledger = new Ledger();
        Load load = Load.start(holder.uri, ledger, fault.argument(), LOAD_AT_MOST, random.nextLong());
        int exit = holder.awaitExit(LOAD_AT_MOST.toSeconds() + 30);
        load.stopAndAwaitEnd();
        assertThat(exit).as(holder.output()).isEqualTo(HaltingPublication.HALT_STATUS);
        String fired = holder.output().lines().filter(line -> line.startsWith(HaltingPublication.FIRED)).findFirst()
                .orElseThrow();
        System.out.println(fired + "; " + load.acknowledgedEvents() + " events acknowledged, " + load.unanswered()
                + " requests unanswered");

        ServeNode fresh = track(ServeNode.startWithIndexFault(directory.resolve("fresh"), bootstrap, prefix,
                PublicationFault.NONE, 0));
        JsonNode taken = fresh.await("/streams/orders", body -> fresh.uri.toString().equals(body.path("sequencer")
                .asText(null)), TAKEOVER_AT_MOST);
        assertThat(taken.path("sequencer").asText()).as(fresh.output()).isEqualTo(fresh.uri.toString());
        // The fresh node read the published index rather than every key block: the case under test.
        assertThat(fresh.output()).as("the fresh node restores the published index").contains(RESTORED);

        List<String> fresher = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            fresher.add("after-" + fault.argument() + "-" + i);
        }
        ServeNode.Response accepted = fresh.publish("orders", Load.batch(fresher));
        assertThat(accepted.status()).as(String.valueOf(accepted.body())).isEqualTo(200);
        assertThat(accepted.body().get("accepted").asInt()).as(accepted.body().toString()).isEqualTo(fresher.size());
        String requestId = accepted.body().get("request_id").asText();
        List<Long> offsets = NodeFixtures.offsets(accepted.body());
        for (int i = 0; i < fresher.size(); i++) {
            ledger.acknowledge(fresher.get(i), offsets.get(i), requestId);
        }
        String restored = fresh.output().lines().filter(line -> line.contains(RESTORED)).findFirst().orElseThrow();
        KafkaOracle.Findings findings = oracle().check(ledger, List.of(fresh), null);
        System.out.println(fault.argument() + ": the fresh node " + restored.substring(restored.indexOf("restored"))
                + "\n" + findings);
        return findings;
    }
}
