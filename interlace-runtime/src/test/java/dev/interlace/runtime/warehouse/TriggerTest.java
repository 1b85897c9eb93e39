package dev.interlace.runtime.warehouse;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TriggerTest {

    @Test
    void everyTriggerReadsBackFromItsWireForm() {
        for (Trigger trigger : new Trigger[] {Trigger.MANUAL, Trigger.STARTUP, Trigger.flushed("orders", 42),
                Trigger.flushed("a:b", 0)}) {
            assertThat(Trigger.parse(trigger.toString())).contains(trigger);
        }
        assertThat(Trigger.flushed("orders", 42)).hasToString("stream:orders:42");
    }

    @Test
    void textThatIsNotATriggerIsRefused() {
        for (String text : new String[] {"", "Manual", "stream:", "stream:orders", "stream::5", "stream:orders:",
                "stream:orders:x", "stream:orders:-1", "stream:orders:99999999999999999999", "orders:5"}) {
            assertThat(Trigger.parse(text)).as(text).isEmpty();
        }
    }

    @Test
    void statusesAndOutcomesHaveOneWireFormEach() {
        for (RunStatus status : RunStatus.values()) {
            assertThat(RunStatus.fromWire(status.wire())).contains(status);
        }
        for (ModelOutcome outcome : ModelOutcome.values()) {
            assertThat(ModelOutcome.fromWire(outcome.wire())).contains(outcome);
        }
        assertThat(RunStatus.wireForms()).containsExactly("queued", "running", "succeeded", "failed");
        assertThat(RunStatus.fromWire("FAILED")).isEmpty();
    }
}
