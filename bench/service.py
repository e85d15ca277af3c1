"""Benchmark the matching service (`scrapy serve`) with real HTTP clients, against `scrapy match -i` and the pure cascade.

    .venv/bin/python -m bench.service [--dois 2000] [--seed 3] [--clients 1,16,64] [--seconds 10]
                                      [--latency-ms 200] [--pages 1500] [--cores 0.3] [--rounds 3] [--keep DIR]
                                      [--quick]

Generates a world, crawls it once (sandbox at 0 ms) for the artifacts, starts a redis-server and serves the world
again at --latency-ms. Each service runs at the defaults (its own caches, no LANDING_MATCH_REDIS) but where a step
shares: the last line of 1, and 4 and 6. Then, in one run:

1. string-recoverable inputs (DOI literals, doi.org URLs, landing URLs that hold their DOI on a domain the artifact
   vouches for; `fetch=none`): a warm-up pass (the Handle API answers cached), then GET /match at each --clients for
   --seconds (answers/s, p50, p99 per request) driven by wrk, and POST /match in batches of 100 at the largest
   --clients (bench/service_client.py); then the same at the largest --clients with every input one never asked
   before (no result cached, the questions' answers cached): a stream of new links; and those by GET again against
   an instance that keeps its results in Redis too (LANDING_MATCH_REDIS). --quick stops there;
2. the same inputs through the pure cascade called in a loop in this process (landing.core.matching.cascade.drive, every
   registry answer from a table: the physical limit), and through `scrapy match -i --no-fetch`, as ratios;
3. page inputs (landing URLs without their DOI: the page must be fetched) at the largest --clients, each POSTing
   PAGE_BATCH lines at a time: answers/s; then the same inputs again: the requests that second pass made (the
   cache's hits); the first pass's answers/s against what the politeness limits allow for exactly the requests the
   sandbox logged (bench.limits's model), at the sandbox's latency as a lone client measures it (--latency-ms plus
   the sandbox's own time);
4. two instances sharing the redis-server against one, each held to --cores CPUs (bench/cgroups.py), the string
   inputs by GET at the largest --clients (wrk) split between them, one then two, --rounds times: the median ratio;
5. a new artifact version written while clients ask: failed requests, and the versions the answers named;
6. the string inputs added to a Redis Stream that one `scrapy serve --no-http` consumes: answers/s;
7. --flood connections from one client address (127.0.0.1), half idle, half sending an unfinished head of 12,000
   bytes, while a second client (127.0.0.2) asks /healthz and GETs: their statuses and p99; then, once the
   flood's connections close, the service's RSS after --settle seconds against its RSS before the flood.
   (--flood-only: alone)
8. (--fairness-only: alone) new string inputs by GET, alone and beside 128 slow pages (bench/service_fairness.py).

GETs are driven by wrk (Debian's package `wrk`: `apt-get install wrk`), a load generator in C with the Lua script
bench/service_get.lua: aiohttp's client in Python cost more CPU a request than the service, on the same 2 cores.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from bench import service_flood
from bench.limits import page_limits
from bench.service_drivers import WRK, Service, clients, logged, show, stream_rate, write_inputs, wrk_get, wrk_paths
from bench.service_fairness import slow_pages, step
from landing import settings as defaults
from landing import tuning
from landing.core.matching.cascade import Matching, Setup, drive
from landing.core.matching.decisions import Decisions
from landing.core.matching.questions import Exists
from landing.core.pids.doi import RESOLVER_HOSTS, resolver_path
from landing_dev import runner
from landing_dev.sandbox.generator import generate

BATCH = 100
PAGE_BATCH = 8


def inputs_of(world: Path, decisions: Decisions, pages: int) -> tuple[list[str], list[str], set[str]]:
    """(string-recoverable inputs, page inputs, registered DOIs) of a world's truth."""
    strings, page_inputs, registered = [], [], set()
    for row in map(json.loads, open(world / "truth.jsonl", encoding="utf-8")):
        doi, final = row["doi"], row.get("final_url")
        registered.add(doi.lower())
        strings += [doi, f"https://doi.org/{resolver_path(doi)}"]
        if final:
            host = urlsplit(final).hostname or ""
            if doi.lower() in final.lower() and any(host.endswith(d) for d in decisions.domains):
                strings.append(final)
            elif doi.lower() not in final.lower() and len(page_inputs) < pages:
                page_inputs.append(final)
    return strings, page_inputs, registered


