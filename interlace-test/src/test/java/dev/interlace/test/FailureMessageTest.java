package dev.interlace.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.warehouse.Warehouse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When materialisation does not happen, the failure says what was expected and what each stream and model was doing. */
class FailureMessageTest {

    /** A test-only fault: every warehouse commit fails, so nothing is ever materialised. */
    private static final Module FAILING_WAREHOUSE = new AbstractModule() {
        @Override
        protected void configure() {
            Multibinder.newSetBinder(binder(), FlushListener.class).addBinding().toInstance(new FlushListener() {
                @Override
                public void beforeCommit(Warehouse.Target target, long newWatermark, int rows) {
                    throw new IllegalStateException("warehouse unavailable (test fault)");
                }
            });
        }
    };

    @Test
    void awaitMaterialisedNamesEachStreamsHeadWatermarkPendingAndFlushStateAndEachModelsLastRun(
            @TempDir Path directory) {
        try (TestInterlace interlace = TestInterlace.start(directory.resolve("data"), List.of(),
                List.of(FAILING_WAREHOUSE))) {
            assertThat(interlace.publish("orders", "{\"order_id\": \"o1\", \"total\": 1}",
                    "{\"order_id\": \"o2\", \"total\": 2}").statuses()).containsExactly("accepted", "accepted");

            assertThatThrownBy(() -> interlace.awaitMaterialised(Duration.ofSeconds(2)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageStartingWith("expected every stream's watermark at its head and every model run it"
                            + " triggered finished within 2000 ms, but the streams still have events pending.")
                    .hasMessageContaining("\n  clicks: head 0, watermark 0, pending 0, flush idle")
                    .hasMessageContaining("\n  orders: head 2, watermark 0, pending 2, flush failing: ")
                    .hasMessageContaining("warehouse unavailable (test fault)")
                    .hasMessageContaining("\nmodels:\n  order_totals: ");
        }
    }
}
