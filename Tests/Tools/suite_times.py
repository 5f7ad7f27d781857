#!/usr/bin/env python3
"""The time each test suite took in a `swift test` run, from Swift Testing's event stream.

    suite_times.py EVENTS.jsonl [--budget SECONDS] [--top N] [--expect-suites FILE]

EVENTS.jsonl is what `swift test --event-stream-output-path EVENTS.jsonl --event-stream-version 0`
wrote. A suite's time is the sum of its tests' own times (each test from its `testStarted` to its
`testEnded` event; a parameterised test counts once, from its first case to its last), so it is
the same measure whether the suites ran one after the other or side by side. Prints the N slowest
suites (default 10) and the run's totals, and exits 1 when any suite took more than --budget
seconds (default 120; a budget on what the suite costs everyone who runs `make test`, not a timed
test of Darkroom's speed, which `make bench` measures). --expect-suites FILE names suites (one per
line, `#` comments) that must have run: a name that matches no suite fails too, so a list that
selects suites cannot silently go stale.
"""
import argparse
import json
import sys


def suite_of(test_id):
    """`Module.Suite/test()/File.swift:1:2` -> `Module.Suite`; nested suites keep their path."""
    parts = test_id.split("/")
    # The function and its source location are the last two parts of a test's ID.
    return "/".join(parts[:-2]) if len(parts) >= 3 else parts[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("events")
    ap.add_argument("--budget", type=float, default=120.0)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--expect-suites")
    args = ap.parse_args()

    started, spans, failed = {}, {}, set()
    try:
        lines = open(args.events, encoding="utf-8").read().splitlines()
    except OSError as e:
        print(f"suite_times: {args.events}: {e.strerror}", file=sys.stderr)
        return 2
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("kind") != "event":
            continue
        ev = record["payload"]
        kind, test_id = ev.get("kind"), ev.get("testID")
        if not test_id or "/" not in test_id:
            continue  # suite-level and run-level events: suites are measured through their tests
        t = ev["instant"]["absolute"]
        if kind == "testStarted":
            started.setdefault(test_id, t)
        elif kind == "testEnded" and test_id in started:
            spans[test_id] = t - started[test_id]
        elif kind == "issueRecorded":
            failed.add(test_id)

    suites = {}
    for test_id, seconds in spans.items():
        s = suites.setdefault(suite_of(test_id), [0.0, 0])
        s[0] += seconds
        s[1] += 1
    if not suites:
        print(f"suite_times: {args.events}: no test ran", file=sys.stderr)
        return 1

    ranked = sorted(suites.items(), key=lambda kv: -kv[1][0])
    total = sum(v[0] for v in suites.values())
    print(f"\nSlowest suites ({len(suites)} suites, {len(spans)} tests, {total:.1f} s of test time; "
          f"budget {args.budget:.0f} s per suite):")
    print(f"  {'seconds':>8}  {'tests':>5}  suite")
    for name, (seconds, count) in ranked[: args.top]:
        mark = "  << over budget" if seconds > args.budget else ""
        print(f"  {seconds:8.1f}  {count:5d}  {name}{mark}")

    sys.stdout.flush()
    status = 0
    over = [(n, v[0]) for n, v in ranked if v[0] > args.budget]
    for name, seconds in over:
        print(f"suite_times: {name} took {seconds:.1f} s, over the {args.budget:.0f} s budget per suite "
              f"(split it, shrink its images, or move it to make bench)", file=sys.stderr)
        status = 1
    if args.expect_suites:
        names = [l.split("#")[0].strip() for l in open(args.expect_suites, encoding="utf-8")]
        short = {n.split(".")[-1].split("/")[0] for n in suites} | set(suites)
        for n in filter(None, names):
            if n not in short:
                print(f"suite_times: {args.expect_suites}: suite {n} did not run (renamed or removed?)",
                      file=sys.stderr)
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
