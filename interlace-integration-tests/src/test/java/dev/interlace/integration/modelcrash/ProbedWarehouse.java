package dev.interlace.integration.modelcrash;

import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.warehouse.Warehouse;
import dev.interlace.warehouse.duckdb.DuckDbWarehouseFactory;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;

/**
 * The child's warehouse: the real DuckDB one, opened so that the connections model runs use are wrapped and the
 * {@link ModelProbe} can find the model's transaction and, depending on the fault, stop at its commit or let every
 * statement commit on its own (negative control).
 */
final class ProbedWarehouse {

    static final String MODEL_THREAD = "interlace-models";

    private ProbedWarehouse() {}

    /** The real DuckDB warehouse in {@code dataDirectory}, its model-run connections probed. */
    static Warehouse open(Path dataDirectory, FlushListener listener, ModelProbe probe) {
        return new DuckDbWarehouseFactory().open(dataDirectory, listener, c -> ProbedConnection.wrap(c, probe));
    }

    /** A model-run connection: tells the probe when it opens, commits and closes. */
    static final class ProbedConnection implements InvocationHandler {

        private final Connection delegate;
        private final ModelProbe probe;
        /** Negative control: {@code setAutoCommit(false)} is ignored, so each statement commits by itself. */
        private final boolean statementsCommitAlone;

        private ProbedConnection(Connection delegate, ModelProbe probe) {
            this.delegate = delegate;
            this.probe = probe;
            this.statementsCommitAlone = probe.fault() == ModelFault.OUTPUT_COMMITTED_ALONE;
        }

        static Connection wrap(Connection delegate, ModelProbe probe) {
            Connection proxy = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, new ProbedConnection(delegate, probe));
            probe.opened(delegate);
            return proxy;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "setAutoCommit":
                    if (statementsCommitAlone && Boolean.FALSE.equals(args[0])) {
                        return null; // stays in auto-commit: the output commits before the watermark is written
                    }
                    break;
                case "commit":
                    if (statementsCommitAlone) {
                        return null; // everything already committed statement by statement
                    }
                    probe.beforeRealCommit(delegate);
                    break;
                case "rollback":
                    if (statementsCommitAlone && (args == null || args.length == 0)) {
                        return null; // nothing to roll back in auto-commit
                    }
                    break;
                case "close":
                    probe.closed(delegate);
                    break;
                default:
                    break;
            }
            try {
                return method.invoke(delegate, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
