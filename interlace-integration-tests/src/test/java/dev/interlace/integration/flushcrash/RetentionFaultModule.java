package dev.interlace.integration.flushcrash;

import com.google.inject.Binder;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.SqliteStreamLog;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.util.Set;

/**
 * For {@link FlushFault#AFTER_RETENTION_TRIM}: a clock the child can move forward (so that the retention sweep finds
 * entries older than the window), and the production SQLite log behind a proxy that halts right after the N-th
 * {@code trim} that removed entries has committed, before the sweep goes on.
 */
record RetentionFaultModule(FaultTrigger trigger, ShiftableClock clock) implements Module {

    @Override
    public void configure(Binder binder) {
        binder.bind(Clock.class).toInstance(clock);
    }

    @Provides
    @Singleton
    StreamLog streamLog(InterlaceConfig config, LogSettings settings, Watermarks watermarks,
            Set<CommitListener> listeners, Clock clock) {
        StreamLog real = new SqliteStreamLog(config.dataDirectory(), settings, watermarks,
                CommitListener.all(listeners), clock);
        return (StreamLog) Proxy.newProxyInstance(StreamLog.class.getClassLoader(), new Class<?>[] {StreamLog.class},
                (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("trim") && result instanceof Long removed && removed > 0
                            && HaltingFlushListener.STREAM.equals(args[0])) {
                        trigger.hit(FlushFault.AFTER_RETENTION_TRIM, "target=" + args[0] + " through=" + args[1]
                                + " removed=" + removed);
                    }
                    return result;
                });
    }
}
