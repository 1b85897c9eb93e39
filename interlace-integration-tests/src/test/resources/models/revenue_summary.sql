-- interlace: materialise=view
SELECT sum(orders) AS orders, sum(revenue) AS revenue, max(day) AS last_day
FROM revenue_per_day
