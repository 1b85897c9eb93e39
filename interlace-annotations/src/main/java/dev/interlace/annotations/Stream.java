package dev.interlace.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares an ingestion stream: an HTTP endpoint {@code POST /streams/<name>}, a durable log and a warehouse table
 * {@code streams.<name>}.
 *
 * <p>The annotation processor checks every value at compile time and generates, next to the annotated class, a typed
 * event record, a decoder specialised to the schema and a descriptor the runtime finds through {@code ServiceLoader}.
 *
 * <pre>{@code
 * @Stream(name = "orders",
 *         schema = {"order_id string not null", "total decimal(12,2)", "placed_at timestamp", "meta json"},
 *         idempotencyKey = "order_id",
 *         retention = "7d")
 * public final class Orders {}
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface Stream {

    /** Stream name: {@code [a-z][a-z0-9_]{0,62}} without {@code __}; unique across the application. */
    String name();

    /**
     * One string per column, {@code "<column> <type> [not null]"}. Types: {@code string}, {@code bigint},
     * {@code double}, {@code decimal(p,s)}, {@code boolean}, {@code timestamp}, {@code date}, {@code json}, and their
     * aliases ({@code text}, {@code varchar}, {@code int}, {@code integer}, {@code long}, {@code float}, {@code bool}).
     */
    String[] schema();

    /**
     * Column whose typed value deduplicates events within the retention window; empty for no deduplication. Must be a
     * declared column of type string, bigint, decimal, date or timestamp.
     */
    String idempotencyKey() default "";

    /**
     * How long log entries (and so the deduplication window) are kept, {@code <integer><s|m|h|d|w>}; empty keeps the
     * log forever. Warehouse tables keep their history regardless.
     */
    String retention() default "";

    /** What happens to events that do not match the schema. */
    SchemaDrift onSchemaDrift() default SchemaDrift.REJECT;

    /**
     * How many partitions the stream has, 1 to 256: each partition is its own log, with its own dense offsets, its
     * own deduplication and (on Kafka) its own sequencer, so that one stream can use several nodes. An event's
     * partition is a stable hash of its idempotency key (so that deduplication stays exact), else of the
     * {@link #partitionKey()} column, else the events go round robin. The default, 1, is a stream as it always was.
     * The count of an existing stream cannot change: the server refuses to start.
     */
    int partitions() default 1;

    /**
     * For a stream with several partitions and no idempotency key: the column whose value chooses an event's
     * partition (events with the same value stay in order in one partition); empty for round robin. A stream with an
     * idempotency key is always partitioned by its key, so it must leave this empty.
     */
    String partitionKey() default "";
}
