/**
 * The DuckDB warehouse: tables {@code streams.<name>} filled exactly once from the stream log (DESIGN.md §7).
 *
 * <p>The flusher and its tables arrive with the materialisation work; the module is part of the build from the start
 * so the example application and its shaded jar already have their final shape.
 */
package dev.interlace.warehouse.duckdb;
