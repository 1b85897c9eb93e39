package dev.interlace.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.warehouse.RunRecord;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The kit as a user meets it: {@code @InterlaceTest}, the streams and the SQL model of this module's tests. */
@InterlaceTest
class InterlaceTestAnnotationTest {

    @Test
    void publishReturnsOneVerdictPerEventWithItsOffset(TestInterlace interlace) {
        Publication publication = interlace.publish("orders",
                "{\"order_id\": \"o1\", \"total\": 10.50}",
                Map.of("order_id", "o2", "total", 4),
                "{\"order_id\": \"o1\", \"total\": 10.50}");

        assertThat(publication.status()).isEqualTo(200);
        assertThat(publication.requestId()).isNotBlank();
        assertThat(publication.statuses()).containsExactly("accepted", "accepted", "duplicate");
        assertThat(publication.verdicts()).extracting(Verdict::offset).containsExactly(1L, 2L, 1L);
    }

    @Test
    void awaitMaterialisedWaitsForTheStreamTablesAndTheModelsTheFlushTriggered(TestInterlace interlace) {
        interlace.publish("orders", "{\"order_id\": \"o1\", \"total\": 10.50}", "{\"order_id\": \"o2\", \"total\": 4}");

        interlace.awaitMaterialised();

        assertThat(interlace.sql("SELECT order_id, total FROM streams.orders ORDER BY _offset")).containsExactly(
                Map.of("order_id", "o1", "total", new BigDecimal("10.50")),
                Map.of("order_id", "o2", "total", new BigDecimal("4.00")));
        assertThat(interlace.sql("SELECT orders, revenue FROM order_totals")).containsExactly(
                Map.of("orders", 2L, "revenue", new BigDecimal("14.50")));
        List<RunRecord> runs = interlace.runs("order_totals");
        assertThat(runs).isNotEmpty();
        assertThat(runs.get(0).status().wire()).isEqualTo("succeeded");
        assertThat(runs.get(0).triggers()).extracting(Object::toString).contains("stream:orders:2");
    }

    @Test
    void aRefusedPublishIsReturnedWithTheServersErrorAndNothingIsStored(TestInterlace interlace) {
        Publication publication = interlace.publish("orders", "{\"order_id\": \"o1\", \"total\": \"ten\"}");

        assertThat(publication.status()).isEqualTo(422);
        assertThat(publication.error()).isEqualTo("schema_violation");
        assertThat(publication.errors()).singleElement().asString().startsWith("event 0, total: ");
        interlace.awaitMaterialised();
        assertThat(interlace.sql("SELECT count(*) AS n FROM streams.orders"))
                .containsExactly(Map.of("n", 0L));
    }

    @Test
    void quarantinedEventsAreListedAndCorrelateTellsTheRequestsStory(TestInterlace interlace) {
        Publication publication = interlace.publish("clicks",
                "{\"click_id\": \"c1\", \"url\": \"/\"}", "{\"click_id\": \"c2\"}");

        assertThat(publication.statuses()).containsExactly("accepted", "quarantined");
        assertThat(publication.verdicts().get(1).errors()).singleElement().asString().startsWith("url: ");
        List<QuarantinedEvent> quarantined = interlace.quarantine("clicks");
        assertThat(quarantined).singleElement().satisfies(event -> {
            assertThat(event.seq()).isEqualTo(1);
            assertThat(event.requestId()).isEqualTo(publication.requestId());
            assertThat(event.event()).isEqualTo("{\"click_id\":\"c2\"}");
            assertThat(event.replayedOffset()).isNull();
        });
        interlace.awaitMaterialised();
        JsonNode story = interlace.correlate(publication.requestId());
        assertThat(story.path("events").path("count").asInt()).isEqualTo(1);
        assertThat(story.path("events").path("materialised").asInt()).isEqualTo(1);
        assertThat(story.path("quarantine").path("total").asInt()).isEqualTo(1);
    }

    @Test
    void aQuerysValuesAreTypedByTheirColumnsType(TestInterlace interlace) {
        Map<String, Object> row = interlace.sql("SELECT 7::INTEGER AS i, 12.50::DECIMAL(10,2) AS d, 0.5::DOUBLE AS f,"
                + " 170141183460469231731687303715884105727::HUGEINT AS h, true AS b, 'x' AS s, NULL AS n").get(0);

        assertThat(row).containsExactly(entry("i", 7L), entry("d", new BigDecimal("12.50")), entry("f", 0.5),
                entry("h", new BigInteger("170141183460469231731687303715884105727")), entry("b", true),
                entry("s", "x"), entry("n", null));
    }

    @Test
    void aQueryTheServerRefusesFailsWithItsStatusMessageAndTheQuery(TestInterlace interlace) {
        assertThatThrownBy(() -> interlace.sql("SELECT * FROM streams.nowhere"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("POST /sql answered 400")
                .hasMessageContaining("query_failed")
                .hasMessageContaining("query: SELECT * FROM streams.nowhere");
    }

    @Test
    void runsOfAModelThatDoesNotExistNamesTheModelsThatDo(TestInterlace interlace) {
        assertThatThrownBy(() -> interlace.runs("order_total"))
                .isInstanceOf(AssertionError.class)
                .hasMessage("no model is named order_total; the models are [order_totals]");
    }
}
