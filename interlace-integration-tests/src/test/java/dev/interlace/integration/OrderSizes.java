package dev.interlace.integration;

import dev.interlace.annotations.Materialise;
import dev.interlace.annotations.Model;
import dev.interlace.runtime.model.JavaModel;
import dev.interlace.runtime.model.ModelContext;
import java.sql.Statement;

/**
 * A Java model: each order with a size bucket, processed incrementally — only the orders flushed since the last
 * run, which the runner commits together with the model's watermark.
 *
 * <p>An order id is unique in the table because each run deletes the ids it is about to insert, in the same
 * transaction; the table declares no {@code PRIMARY KEY}. A key would make DuckDB keep an index updated on every
 * insert: with random order ids at a hundred thousand orders a second, the runs grew from a few hundred milliseconds
 * to ten seconds by five million orders, and held the warehouse's checkpoints up with them.
 */
@Model(name = "order_sizes",
        dependsOn = "streams.orders",
        materialise = Materialise.INCREMENTAL,
        uniqueKey = "order_id")
public final class OrderSizes implements JavaModel {

    @Override
    public long run(ModelContext context) throws Exception {
        ModelContext.Delta orders = context.deltas().get("orders");
        try (Statement statement = context.connection().createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS " + context.qualifiedTable()
                    + " (order_id VARCHAR, total DECIMAL(12,2), size VARCHAR)");
            statement.execute("DELETE FROM " + context.qualifiedTable() + " WHERE order_id IN (SELECT order_id FROM"
                    + " streams.orders WHERE " + orders.condition() + ")");
            return statement.executeUpdate("INSERT INTO " + context.qualifiedTable()
                    + " SELECT order_id, total, CASE WHEN total IS NULL THEN 'unknown' WHEN total < 10 THEN 'small'"
                    + " WHEN total < 100 THEN 'medium' ELSE 'large' END FROM streams.orders WHERE "
                    + orders.condition() + " QUALIFY row_number() OVER (PARTITION BY order_id ORDER BY _offset DESC) = 1");
        }
    }
}
