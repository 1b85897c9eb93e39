package dev.interlace.integration.flushcrash;

import dev.interlace.runtime.warehouse.Warehouse;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One flusher's view of a warehouse shared by several test-only flushers: every call reaches the shared instance,
 * except that {@code close()} (which {@code Flusher.close()} calls) leaves it open for the others; appends are
 * counted by outcome, a test may run a hook right after {@code prepare} returned (to force an interleaving
 * between a flusher's prepare and its claim), and {@link #beforeAppend} stops this flusher just before an append
 * reaches the warehouse (a flusher paused after deciding to write, as by a long GC pause). A dynamic proxy, so methods
 * the interface gains later pass through.
 */
final class SharedWarehouse implements InvocationHandler {

    private final Warehouse delegate;
    private final Consumer<Warehouse.Positions> afterPrepare;
    private final AtomicInteger committed = new AtomicInteger();
    private final AtomicInteger fenced = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    /** Stops this flusher's next append before it reaches the warehouse, once armed. */
    final Hold beforeAppend = new Hold();
    final Warehouse view;

    SharedWarehouse(Warehouse delegate, Consumer<Warehouse.Positions> afterPrepare) {
        this.delegate = delegate;
        this.afterPrepare = afterPrepare;
        this.view = (Warehouse) Proxy.newProxyInstance(Warehouse.class.getClassLoader(),
                new Class<?>[] {Warehouse.class}, this);
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        switch (method.getName()) {
            case "close":
                return null; // shared: the test closes the real warehouse once every flusher is closed
            case "toString":
                return "shared view of " + delegate;
            case "hashCode":
                return System.identityHashCode(proxy);
            case "equals":
                return proxy == args[0];
            default:
                break;
        }
        if (method.getName().equals("append")) {
            beforeAppend.here();
        }
        Object result;
        try {
            result = method.invoke(delegate, args);
        } catch (InvocationTargetException e) {
            if (method.getName().equals("append")) {
                (e.getCause() instanceof Warehouse.FencedException ? fenced : failed).incrementAndGet();
            }
            throw e.getCause();
        }
        if (method.getName().equals("append")) {
            committed.incrementAndGet();
        } else if (method.getName().equals("prepare")) {
            afterPrepare.accept((Warehouse.Positions) result);
        }
        return result;
    }

    int committed() {
        return committed.get();
    }

    int failed() {
        return failed.get();
    }

    int fenced() {
        return fenced.get();
    }

    /** Appends through this view: committed, refused by the fence, failed otherwise (e.g. a write conflict). */
    String describeAppends() {
        return committed.get() + " committed, " + fenced.get() + " fenced, " + failed.get() + " failed";
    }
}
