package dev.interlace.runtime.warehouse;

import java.nio.file.Path;

/**
 * Opens the warehouse; found with {@code ServiceLoader}, so the runtime does not depend on a warehouse
 * implementation. With none on the class path the runtime still logs durably but materialises nothing.
 */
public interface WarehouseFactory {

    /** Opens (creating if needed) the warehouse in {@code dataDirectory}; {@code steps} hears inside its appends. */
    Warehouse open(Path dataDirectory, AppendSteps steps);

    /**
     * Loads, without opening a warehouse, what opening one needs that takes long (a native library): called at
     * start-up on a thread of its own while the log opens, so that {@link #open} does not wait for it after the log.
     * Any failure is left to {@link #open} to report.
     */
    default void load() {}

    /** The warehouse implementation on the class path (its {@code META-INF/services} entry), if any. */
    static java.util.Optional<WarehouseFactory> onClassPath() {
        return java.util.ServiceLoader.load(WarehouseFactory.class, Thread.currentThread().getContextClassLoader())
                .findFirst();
    }
}
