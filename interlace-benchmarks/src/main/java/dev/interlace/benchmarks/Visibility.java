package dev.interlace.benchmarks;

/** Latencies of one open loop's publishes against one polled value. */
final class Visibility {
    final LatencyLog fromSend = new LatencyLog();
    final LatencyLog fromAck = new LatencyLog();
    long[] visibleAt = new long[0];
    long neverSeen;
}
