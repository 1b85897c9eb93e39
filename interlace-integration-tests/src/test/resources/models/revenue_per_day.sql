-- interlace: materialise=table
SELECT CAST(coalesce(placed_at, _ingested_at) AS DATE) AS day,
       count(*) AS orders,
       sum(total) AS revenue
FROM streams.orders
GROUP BY ALL
ORDER BY day