def pure_rate(strings: list[str], decisions: Decisions, registered: set[str], cfg) -> float:
    """Inputs a second through the cascade alone, every Handle API answer from the table."""
    setup = Setup(
        decisions=decisions,
        resolver_hosts=frozenset(RESOLVER_HOSTS),
        fetch=False,
        pieces=tuning.MATCH_PIECES,
        candidates=tuning.MATCH_CANDIDATES,
        text_candidates=tuning.MATCH_TEXT_CANDIDATES,
        requests=cfg.getint("LANDING_MATCH_REQUESTS"),
        evidence=tuning.MATCH_EVIDENCE,
    )

    def ask(question):
        if isinstance(question, Exists):
            return question.doi.lower() in registered, 0
        raise ValueError(f"the string inputs ask only Exists, not {question!r}")

    best = 0.0
    for _ in range(3):
        began = time.perf_counter()
        for text in strings:
            json.dumps(drive(Matching(text, setup), ask).to_json())
        best = max(best, len(strings) / (time.perf_counter() - began))
    return best


def main():
    from scrapy.settings import Settings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dois", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--clients", default="1,16,64")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument("--pages", type=int, default=1500, help="page inputs (landing URLs without their DOI)")
    parser.add_argument("--cores", type=float, default=0.3, help="CPUs each instance may use in the 1-vs-2 step")
    parser.add_argument("--rounds", type=int, default=3, help="one-then-two rounds of the 1-vs-2 step (3)")
    parser.add_argument("--flood", type=int, default=2000, help="connections the flood step opens from one client")
    parser.add_argument("--settle", type=float, default=60, help="seconds after the flood before RSS is read (60)")
    parser.add_argument("--keep", help="keep the world, stores and logs here")
    parser.add_argument("--fairness-only", action="store_true", help="step 8 alone")
    parser.add_argument("--flood-only", action="store_true", help="step 7 alone")
    parser.add_argument("--quick", action="store_true", help="step 1 only: new inputs against repeated ones")
    args = parser.parse_args()
    if WRK is None:
        sys.exit("bench.service drives GET /match with wrk, a load generator in C: install it (apt-get install wrk)")
    counts = [int(n) for n in args.clients.split(",")]
    most = max(counts)
    settings = Settings()
    settings.setmodule(defaults)
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(args.keep or scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        world, stores = tmp / "world", runner.Stores.under(tmp / "stores")
        if not (world / "truth.jsonl").exists():
            print(f"generating a {args.dois:,}-DOI world (seed {args.seed}) ...", flush=True)
            generate(world, args.dois, seed=args.seed)
        artifact = stores.artifacts / "domain-decision-structure.json"
        if not artifact.exists():
            with runner.SandboxProcess(world) as quick:
                code, seconds, log = runner.crawl(quick.proxy, stores, tmp / "crawl.log", {"LOG_LEVEL": "WARNING"})
            if code != 0:
                sys.exit(f"the sampler crawl failed:\n{log[-2000:]}")
            print(f"sampler crawl for the artifacts: {seconds:.0f} s", flush=True)
        decisions = Decisions.read(artifact.read_text())
        strings, pages, registered = inputs_of(world, decisions, args.pages)
        # A stream of links mixes sites; the truth lists each site's DOIs together, which would queue every client
        # behind one host's politeness at a time.
        random.Random(args.seed).shuffle(pages)
        string_file = write_inputs(tmp / "strings.jsonl", strings)
        page_file = write_inputs(tmp / "pages.jsonl", pages)
        print(f"{len(strings):,} string inputs, {len(pages):,} page inputs; artifact {decisions.version}", flush=True)

        slow = slow_pages(world)
        redis_process, redis_url = runner.redis_server(tmp)
        sandbox_log = tmp / "sandbox.log"
        sandbox = runner.SandboxProcess(world, args.latency_ms, log=sandbox_log, requests=True)
        # The real web's pace, as bench/fullrun.py sets it: a sandbox has none of its own (landing.crawl.endpoints).
        serve_settings = {
            **stores.as_settings(),
            "LANDING_SANDBOX": sandbox.proxy,
            "LANDING_MATCH_REDIS": redis_url,
            "LANDING_RESOLVER_RATE": defaults.LANDING_RESOLVER_RATE,
            "AUTOTHROTTLE_START_DELAY": defaults.AUTOTHROTTLE_START_DELAY,
            "TELNETCONSOLE_ENABLED": False,
        }
        # What one process runs with at the defaults: its own caches, no Redis. Only the steps that share (4, 6) set it.
        alone = {**serve_settings, "LANDING_MATCH_REDIS": ""}
        services = []
        try:
            warming = "--requests", len(strings) // BATCH + 1, "--batch", BATCH, "--fetch", "none"  # every input once
            if args.fairness_only:
                return step(sys.modules[__name__], tmp, alone, strings, string_file, most, args.seconds, slow)
            if args.flood_only:
                return flood_step(tmp, alone, strings, string_file, most, warming, args, services)
            one = Service("one", tmp, alone)
            services.append(one)
            print("\n1. string-recoverable inputs (fetch=none), one process", flush=True)
            warm = clients([one.url], string_file, most, *warming)
            show(f"warm-up: POST x{BATCH}, {most} clients", warm)
            found, paths = {}, wrk_paths(tmp / "paths.txt", strings)
            for count in counts:
                found[count] = wrk_get([one.url], paths, count, args.seconds)
                show(f"GET, {count} client{'s' if count > 1 else ''}", found[count])
            batched = clients(
                [one.url], string_file, most, "--seconds", args.seconds, "--batch", BATCH, "--fetch", "none"
            )
            show(f"POST x{BATCH}, {most} clients", batched)
            fresh = "--seconds", args.seconds, "--fetch", "none", "--unique"
            uncached = wrk_get([one.url], paths, most, args.seconds, unique=1)  # each input new: no result cached
            show(f"GET, {most} clients, no result cached", uncached)
            uncached_batched = clients([one.url], string_file, most, *fresh, 2, "--batch", BATCH)
            show(f"POST x{BATCH}, {most} clients, none cached", uncached_batched)
            shared = Service("shared", tmp, serve_settings)
            services.append(shared)
            clients([shared.url], string_file, most, *warming)
            show(
                f"GET, {most} clients, no result cached, LANDING_MATCH_REDIS",
                wrk_get([shared.url], paths, most, args.seconds, unique=2),
            )
            shared.close()
            services.remove(shared)
            if args.quick:
                return

            print("\n2. the same inputs elsewhere", flush=True)
            pure = pure_rate(strings, decisions, registered, settings)
            print(f"  pure cascade in a loop (one process)  {pure:9,.0f} answers/s", flush=True)
            lines = tmp / "strings.txt"
            lines.write_text("".join(text + "\n" for text in strings))
            command = runner.scrapy_command(
                "match", "-i", lines, "--no-fetch", settings={**serve_settings, "LANDING_MATCH_REDIS": ""}
            )
            began = time.monotonic()
            done = subprocess.run(command, cwd=runner.PROJECT, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"scrapy match failed:\n{done.stderr[-2000:]}")
            match_rate = len(strings) / (time.monotonic() - began)
            best = max(max(f["answers_per_s"] for f in found.values()), batched["answers_per_s"])
            print(f"  scrapy match -i --no-fetch            {match_rate:9,.0f} answers/s (start-up included)")
            print(
                f"  the service against the pure cascade: GET at {most} clients {found[most]['answers_per_s'] / pure:.0%}"
                f" (no result cached {uncached['answers_per_s'] / pure:.0%}), POST x{BATCH} "
                f"{batched['answers_per_s'] / pure:.0%} (none cached {uncached_batched['answers_per_s'] / pure:.0%}); "
                f"best {best / match_rate:.1f} x scrapy match -i",
                flush=True,
            )

            print(f"\n3. page inputs at {args.latency_ms:g} ms, {most} clients, POSTs of {PAGE_BATCH}", flush=True)
            before = len(logged(sandbox_log))
            # Each client POSTs PAGE_BATCH lines: a page's answer takes seconds of polite waits, and one input in
            # flight per client would leave the hosts' limits unused (LANDING_SERVE_CLIENT_CONCURRENCY caps clients).
            paged = "--requests", -(-len(pages) // PAGE_BATCH), "--batch", PAGE_BATCH, "--fetch", "all"
            first = clients([one.url], page_file, most, *paged)
            asked = logged(sandbox_log)[before:]
            show("first pass", first)
            before = len(logged(sandbox_log))
            second = clients([one.url], page_file, most, *paged)
            show("second pass", second)
            print(f"  requests the second pass made: {len(logged(sandbox_log)) - before}", flush=True)
            page_limits(asked, len(pages), first["answers_per_s"], sandbox.proxy, args.latency_ms / 1000, settings)
            one.close()
            services.remove(one)

            print(f"\n4. one instance against two sharing Redis, each held to {args.cores:g} CPUs", flush=True)
            capped = Service("capped-1", tmp, serve_settings, args.cores)
            other = Service("capped-2", tmp, serve_settings, args.cores)
            services += [capped, other]
            for service in (capped, other):
                clients([service.url], string_file, most, *warming)  # each process's own result cache warmed
            # A capped instance's rate moves by a fifth from one measurement to the next: one then two, alternated,
            # and the median of the rounds' ratios.
            ratios = []
            for round_ in range(1, args.rounds + 1):
                single = wrk_get([capped.url], paths, most, args.seconds)
                show(f"one instance, round {round_}", single)
                pair = wrk_get([capped.url, other.url], paths, most, args.seconds)
                show(f"two instances, round {round_}", pair)
                ratios.append(pair["answers_per_s"] / single["answers_per_s"])
            shown = ", ".join(f"{r:.2f}" for r in ratios)
            print(f"  two against one: {statistics.median(ratios):.2f} x (median of {shown})", flush=True)

            print("\n5. a new artifact version while clients ask", flush=True)
            asking = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "bench.service_client",
                    capped.url,
                    str(string_file),
                    "--clients",
                    "16",
                    "--seconds",
                    str(max(args.seconds, 20)),
                    "--fetch",
                    "none",
                    "--check",
                ],
                cwd=runner.PROJECT,
                stdout=subprocess.PIPE,
                text=True,
            )
            time.sleep(args.seconds / 2)
            changed = json.loads(artifact.read_text())
            changed["prefixes"] = sorted(set(changed["prefixes"]) | {f"10.9{time.time_ns() % 10**6:06d}"})  # a new text
            staged = artifact.with_suffix(".new")
            staged.write_text(json.dumps(changed, indent=2, sort_keys=True) + "\n")
            os.replace(staged, artifact)
            out, _ = asking.communicate()
            during = json.loads(out.splitlines()[-1])
            show("while the artifact changed", during)
            print(f"  versions named: {during['versions']}", flush=True)

            print("\n6. the same string inputs through a Redis Stream, one consumer", flush=True)
            streaming = {**serve_settings, "LANDING_STREAM_IN": "bench:in", "LANDING_STREAM_OUT": "bench:out"}
            consumer = Service("stream", tmp, streaming, http=False)
            services.append(consumer)
            print(f"  {stream_rate(redis_url, strings):9,.0f} answers/s (entries added, their results all written)")

            flood_step(tmp, alone, strings, string_file, most, warming, args, services)
            step(sys.modules[__name__], tmp, alone, strings, string_file, most, args.seconds, slow)
        finally:
            for service in services:
                service.close()
            sandbox.close()
            runner.stop(redis_process, 10)


def flood_step(
    tmp, settings: dict, strings: list, string_file, most: int, warming: tuple, args, services: list
) -> None:
    """Step 7: the flood of one client's connections beside a second client, and the RSS once they close."""
    print(f"\n7. {args.flood:,} idle or half-open connections from one client, a second one asking", flush=True)
    flooded = Service("flooded", tmp, settings)
    services.append(flooded)
    clients([flooded.url], string_file, most, *warming)  # its result cache warm, its memory grown as it would
    found = service_flood.flood(flooded.url, flooded.process.process.pid, strings[:200], args.flood, args.settle)
    service_flood.show_flood(found, args.settle)


if __name__ == "__main__":
    main()
