package dev.interlace.integration.flushcrash;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.warehouse.Warehouse;
import dev.interlace.warehouse.duckdb.DuckDbWarehouseFactory;
import java.util.Optional;
import java.util.Set;

/**
 * The bindings a flush-crash child overrides: its halting flush listener, and the warehouse (the real DuckDB one, or
 * for the negative control the real one wrapped in {@link SeparateTxWarehouse}).
 */
final class FlushFaultModule extends AbstractModule {

    private final FaultTrigger trigger;

    FlushFaultModule(FaultTrigger trigger) {
        this.trigger = trigger;
    }

    @Override
    protected void configure() {
        Multibinder.newSetBinder(binder(), FlushListener.class).addBinding()
                .toInstance(new HaltingFlushListener(trigger));
    }

    @Provides
    @Singleton
    Optional<Warehouse> warehouse(InterlaceConfig config, Set<FlushListener> listeners) {
        FlushListener listener = FlushListener.all(listeners);
        Warehouse real = new DuckDbWarehouseFactory().open(config.dataDirectory(), listener);
        return Optional.of(trigger.fault() == FlushFault.WATERMARK_SEPARATE_TX
                ? SeparateTxWarehouse.wrap(real, trigger) : real);
    }
}
