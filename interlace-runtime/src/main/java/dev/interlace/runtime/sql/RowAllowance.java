package dev.interlace.runtime.sql;

/**
 * Asked by a query as it reads its rows, before it keeps them, whether the caller may hold that many more bytes of
 * values (a memory budget). When it says no the query stops reading and fails with
 * {@link QueryException.Reason#OVERLOADED}: an answer is whole or not given, never silently shorter for want of
 * memory.
 */
@FunctionalInterface
public interface RowAllowance {

    /** Grants every row. */
    RowAllowance UNLIMITED = bytes -> true;

    /** Whether the caller may also hold {@code bytes} more bytes of values; false ends the query. */
    boolean admit(long bytes);
}
