package dev.interlace.runtime.testing;

import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.model.ModelListener;
import dev.interlace.runtime.warehouse.Warehouse;
import java.util.function.BooleanSupplier;

/**
 * Guice modules that add a test's own flush or model listener to a server's: a fault (a warehouse that cannot
 * commit, a model that breaks) or a probe that holds a flush. The one way tests inject such faults, so that every
 * test's fault fails the same way and reads the same in logs and records.
 */
public final class FaultModules {

    private FaultModules() {}

    /** Adds {@code listener} to the server's flush listeners. */
    public static Module flushListener(FlushListener listener) {
        return new AbstractModule() {
            @Override
            protected void configure() {
                Multibinder.newSetBinder(binder(), FlushListener.class).addBinding().toInstance(listener);
            }
        };
    }

    /** Adds {@code listener} to the server's model listeners. */
    public static Module modelListener(ModelListener listener) {
        return new AbstractModule() {
            @Override
            protected void configure() {
                Multibinder.newSetBinder(binder(), ModelListener.class).addBinding().toInstance(listener);
            }
        };
    }

    /** A warehouse whose every commit fails: nothing is materialised and the backlog only grows. */
    public static Module failingWarehouse() {
        return failingWarehouseWhile(() -> true);
    }

    /**
     * A warehouse whose commits fail ({@code warehouse unavailable (test fault)}) whenever {@code failing} answers
     * true, asked once per commit.
     */
    public static Module failingWarehouseWhile(BooleanSupplier failing) {
        return flushListener(new FlushListener() {
            @Override
            public void beforeCommit(Warehouse.Target target, long newWatermark, int rows) {
                if (failing.getAsBoolean()) {
                    throw new IllegalStateException("warehouse unavailable (test fault)");
                }
            }
        });
    }

    /**
     * The runs of {@code model} fail before their commit ({@code <model> broke (test fault)}) whenever
     * {@code failing} answers true; other models run as usual.
     */
    public static Module failingModelWhile(String model, BooleanSupplier failing) {
        return modelListener(new ModelListener() {
            @Override
            public void beforeCommit(String name) {
                if (name.equals(model) && failing.getAsBoolean()) {
                    throw new IllegalStateException(model + " broke (test fault)");
                }
            }
        });
    }
}
