package dev.interlace.examples.modelcrash;

import dev.interlace.runtime.warehouse.Warehouse;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;

/**
 * The child's warehouse: the real DuckDB one, except that the connections {@code connect()} hands out (the model
 * runner's) are wrapped so that the {@link ModelProbe} can find the model's transaction and, depending on the fault,
 * stop at its commit or let every statement commit on its own (negative control). A dynamic proxy, so
 * every other method, including ones the interface gains later, reaches the real warehouse unchanged.
 */
final class ProbedWarehouse implements InvocationHandler {

    static final String MODEL_THREAD = "interlace-models";

    private final Warehouse delegate;
    private final ModelProbe probe;

    private ProbedWarehouse(Warehouse delegate, ModelProbe probe) {
        this.delegate = delegate;
        this.probe = probe;
    }

    static Warehouse wrap(Warehouse delegate, ModelProbe probe) {
        return (Warehouse) Proxy.newProxyInstance(Warehouse.class.getClassLoader(), new Class<?>[] {Warehouse.class},
                new ProbedWarehouse(delegate, probe));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        Object result;
        try {
            result = method.invoke(delegate, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        if (method.getName().equals("connect") && (args == null || args.length == 0)) {
            return ProbedConnection.wrap((Connection) result, probe);
        }
        return result;
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
