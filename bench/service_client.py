"""Benchmark helper, not a benchmark: drive a matching service with concurrent HTTP clients, print one JSON line.

    .venv/bin/python -m bench.service_client URL[,URL...] INPUTS.jsonl --clients 64 [--requests N | --seconds S]
                                             [--batch 1] [--fetch known] [--check] [--unique RUN]

Each of --clients keeps one request in flight on a keep-alive connection (aiohttp's client, in this process of its
own, so its CPU is not the bench's): with --batch 1 a GET /match?q=INPUT, else a POST /match of --batch JSON lines,
the inputs taken in turn from INPUTS.jsonl (one JSON string a line) and the URLs in turn. Prints {"answers",
"requests", "seconds", "answers_per_s", "p50_ms", "p99_ms", "errors", "statuses", "versions"}: latency is per request
(a whole batch with --batch > 1), `versions` counts the artifact versions the answers named.
"""

import argparse
import asyncio
import itertools
import json
import math
import time
from collections import Counter

import aiohttp


def percentile(values: list[float], share: float) -> float:
    """The value below which `share` of the sorted values fall (nearest rank).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5)
    2.0
    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.99)
    4.0
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def version_of(answer: dict) -> str | None:
    """The artifact version an answer names (its "artifact" evidence step), if it names one."""
    for attempt in answer.get("evidence") or ():
        if attempt.get("step") == "artifact":
            return attempt.get("outcome")
    return None


def _text(inputs: list[str], n: int, unique: int) -> str:
    """The n-th input; with `unique` (a run's own number, above 0), each round of the inputs padded with leading
    whitespace spelling the run and the round in binary, which the matcher strips: the same questions (cached), a
    text no run asked before (no cached result).

    >>> _text(["x"], 2, 0), _text(["x"], 2, 1)
    ('x', '\\t\\n\\t  x')
    """
    text = inputs[n % len(inputs)]
    if not unique:
        return text
    bits = [" \t"[int(bit)] for bit in f"{unique:b}"] + ["\n"] + [" \t"[int(bit)] for bit in f"{n // len(inputs):b}"]
    return "".join(bits) + " " + text


async def drive(urls, inputs, clients, requests, seconds, batch, fetch, check, unique=0):
    """Run the clients; the figures."""
    latencies, statuses, versions = [], Counter(), Counter()
    answers, made = 0, 0
    turns = itertools.count()
    deadline = time.monotonic() + seconds if seconds else None
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=600)) as session:

        async def client(number):
            nonlocal answers, made
            url = urls[number % len(urls)] + "/match"
            while True:
                turn = next(turns)
                if (requests and turn >= requests) or (deadline and time.monotonic() >= deadline):
                    return
                start = turn * batch
                chunk = [_text(inputs, start + i, unique) for i in range(batch)]
                began = time.perf_counter()
                try:
                    if batch == 1:
                        response = await session.get(url, params={"q": chunk[0], "fetch": fetch})
                    else:
                        body = "".join(json.dumps({"q": q, "fetch": fetch}) + "\n" for q in chunk)
                        response = await session.post(url, data=body.encode())
                    async with response:
                        text = await response.text()
                        status = response.status
                except aiohttp.ClientError as error:
                    statuses[type(error).__name__] += 1
                    continue
                latencies.append(time.perf_counter() - began)
                statuses[status] += 1
                made += 1
                if status == 200:
                    lines = text.splitlines() if batch > 1 else [text]
                    answers += len(lines)
                    if check:
                        for line in lines:
                            versions[version_of(json.loads(line)) or "none"] += 1

        started = time.monotonic()
        await asyncio.gather(*(client(n) for n in range(clients)))
        elapsed = time.monotonic() - started
    return {
        "answers": answers,
        "requests": made,
        "seconds": round(elapsed, 3),
        "answers_per_s": round(answers / elapsed, 1) if elapsed else 0.0,
        "p50_ms": round(percentile(latencies, 0.5) * 1000, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "errors": sum(n for s, n in statuses.items() if s != 200),
        "statuses": {str(s): n for s, n in statuses.items()},
        "versions": dict(versions),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("urls", help="the service's base URL, or several separated by commas (clients alternate)")
    parser.add_argument("inputs", help="a file of JSON strings, one a line")
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--requests", type=int, default=0, help="requests in all (default: --seconds)")
    parser.add_argument("--seconds", type=float, default=0)
    parser.add_argument("--batch", type=int, default=1, help="inputs a request: 1 is GET, more is a POST")
    parser.add_argument("--fetch", default="known")
    parser.add_argument("--check", action="store_true", help="parse every answer and count its artifact version")
    parser.add_argument(
        "--unique", type=int, default=0, metavar="RUN", help="texts no other RUN number asks (no cached result)"
    )
    args = parser.parse_args()
    if not args.requests and not args.seconds:
        parser.error("give --requests or --seconds")
    with open(args.inputs, encoding="utf-8") as lines:
        inputs = [json.loads(line) for line in lines if line.strip()]
    found = asyncio.run(
        drive(
            args.urls.split(","), inputs, args.clients, args.requests, args.seconds, args.batch, args.fetch, args.check
        )
    )
    print(json.dumps(found), flush=True)


if __name__ == "__main__":
    main()
