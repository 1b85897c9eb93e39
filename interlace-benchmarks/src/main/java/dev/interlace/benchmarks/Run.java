package dev.interlace.benchmarks;

record Run(long requests, long events, long errors, long nanos, LatencyLog latency, String lastKey,
        double benchCores, double otherCores, long throttled, long throttledNanos) {
    double seconds() {
        return nanos / 1e9;
    }

    double eventsPerSecond() {
        return events / seconds();
    }
}
