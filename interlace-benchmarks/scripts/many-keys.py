#!/usr/bin/env python3
"""Sends batches of new random keys to a running server until it holds N of them, and prints the rate as it goes.

The target it measures (docs/performance.md, "A large deduplication window"): with a small heap, e.g.
`java -Xmx256m -jar examples/target/interlace-examples.jar serve`, every key is accepted up to 30 million and the rate
at the end is still near the rate at the start, because the heap keeps only the recent keys. Answers 429 and 503 are
retried after their Retry-After (the flusher decides the pace); anything else stops the run.

usage: interlace-benchmarks/scripts/many-keys.py URL KEYS [--clients 4] [--batch 1000] [--stream orders]
"""
import argparse
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("keys", type=int)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--stream", default="orders")
    args = parser.parse_args()
    target = urllib.parse.urlparse(args.url)
    lock = threading.Lock()
    state = {"accepted": 0, "deduplicated": 0, "refused": 0, "sent": 0, "failed": None}
    started = time.monotonic()

    def client(number):
        connection = http.client.HTTPConnection(target.hostname, target.port, timeout=120)
        prefix = os.urandom(6).hex() + "-" + str(number) + "-"
        sequence = 0
        while True:
            with lock:
                if state["sent"] >= args.keys or state["failed"]:
                    return
                state["sent"] += args.batch
            lines = []
            for _ in range(args.batch):
                sequence += 1
                lines.append('{"order_id":"%s%d","total":1.5}' % (prefix, sequence))
            body = "\n".join(lines).encode()
            while True:
                connection.request("POST", "/streams/" + args.stream, body,
                                   {"content-type": "application/x-ndjson"})
                response = connection.getresponse()
                answer = response.read()
                if response.status == 200:
                    result = json.loads(answer)
                    with lock:
                        state["accepted"] += result["accepted"]
                        state["deduplicated"] += result["deduplicated"]
                    break
                if response.status in (429, 503):
                    with lock:
                        state["refused"] += 1
                    time.sleep(float(response.getheader("Retry-After", "1")))
                    continue
                with lock:
                    state["failed"] = "%d %s" % (response.status, answer[:300])
                return

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(args.clients)]
    for thread in threads:
        thread.start()
    last_time, last_accepted = started, 0
    while any(thread.is_alive() for thread in threads):
        time.sleep(10)
        now = time.monotonic()
        with lock:
            accepted = state["accepted"]
        print("%7.0f s  %12d accepted  %9.0f events/s in the last 10 s  %d refused and retried so far" % (
            now - started, accepted, (accepted - last_accepted) / (now - last_time), state["refused"]), flush=True)
        last_time, last_accepted = now, accepted
    elapsed = time.monotonic() - started
    print("done: %d accepted, %d deduplicated, %d refusals retried, in %.0f s (%.0f events/s)%s" % (
        state["accepted"], state["deduplicated"], state["refused"], elapsed, state["accepted"] / elapsed,
        "; FAILED: " + state["failed"] if state["failed"] else ""))
    sys.exit(1 if state["failed"] or state["deduplicated"] else 0)


if __name__ == "__main__":
    main()
