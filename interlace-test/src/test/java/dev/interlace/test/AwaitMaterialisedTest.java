package dev.interlace.test;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.model.ModelListener;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code awaitMaterialised} returns only once the model runs the flush triggered are over, however long they take:
 * here every model commit is held back (a test-only delay), so a wait that stopped at the watermarks would read
 * the model's table before the run wrote it.
 */
class AwaitMaterialisedTest {

    @RegisterExtension
    static final InterlaceExtension INTERLACE = InterlaceExtension.perTest().overrides(new AbstractModule() {
        @Override
        protected void configure() {
            Multibinder.newSetBinder(binder(), ModelListener.class).addBinding().toInstance(new ModelListener() {
                @Override
                public void beforeCommit(String model) {
                    try {
                        Thread.sleep(500);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
        }
    });

    @Test
    void theModelsRowsAreThereWhenItReturnsEvenWhenTheRunIsSlow(TestInterlace interlace) {
        interlace.publish("orders", "{\"order_id\": \"o1\", \"total\": 1}", "{\"order_id\": \"o2\", \"total\": 2}");

        interlace.awaitMaterialised();

        assertThat(interlace.sql("SELECT orders FROM order_totals"))
                .containsExactly(Map.of("orders", 2L));
    }
}
