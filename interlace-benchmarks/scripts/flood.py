#!/usr/bin/env python3
"""Floods a running server with large requests at once and watches its liveness probe meanwhile.

The target it measures (docs/performance.md, "A large deduplication window"): on a small heap, e.g.
`java -Xmx512m -jar examples/target/interlace-examples.jar serve`, 150 concurrent 9 MB publishes and then 800
concurrent readers of one 9 MB event are each answered (200, or 503 with Retry-After), the process stays up, and
`GET /health/live` answers within a second throughout. Prints the answers by status, the slowest liveness answer,
and whether every acknowledged publish is readable afterwards.

usage: interlace-benchmarks/scripts/flood.py URL [--publishers 150] [--readers 800] [--bytes 9000000] [--stream orders]
"""
import argparse
import http.client
import json
import multiprocessing
import os
import threading
import time
import urllib.parse
from collections import Counter


def connect(target, timeout=120):
    return http.client.HTTPConnection(target.hostname, target.port, timeout=timeout)


def big_event(size, key):
    padding = "x" * max(0, size - 100)
    return json.dumps({"order_id": key, "total": 1.5, "meta": {"padding": padding}}).encode()


def run_wave(target, count, request):
    """Runs count requests at once (a thread each, released together); returns their (status, retry-after) pairs."""
    answers = []
    lock = threading.Lock()
    start = threading.Event()

    def worker(number):
        start.wait()
        try:
            outcome = request(number)
        except Exception as error:  # a reset or a timeout: the kind of answer the target rules out
            outcome = ("error: " + type(error).__name__, None)
        with lock:
            answers.append(outcome)

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    start.set()
    for thread in threads:
        thread.join()
    return answers


def probe_liveness(target, stop, results):
    """Asks /health/live every 100 ms on a new connection until stop is set; a process of its own, so that the
    flooding threads' interpreter lock never delays it. Puts (probes, slowest seconds, failures) in results."""
    slowest, failures, asked = 0.0, 0, 0
    while not stop.is_set():
        began = time.monotonic()
        try:
            connection = connect(target, timeout=10)
            connection.request("GET", "/health/live")
            ok = connection.getresponse().status == 200
            connection.close()
        except Exception:
            ok = False
        slowest = max(slowest, time.monotonic() - began)
        asked += 1
        failures += 0 if ok else 1
        time.sleep(0.1)
    results.put((asked, slowest, failures))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--publishers", type=int, default=150)
    parser.add_argument("--readers", type=int, default=800)
    parser.add_argument("--bytes", type=int, default=9_000_000)
    parser.add_argument("--stream", default="orders")
    args = parser.parse_args()
    target = urllib.parse.urlparse(args.url)
    run = os.urandom(4).hex()
    stop, results = multiprocessing.Event(), multiprocessing.Queue()
    liveness = multiprocessing.Process(target=probe_liveness, args=(target, stop, results), daemon=True)
    liveness.start()

    acknowledged = {}
    lock = threading.Lock()

    def publish(number):
        key = "flood-%s-%d" % (run, number)
        connection = connect(target)
        connection.request("POST", "/streams/" + args.stream, big_event(args.bytes, key),
                           {"content-type": "application/json"})
        response = connection.getresponse()
        body = response.read()
        if response.status == 200:
            with lock:
                acknowledged[key] = json.loads(body)["last_offset"]
        return response.status, response.getheader("Retry-After")

    began = time.monotonic()
    published = run_wave(target, args.publishers, publish)
    publish_seconds = time.monotonic() - began
    first_offset = min(acknowledged.values()) if acknowledged else 1

    def read(number):
        connection = connect(target)
        connection.request("GET", "/streams/%s/events?after=%d&limit=1" % (args.stream, first_offset - 1))
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("Retry-After")

    began = time.monotonic()
    read_answers = run_wave(target, args.readers, read)
    read_seconds = time.monotonic() - began
    stop.set()
    asked, slowest, failures = results.get()
    liveness.join()

    def summary(answers):
        statuses = Counter(status for status, _ in answers)
        without_retry_after = sum(1 for status, retry in answers if status == 503 and retry is None)
        return dict(statuses), without_retry_after

    # Every acknowledged publish is stored: read each back by its offset.
    missing = 0
    connection = connect(target)
    for key, offset in acknowledged.items():
        connection.request("GET", "/streams/%s/events?after=%d&limit=1" % (args.stream, offset - 1))
        response = connection.getresponse()
        events = json.loads(response.read()).get("events", [])
        if not events or events[0].get("event", {}).get("order_id") != key:
            missing += 1

    print("publishes: %d at once of %d bytes in %.1f s: %s (503 without Retry-After: %d)" % (
        args.publishers, args.bytes, publish_seconds, *summary(published)))
    print("readers: %d at once of one such event in %.1f s: %s (503 without Retry-After: %d)" % (
        args.readers, read_seconds, *summary(read_answers)))
    print("liveness: %d probes, slowest %.3f s, %d failed" % (asked, slowest, failures))
    print("acknowledged publishes read back: %d of %d (%d missing)" % (len(acknowledged) - missing,
                                                                       len(acknowledged), missing))


if __name__ == "__main__":
    main()
