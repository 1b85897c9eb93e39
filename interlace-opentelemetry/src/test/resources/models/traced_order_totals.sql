SELECT count(*) AS orders, sum(total) AS revenue FROM streams.traced_orders
