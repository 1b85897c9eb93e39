package dev.interlace.runtime.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The two buckets of a key: each refuses on its own, and a refusal by one takes nothing from the other. */
class QuotasTest {

    private final Quotas quotas = new Quotas();

    private static Caller key(double eventsPerSecond, long bytesPerSecond) {
        return Caller.of(new ApiKey("key_0123abcd", "k", List.of(Scope.of(Scope.Kind.PUBLISH)), 1, 0,
                eventsPerSecond, bytesPerSecond));
    }

    @Test
    void aByteQuotaCountsBytesWhateverTheNumberOfEvents() {
        Caller caller = key(0, 1_000);
        assertThat(quotas.take(caller, 1, 600)).isEmpty();
        assertThat(quotas.take(caller, 1, 600)).hasValueSatisfying(refusal -> {
            assertThat(refusal.limit()).isEqualTo(Quotas.Limit.BYTES);
            assertThat(refusal.retryAfterSeconds()).isEqualTo(1);
        });
    }

    @Test
    void aFullBucketLetsOneLargeBodyGoInDebtAndTheWaitCoversTheDebt() {
        Caller caller = key(0, 1_000);
        assertThat(quotas.take(caller, 1, 10_000)).isEmpty();
        assertThat(quotas.take(caller, 1, 10)).hasValueSatisfying(refusal ->
                assertThat(refusal.retryAfterSeconds()).isBetween(9, 10));
    }

    @Test
    void aRequestRefusedByOneLimitTakesNothingFromTheOther() {
        Caller caller = key(2, 1_000);
        assertThat(quotas.take(caller, 1, 1_000)).isEmpty();
        assertThat(quotas.take(caller, 1, 500)).hasValueSatisfying(refusal ->
                assertThat(refusal.limit()).isEqualTo(Quotas.Limit.BYTES));
        assertThat(quotas.take(caller, 1, 0)).as("the refused request's event was not taken: one is left").isEmpty();
        assertThat(quotas.take(caller, 1, 0)).hasValueSatisfying(refusal ->
                assertThat(refusal.limit()).isEqualTo(Quotas.Limit.EVENTS));
    }

    @Test
    void noKeyOrAKeyWithoutQuotasIsNeverLimited() {
        assertThat(quotas.take(key(0, 0), 1_000, 1_000_000)).isEmpty();
        assertThat(quotas.take(key(0, 0), 1_000, 1_000_000)).isEmpty();
        assertThat(quotas.take(Caller.NONE, 1_000, 1_000_000)).isEmpty();
    }
}
