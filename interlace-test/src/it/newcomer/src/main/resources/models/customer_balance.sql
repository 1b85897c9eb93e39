-- interlace: materialise=table
-- What each customer paid, net of refunds.
SELECT o.customer,
       sum(o.total) - coalesce(sum(r.amount), 0) AS balance
FROM streams.orders o
LEFT JOIN streams.refunds r ON r.order_id = o.order_id
GROUP BY o.customer
ORDER BY o.customer
