-- interlace: materialise=table
SELECT count(*) AS orders, sum(total) AS revenue
FROM streams.orders
