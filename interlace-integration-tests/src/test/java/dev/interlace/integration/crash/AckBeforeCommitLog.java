package dev.interlace.integration.crash;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.StreamLog;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A deliberately broken log for the negative control: it hands every append to the real log but reports it
 * committed at once (every entry accepted, offset {@value #FAKE_OFFSET}), before anything is written. A crash then
 * loses events that clients were told are durable.
 *
 * <p>A dynamic proxy rather than a hand-written decorator, so that every other {@link StreamLog} method, including
 * ones the interface gains later, reaches the real log unchanged.
 */
final class AckBeforeCommitLog implements InvocationHandler {

    static final long FAKE_OFFSET = -1;

    private final StreamLog real;

    private AckBeforeCommitLog(StreamLog real) {
        this.real = real;
    }

    /** {@code real}, except that {@code append} and {@code appendAtOnce} answer before the append is durable. */
    static StreamLog wrap(StreamLog real) {
        return (StreamLog) Proxy.newProxyInstance(StreamLog.class.getClassLoader(), new Class<?>[] {StreamLog.class},
                new AckBeforeCommitLog(real));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if ((method.getName().equals("append") || method.getName().equals("appendAtOnce")) && args != null
                && args.length == 1 && args[0] instanceof AppendRequest request) {
            return acknowledgeAtOnce(request);
        }
        try {
            return method.invoke(real, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private CompletableFuture<AppendResult> acknowledgeAtOnce(AppendRequest request) {
        real.append(request);
        List<AppendResult.EntryResult> entries = new ArrayList<>(request.size());
        for (int i = 0; i < request.size(); i++) {
            entries.add(new AppendResult.EntryResult(AppendResult.Status.ACCEPTED, FAKE_OFFSET));
        }
        return CompletableFuture.completedFuture(new AppendResult.Committed(entries, request.receivedAtMicros()));
    }
}
