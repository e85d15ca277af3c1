"""What one new input costs the service, the socket aside: instructions (or CPU) an answer of GET /match, this code
against another revision's, in the same run.

    .venv/bin/python -m bench.answer_cost DIR [--against REV] [--inputs 2000] [--rounds 2] [--cpu]

DIR is what `bench.service --keep DIR` left (its world, artifacts and inputs). In a child process for each code (this
checkout, and REV's in a git worktree of its own), a `Service` and its `Matcher` are built as `scrapy serve` builds
them at the defaults, every Handle API answer the inputs ask already held (as after the service's warm-up), and one
`FastConnection` is fed raw GET heads, each input padded with whitespace of its own as bench/service_get.lua pads it
(never asked before: no result cached), until each answer is written. Printed per code: instructions a new input
under valgrind (cachegrind, no cache simulation: the difference between a run of --inputs and one of a quarter of
them, so start-up cancels out), or with --cpu the child's CPU seconds an input (noisy: the machine's load moves it).
Rounds alternate A B A B; the medians are printed.

Instruction counts do not move with the machine's load, which made the service's answers a second differ by a third
between runs of one code (bench/README.md "service.py"): a change's cost is read here, its effect on the rate there.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def measure(keep: Path, inputs: int) -> float:
    """CPU seconds an input: the answers of `inputs` new inputs through one fast connection (run in the child)."""
    import asyncio
    import gc
    import logging

    import uvloop
    from scrapy.settings import Settings

    import landing.settings as defaults
    from landing import config
    from landing.core.matching.cascade import Matching, drive, fetching
    from landing.core.matching.questions import Exists
    from landing.match.answer_cache import answers_of
    from landing.match.answering import Matcher, base_setup
    from landing.match.loaded_artifact import Held, load_artifact
    from landing.match.lookups import Lookups
    from landing.serve.admission import collect_rarely
    from landing.serve.fast_path import FastConnection
    from landing.serve.http import Service

    settings = Settings()
    settings.setmodule(defaults)
    cfg = config.of_settings(settings)
    decisions, _ = load_artifact(keep / "stores" / "artifacts" / "domain-decision-structure.json", True)
    registered = {json.loads(line)["doi"].lower() for line in (keep / "world" / "dois.jsonl").open()}
    texts = [json.loads(line) for line in (keep / "strings.jsonl").open()]
    paths = (keep / "paths.txt").read_text().split()
    logger = logging.getLogger("bench.answer_cost")

    class Transport:
        def __init__(self):
            self.written = None

        def get_extra_info(self, name):
            return ("127.0.0.1", 40000)

        def write(self, data):
            self.written.set_result(data)

        def is_closing(self):
            return False

        def close(self):
            pass

    async def run() -> float:
        answers = answers_of(cfg)
        lookups = Lookups(None, cfg.doi_resolver, cfg.crossref_api, cfg.datacite_api, answers=answers)
        setup = fetching(base_setup(cfg), "none")
        setup = type(setup)(**{**setup.__dict__, "decisions": decisions})
        asked = set()

        def ask(question):
            asked.add(question)
            return question.doi in registered, 1

        for text in texts:  # the questions the inputs ask, answered as the Handle API answers them
            drive(Matching(text, setup), ask)
        for question in asked:
            if isinstance(question, Exists):
                held = {"handle": question.doi} if question.doi in registered else None
                await answers.put((lookups.scope, "handle", question.doi.lower()), held)
        holder = Held(decisions)
        service = Service(holder, cfg, logger)
        matcher = Matcher(
            holder,
            base_setup(cfg),
            lookups.answer,
            answers,
            deadline=cfg.match_deadline,
            concurrency=cfg.match_concurrency,
            logger=logger,
            cancel=lookups.cancel,
            held=lookups.held,
        )
        service.ready(matcher)
        now = [service.fast_match_now] if hasattr(service, "fast_match_now") else []
        connection = FastConnection(service.fast_match, None, set(), 75.0, None, *now)
        transport = Transport()
        connection.connection_made(transport)
        loop = asyncio.get_running_loop()

        def head(n: int) -> bytes:
            path = paths[n % len(paths)]
            pad = "".join("%09" if bit == "1" else "%20" for bit in f"{n:b}")
            return f"GET /match?q={pad}{path[len('/match?q=') :]} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()

        async def answer(heads) -> None:
            for one in heads:
                transport.written = loop.create_future()
                connection.data_received(one)
                status = (await transport.written).split(b" ", 2)[1]
                if status != b"200":
                    sys.exit(f"answered {status.decode()}: {one[:200]!r}")

        await answer([head(n) for n in range(len(paths))])  # warm: every code path once
        heads = [head(n) for n in range(len(paths), len(paths) + inputs)]
        began = time.process_time()
        await answer(heads)
        return (time.process_time() - began) / inputs

    collect_rarely()
    gc.collect()
    return uvloop.run(run())


def _child(code: Path, keep: Path, inputs: int, valgrind: bool) -> float:
    """Instructions an input (valgrind), or CPU seconds an input, of the code at `code`."""
    # This file's `measure`, importing `landing` from `code` (another revision need not have this file).
    command = [str(code / ".venv" / "bin" / "python"), __file__, str(keep), "--child", str(inputs)]
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONHASHSEED": "0"}
    if not valgrind:
        done = subprocess.run(command, cwd=code, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"the child failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        return float(done.stdout.split()[-1])
    counts = []
    for n in (inputs // 4, inputs):
        grind = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
        done = subprocess.run(grind + command[:-1] + [str(n)], cwd=code, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"the child failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        refs = next(line for line in done.stderr.splitlines() if "I   refs:" in line or "I refs:" in line)
        counts.append(int(refs.split()[-1].replace(",", "")))
    return (counts[1] - counts[0]) / (inputs - inputs // 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("keep", type=Path, help="what bench.service --keep DIR left")
    parser.add_argument("--against", help="a revision to compare with (a git worktree of it, sharing .venv)")
    parser.add_argument("--inputs", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cpu", action="store_true", help="CPU seconds an input instead of instructions")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(f"{measure(args.keep.resolve(), args.child):.9f}")
        return
    keep = args.keep.resolve()
    codes = {"this": PROJECT}
    with tempfile.TemporaryDirectory(prefix="answer-cost-") as scratch:
        if args.against:
            other = Path(scratch) / "against"
            subprocess.run(["git", "-C", str(PROJECT), "worktree", "add", "-q", "--detach", str(other), args.against])
            (other / ".venv").symlink_to(PROJECT / ".venv")
            codes = {args.against: other, **codes}
        try:
            found: dict = {name: [] for name in codes}
            for round_ in range(args.rounds):
                for name, code in codes.items():
                    found[name].append(_child(code, keep, args.inputs, not args.cpu))
                    unit = "µs CPU" if args.cpu else "instructions"
                    value = found[name][-1] * 1e6 if args.cpu else found[name][-1]
                    print(f"round {round_ + 1}, {name}: {value:,.1f} {unit} a new input", flush=True)
            for name, values in found.items():
                median = statistics.median(values)
                print(f"{name}: median {median * 1e6 if args.cpu else median:,.1f} of {len(values)}")
        finally:
            if args.against:
                subprocess.run(["git", "-C", str(PROJECT), "worktree", "remove", "--force", str(other)])


if __name__ == "__main__":
    main()
