-- interlace: materialise=incremental unique_key=click_id
SELECT click_id, user_id, url, "at", date_trunc('hour', "at") AS hour, _offset AS click_offset
FROM streams.clicks
