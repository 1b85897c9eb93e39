SELECT count(*) AS orders, sum(total) AS revenue FROM streams.shop_orders
