package dev.interlace.integration.modelcrash;

import com.google.inject.Binder;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.model.ModelListener;
import dev.interlace.runtime.warehouse.Warehouse;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Set;

/**
 * The bindings a model-crash child overrides: the {@link ModelProbe} as model listener, and the real DuckDB warehouse
 * opened by {@link ProbedWarehouse} (with the audit tables created before the model runner starts).
 */
record ModelFaultModule(ModelProbe probe) implements Module {

    @Override
    public void configure(Binder binder) {
        Multibinder.newSetBinder(binder, ModelListener.class).addBinding().toInstance(probe);
    }

    @Provides
    @Singleton
    Optional<Warehouse> warehouse(InterlaceConfig config, Set<FlushListener> listeners) {
        FlushListener listener = FlushListener.all(listeners);
        Warehouse warehouse = ProbedWarehouse.open(config.dataDirectory(), listener, probe);
        try (Connection c = warehouse.connect()) {
            ModelProbe.createAuditTables(c);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the modelcrash audit tables: " + e.getMessage(), e);
        }
        return Optional.of(warehouse);
    }
}
