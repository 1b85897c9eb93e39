package dev.interlace.integration.decoding;

import static dev.interlace.integration.decoding.Decoding.allTypes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.annotations.SchemaDrift;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

/** The generated event record and descriptor expose the typed values in column order. */
class EventRecordTest {

    private static final String FULL = "{'class': 'gold', 'j': {'a': 1}, 'day': '2026-11-29',"
            + " 't': '2026-11-29T10:30:00.000001+02:00', 'f': true, 'm': '49.5', 'd': 2.5, 'b': 42, 's': 'k1'}";

    @Test
    void valueReturnsTheTypedValuesInColumnOrder() {
        AllTypesEvent event = allTypes(FULL);
        assertThat(event.value(0)).isEqualTo("k1");
        assertThat(event.value(1)).isEqualTo(42L);
        assertThat(event.value(2)).isEqualTo(2.5);
        assertThat(event.value(3)).isEqualTo(new BigDecimal("49.50"));
        assertThat(event.value(4)).isEqualTo(Boolean.TRUE);
        assertThat(event.value(5)).isEqualTo(Instant.parse("2026-11-29T08:30:00.000001Z"));
        assertThat(event.value(6)).isEqualTo(LocalDate.of(2026, 11, 29));
        assertThat(event.value(7)).isEqualTo("{\"a\":1}");
        assertThat(event.value(8)).isEqualTo("gold");
    }

    @Test
    void valueAgreesWithTheRecordComponents() {
        AllTypesEvent event = allTypes(FULL);
        assertThat(new Object[] {event.value(0), event.value(1), event.value(2), event.value(3), event.value(4),
                event.value(5), event.value(6), event.value(7), event.value(8)})
                .containsExactly(event.s(), event.b(), event.d(), event.m(), event.f(), event.t(), event.day(),
                        event.j(), event.class_());
    }

    @Test
    void valueOfAnAbsentColumnIsNull() {
        AllTypesEvent event = allTypes("{'s': 'only'}");
        assertThat(event.value(0)).isEqualTo("only");
        assertThat(event.value(3)).isNull();
    }

    @Test
    void valueOutsideTheColumnsIsAnIndexError() {
        AllTypesEvent event = allTypes("{}");
        assertThatThrownBy(() -> event.value(9)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("9 columns");
        assertThatThrownBy(() -> event.value(-1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void differentSpellingsOfTheSameValuesDecodeToEqualEvents() {
        AllTypesEvent one = allTypes("{'s': 'k', 'm': 49.5, 't': '2026-11-29T08:30:00Z', 'j': {'a': 1}}");
        AllTypesEvent two = allTypes("{'j': { 'a' : 1 }, 't': '2026-11-29T10:30:00.000000+02:00', 'm': '49.500', 's': 'k'}");
        assertThat(one).isEqualTo(two);
    }

    @Test
    void theDescriptorListsTheColumnsInDeclarationOrderWithCanonicalTypes() {
        StreamDescriptor descriptor = AllTypesStream.DESCRIPTOR;
        assertThat(descriptor.name()).isEqualTo("decoding_all_types");
        assertThat(descriptor.columns()).extracting(Column::declaration).containsExactly(
                "s string", "b bigint", "d double", "m decimal(12,2)", "f boolean", "t timestamp", "day date",
                "j json", "class string");
        assertThat(descriptor.idempotencyKey()).isEqualTo("s");
        assertThat(descriptor.idempotencyKeyIndex()).isZero();
        assertThat(descriptor.onSchemaDrift()).isEqualTo(SchemaDrift.REJECT);
        assertThat(descriptor.decoder()).isInstanceOf(AllTypesDecoder.class);
    }

    @Test
    void theDescriptorsOfTheOtherTestStreamsCarryTheirDriftPolicyAndNullability() {
        assertThat(EvolvingStream.DESCRIPTOR.onSchemaDrift()).isEqualTo(SchemaDrift.EVOLVE);
        assertThat(EvolvingStream.DESCRIPTOR.decoder()).isInstanceOf(EvolvingDecoder.class);
        assertThat(QuarantinedStream.DESCRIPTOR.onSchemaDrift()).isEqualTo(SchemaDrift.QUARANTINE);
        assertThat(RequiredStream.DESCRIPTOR.columns()).extracting(Column::declaration).containsExactly(
                "id bigint not null", "amount decimal(38,10) not null", "name string not null",
                "at timestamp not null", "day date not null", "flag boolean not null", "ratio double not null",
                "payload json not null", "note string");
    }
}
