package dev.interlace.runtime.sql;

import dev.interlace.runtime.warehouse.Queries;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Optional;
import java.util.concurrent.Semaphore;

/**
 * Runs {@code POST /sql} queries against the warehouse, at most {@link QueryLimits#maxConcurrent()} at once. The
 * warehouse itself decides what may run (one statement its parser classifies as a query, in a read-only
 * transaction that is rolled back); this class bounds how many do, so that a burst of heavy queries cannot take
 * every core and all of DuckDB's memory from the flusher. Over the bound a query is refused at once
 * ({@link QueryException.Reason#BUSY}) rather than queued, so clients see the pressure instead of a timeout.
 */
@Singleton
public final class SqlQueries {

    private final Optional<Queries> warehouse;
    private final QueryLimits limits;
    private final Semaphore running;

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
    }

    /**
     * Runs one read-only statement.
     *
     * @throws QueryException when it is refused, fails, times out, too many queries are running or the server is
     *     shutting down
     * @throws IllegalStateException when there is no warehouse ({@link #available()} is false)
     */
    public QueryResult run(String sql) {
        Queries target = warehouse.orElseThrow(() -> new IllegalStateException("no warehouse is configured"));
        if (!running.tryAcquire()) {
            throw new QueryException(QueryException.Reason.BUSY, limits.maxConcurrent() + " queries are running"
                    + " already, the most allowed at once; retry in a moment", null);
        }
        try {
            return target.query(sql, limits);
        } finally {
            running.release();
        }
    }
}
