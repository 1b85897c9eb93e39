package dev.interlace.runtime.log;

import dev.interlace.runtime.stream.StreamDescriptor;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** What the {@link LogWriter}'s queue holds: one request to its writer thread, with the caller's future. */
sealed interface WriterTask permits WriterTask.Append, WriterTask.Replay, WriterTask.Register, WriterTask.Trim,
        WriterTask.Pragma, WriterTask.Group, WriterTask.Checkpoint, WriterTask.Stop {

    /** Completes the caller's future with {@code error} if it is still waiting. */
    default void fail(RuntimeException error) {
        if (this instanceof Append append) {
            append.result.completeExceptionally(error);
        } else if (this instanceof Register register) {
            register.done.completeExceptionally(error);
        } else if (this instanceof Trim trim) {
            trim.done.completeExceptionally(error);
        } else if (this instanceof Pragma pragma) {
            pragma.done.completeExceptionally(error);
        } else if (this instanceof Group<?> group) {
            group.done.completeExceptionally(error);
        } else if (this instanceof Replay replay) {
            replay.result.completeExceptionally(error);
        }
    }

    /** Work on the writer connection, run on the writer thread in a transaction of its own. */
    @FunctionalInterface
    interface GroupWork<T> {
        T run(Connection connection, StreamState state, long nowMicros) throws SQLException;
    }

    record Group<T>(String stream, GroupWork<T> work, CompletableFuture<T> done) implements WriterTask {
        Group(String stream, GroupWork<T> work) {
            this(stream, work, new CompletableFuture<>());
        }

        void run(Map<String, StreamState> states, Connection connection, long nowMicros) throws SQLException {
            StreamState state = stream == null ? null : states.get(stream);
            if (state == null && stream != null) {
                throw new IllegalArgumentException("stream " + stream + " is not registered with the log");
            }
            T result = work.run(connection, state, nowMicros);
            connection.commit();
            done.complete(result);
        }
    }

    record Append(AppendRequest request, CompletableFuture<AppendResult> result) implements WriterTask {
        Append(AppendRequest request) {
            this(request, new CompletableFuture<>());
        }
    }

    record Replay(ReplayRequest request, CompletableFuture<ReplayResult> result) implements WriterTask {
        Replay(ReplayRequest request) {
            this(request, new CompletableFuture<>());
        }
    }

    record Register(StreamDescriptor stream, CompletableFuture<Void> done) implements WriterTask {
        Register(StreamDescriptor stream) {
            this(stream, new CompletableFuture<>());
        }
    }

    record Trim(String stream, long throughOffset, long maxEvents, CompletableFuture<Long> done)
            implements WriterTask {
        Trim(String stream, long throughOffset, long maxEvents) {
            this(stream, throughOffset, maxEvents, new CompletableFuture<>());
        }
    }

    record Pragma(String name, CompletableFuture<String> done) implements WriterTask {
        Pragma(String name) {
            this(name, new CompletableFuture<>());
        }
    }

    /**
     * A passive checkpoint on the writer connection between two groups, outside any transaction, so that the next
     * commit may restart the WAL ({@link WalCheckpointer}); nobody waits for it.
     */
    record Checkpoint() implements WriterTask {}

    record Stop() implements WriterTask {}
}
