-- wrk script: plain GETs of the URL given to wrk; prints the same LATENCY line as publish.lua (p99.9 included, which
-- wrk --latency does not show).
function done(summary, latency, requests)
  io.write(string.format("LATENCY p50_us=%d p99_us=%d p999_us=%d max_us=%d requests=%d non2xx=%d timeouts=%d\n",
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max, summary.requests,
    summary.errors.status, summary.errors.timeout))
end
