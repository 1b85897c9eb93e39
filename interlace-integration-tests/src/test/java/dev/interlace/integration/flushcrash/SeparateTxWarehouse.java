package dev.interlace.integration.flushcrash;

import dev.interlace.runtime.stream.StreamDescriptor;
import dev.interlace.runtime.warehouse.FlushRecord;
import dev.interlace.runtime.warehouse.Warehouse;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;

/**
 * The negative control's deliberately broken warehouse: {@code append} commits the new watermark in a transaction
 * of its own (the real append with no rows), then the rows in a second transaction (the real append from the new
 * watermark to itself). A crash between the two leaves the watermark past rows that were never written; the flusher
 * resumes after them and they are lost. On the N-th armed append it halts exactly there.
 *
 * <p>A dynamic proxy, so that every other {@link Warehouse} method, including ones the interface gains later,
 * reaches the real warehouse unchanged.
 */
final class SeparateTxWarehouse implements InvocationHandler {

    private final Warehouse delegate;
    private final FaultTrigger trigger;

    private SeparateTxWarehouse(Warehouse delegate, FaultTrigger trigger) {
        this.delegate = delegate;
        this.trigger = trigger;
    }

    static Warehouse wrap(Warehouse delegate, FaultTrigger trigger) {
        return (Warehouse) Proxy.newProxyInstance(Warehouse.class.getClassLoader(), new Class<?>[] {Warehouse.class},
                new SeparateTxWarehouse(delegate, trigger));
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getName().equals("append") && args != null && args.length == 7) {
            append((StreamDescriptor) args[0], (Warehouse.Target) args[1], (Long) args[2], (Long) args[3],
                    (Long) args[4], (List<Warehouse.Row>) args[5], (FlushRecord) args[6]);
            return null;
        }
        try {
            return method.invoke(delegate, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private void append(StreamDescriptor stream, Warehouse.Target target, long fencingToken, long expectedWatermark,
            long newWatermark, List<Warehouse.Row> rows, FlushRecord record) {
        delegate.append(stream, target, fencingToken, expectedWatermark, newWatermark, List.of(), record);
        if (!target.quarantine() && target.stream().equals(HaltingFlushListener.STREAM)) {
            trigger.hit(FlushFault.WATERMARK_SEPARATE_TX, "target=" + target.key() + " watermark=" + newWatermark
                    + " rows=" + rows.size());
        }
        delegate.append(stream, target, fencingToken, newWatermark, newWatermark, rows, record);
    }
}
