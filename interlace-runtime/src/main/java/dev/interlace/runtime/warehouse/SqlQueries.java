package dev.interlace.runtime.warehouse;

import dev.interlace.runtime.ops.DaemonThreads;
import dev.interlace.runtime.sql.QueryException;
import dev.interlace.runtime.sql.QueryLimits;
import dev.interlace.runtime.sql.QueryResult;
import dev.interlace.runtime.sql.RowAllowance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs {@code POST /sql} queries against the warehouse, at most {@link QueryLimits#maxConcurrent()} at once. The
 * warehouse itself decides what may run (one statement its parser classifies as a query, in a read-only
 * transaction that is rolled back); this class bounds how many do, so that a burst of heavy queries cannot take
 * every core and all of DuckDB's memory from the flusher. Over the bound a query is refused at once
 * ({@link QueryException.Reason#BUSY}) rather than queued, so clients see the pressure instead of a timeout.
 *
 * <p>The answer keeps the time limit even when the warehouse does not: DuckDB cancels a query between vectors of
 * rows, and one vector of an expensive expression can take longer than the limit. Each query runs on a thread of
 * its own while the caller waits at most the limit and {@link #GRACE_MILLIS}; then the caller is answered
 * {@link QueryException.Reason#TIMED_OUT} and the query keeps its slot until the warehouse has really stopped it, so
 * that the bound on concurrent queries stays a bound on the work running.
 */
@Singleton
public final class SqlQueries {

    private final Optional<Queries> warehouse;
    private final QueryLimits limits;
    private final Semaphore running;
    /** How long past its time limit a caller waits for a cancelled query to stop before it is answered anyway. */
    static final long GRACE_MILLIS = 1_500;
    private final ExecutorService threads = Executors.newCachedThreadPool(DaemonThreads.named("interlace-sql-query"));

    @Inject
    public SqlQueries(Optional<Queries> warehouse, QueryLimits limits) {
        this.warehouse = warehouse;
        this.limits = limits;
        this.running = new Semaphore(limits.maxConcurrent());
    }

    /** Whether there is a warehouse to query. */
    public boolean available() {
        return warehouse.isPresent();
    }

    public QueryLimits limits() {
        return limits;
    }

    /**
     * Cancels the queries running now and refuses later ones ({@link QueryException.Reason#SHUTTING_DOWN}): the
     * server is shutting down, and a query must not hold its shutdown until the query's time limit.
     */
    public void stop() {
        warehouse.ifPresent(Queries::stopQueries);
        threads.shutdown();
    }

    /**
     * Runs {@code query} (one sent to the query process) in one of the slots of queries running at once, released
     * when it returns.
     *
     * @throws QueryException ({@link QueryException.Reason#BUSY}) when every slot is taken
     */
    public <T, E extends Exception> T inSlot(SlotTask<T, E> query) throws E, InterruptedException {
        takeSlot();
        try {
            return query.run();
        } finally {
            running.release();
        }
    }

    /** A query run in a slot elsewhere. */
    @FunctionalInterface
    public interface SlotTask<T, E extends Exception> {
        T run() throws E, InterruptedException;
    }

    private void takeSlot() {
        if (!running.tryAcquire()) {
            throw new QueryException(QueryException.Reason.BUSY, limits.maxConcurrent() + " queries are running"
                    + " already, the most allowed at once; retry in a moment", null);
        }
    }

    /**
     * Runs one read-only statement, its rows granted by {@code allowance} as they are read.
     *
     * @throws QueryException when it is refused, fails, times out, too many queries are running, its rows do not fit
     *     the allowance or the server is shutting down
     * @throws IllegalStateException when there is no warehouse ({@link #available()} is false)
     */
    public QueryResult run(String sql, RowAllowance allowance) {
        Queries target = warehouse.orElseThrow(() -> new IllegalStateException("no warehouse is configured"));
        takeSlot();
        CompletableFuture<QueryResult> query;
        try {
            // The slot is free before the answer is: a client that asks again once answered is never refused busy.
            query = CompletableFuture.supplyAsync(() -> {
                try {
                    return target.query(sql, limits, allowance);
                } finally {
                    running.release();
                }
            }, threads);
        } catch (RuntimeException refused) { // the executor is shut down: the server is stopping
            running.release();
            throw new QueryException(QueryException.Reason.SHUTTING_DOWN, "the server is shutting down; retry"
                    + " against the restarted server", refused);
        }
        try {
            return query.get(limits.timeout().toMillis() + GRACE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw new QueryException(QueryException.Reason.TIMED_OUT, "the query ran longer than "
                    + limits.timeout().toMillis() + " ms and was cancelled; the warehouse is still stopping it, and"
                    + " it counts against the queries allowed at once until it has", null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueryException(QueryException.Reason.SHUTTING_DOWN, "interrupted while the query ran", e);
        }
    }
}
