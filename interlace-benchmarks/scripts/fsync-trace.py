#!/usr/bin/env python3
"""Where a lone publisher's slow answers come from, in one clock (used by fsync-trace.sh).

client HOST PORT SECONDS GO_FILE: one keep-alive connection, sequential single-event publishes (random keys); waits
  until GO_FILE exists (the tracer is attached), publishes for SECONDS, prints its percentiles.
analyse TRACE TIDS [MS]: reads `perf trace` output (the client's sendto/recvfrom, the server's fsync/fdatasync) and the
  server's thread names (TIDS: "tid name" lines); prints each thread's fsyncs, how the publishes over MS (5) split by
  whether the writer's own fsync took over half of them and which other threads synced meanwhile, and the writer's
  fsyncs alone against beside another thread's.
"""
import collections
import os
import re
import socket
import sys
import time
import uuid


def client(host, port, seconds, go):
    s = socket.create_connection((host, port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def publish():
        body = ('{"order_id":"%s","total":49.5}' % uuid.uuid4()).encode()
        s.sendall(b"POST /streams/orders HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % (host.encode(), port, len(body)) + body)
        data = b""
        while True:
            data += s.recv(65536)
            head, sep, rest = data.partition(b"\r\n\r\n")
            if sep:
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                if len(rest) >= length:
                    return head.split(b" ")[1]

    while not os.path.exists(go):
        publish()
        time.sleep(0.01)
    latencies, failed, end = [], 0, time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.monotonic()
        failed += publish() != b"200"
        latencies.append(1000 * (time.monotonic() - start))
    latencies.sort()
    n = len(latencies)
    print(f"client: {n / seconds:.0f} publishes/s, p50 {latencies[n // 2]:.2f}, p99 {latencies[int(n * .99)]:.2f}, "
          f"p99.9 {latencies[int(n * .999)]:.2f}, max {latencies[-1]:.2f} ms, {failed} not 200")


def percentiles(values):
    values = sorted(values)
    n = len(values)
    return f"p50 {values[n // 2]:.2f} p99 {values[int(n * .99)]:.2f} p99.9 {values[int(n * .999)]:.2f} " \
           f"max {values[-1]:.2f} ms"


def analyse(trace, tids, threshold):
    names = {}
    for line in open(tids):
        fields = line.split()
        if len(fields) == 2:
            names[fields[0]] = re.sub(r"-\d+$", "", fields[1])
    call = re.compile(r"^\s*([\d.]+) \(\s*([\d.]*)\s*(?:ms)?\): (\S+)/(\d+) +(?:\.\.\. \[continued\]: )?(\w+)\(")
    requests, syncs, sent = [], [], None
    for line in open(trace):
        m = call.match(line)
        if not m or not m.group(2):  # a blocking call's first line; its duration comes on the [continued] line
            continue
        start, duration, thread, name = float(m.group(1)), float(m.group(2)), m.group(3), m.group(5)
        if thread.startswith("python"):
            if name == "sendto":
                sent = start
            elif name == "recvfrom" and sent is not None:
                requests.append((sent, start + duration))
                sent = None
        elif name in ("fsync", "fdatasync"):
            syncs.append((start, duration, names.get(m.group(4), thread)))
    print(f"{len(requests)} publishes: {percentiles([e - s for s, e in requests])}")
    by_thread = collections.defaultdict(list)
    for _, duration, thread in syncs:
        by_thread[thread].append(duration)
    for thread, durations in sorted(by_thread.items()):
        print(f"  fsyncs of {thread}: {len(durations)}, {percentiles(durations)}, {sum(durations):.0f} ms in all")
    writer = "interlace-log-w"
    slow = [(s, e) for s, e in requests if e - s > threshold]
    print(f"publishes over {threshold} ms: {len(slow)}")
    causes = collections.Counter()
    for s, e in slow:
        own = max([d for t, d, th in syncs if th.startswith(writer) and t < e and t + d > s], default=0)
        others = sorted({th for t, d, th in syncs if not th.startswith(writer) and t < e and t + d > s})
        causes[("the writer's fsync over half" if own > (e - s) / 2 else "the writer's fsync under half")
               + (", beside " + ", ".join(others) if others else "")] += 1
    for cause, count in causes.most_common():
        print(f"  {count:6d} {cause}")
    others = [(t, d) for t, d, th in syncs if not th.startswith(writer)]
    alone, beside = [], []
    for t, d, th in syncs:
        if th.startswith(writer):
            (beside if any(a < t + d and a + b > t for a, b in others) else alone).append(d)
    for label, durations in (("alone", alone), ("beside another thread's", beside)):
        if durations:
            print(f"the writer's fsyncs {label}: {len(durations)}, {percentiles(durations)}")


if __name__ == "__main__":
    if sys.argv[1] == "client":
        client(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
    else:
        analyse(sys.argv[2], sys.argv[3], float(sys.argv[4]) if len(sys.argv) > 4 else 5.0)
