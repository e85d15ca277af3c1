"""What the stream consumer's tests share: a consumer on a real redis-server, inputs put in, outputs read back, a
consumer in a process of its own (tests/serve/stream_worker.py)."""

import asyncio
import inspect
import json
import logging
import subprocess
import sys
import time
from pathlib import Path

import redis

from landing.serve.stream import StreamConsumer
from tests import forked

ROOT = Path(__file__).resolve().parents[2]
GROUP = "landing"


def run(coroutine):
    return asyncio.run(coroutine)


def consumer(client, name, answer, stream="in", *, concurrency=8, claim_ms=60_000, **options) -> StreamConsumer:
    return StreamConsumer(
        client,
        stream,
        stream + ":out",
        GROUP,
        name,
        answer,
        batch=options.pop("batch", concurrency),
        claim_idle_ms=claim_ms,
        concurrency=concurrency,
        maxlen=options.pop("maxlen", 0),
        logger=logging.getLogger("test.stream"),
        block_ms=50,
        **options,
    )


async def echo(text, fetch):
    return {"input": text, "fetch": fetch}


async def until(check, seconds=20.0):
    """Poll a check (a function, or one returning an awaitable) until it holds; fail the test after `seconds`."""
    deadline = time.monotonic() + seconds
    while not await _held(check):
        assert time.monotonic() < deadline, "the condition did not hold in time"
        await asyncio.sleep(0.01)  # polling a condition, not waiting out a time


async def _held(check) -> bool:
    try:
        found = check()
        return bool(await found if inspect.isawaitable(found) else found)
    except redis.ConnectionError:  # the test's own connection, broken by a Redis restart: ask again
        return False


async def equal(awaitable, value) -> bool:
    return await awaitable == value


async def outputs(client, stream) -> dict:
    """{input entry id: [each result written for it]} of stream's output."""
    found: dict = {}
    for _, fields in await client.xrange(stream + ":out"):
        found.setdefault(fields[b"input"].decode(), []).append(json.loads(fields[b"result"]))
    return found


async def fill(client, stream, n) -> list[str]:
    """n input entries, q = "10.1234/<i>"; their ids in order."""
    pipe = client.pipeline()
    for i in range(n):
        pipe.xadd(stream, {"q": f"10.1234/{i}"})
    return [entry_id.decode() for entry_id in await pipe.execute()]


async def pending(client, stream, name=None) -> int:
    """Entries pending in the group (for one consumer when named); 0 before the group exists."""
    if not any(group["name"] == GROUP.encode() for group in await client.xinfo_groups(stream)):
        return 0
    summary = await client.xpending(stream, GROUP)
    if name is None:
        return summary["pending"]
    return next((c["pending"] for c in summary["consumers"] if c["name"].decode() == name), 0)


async def answered_all(client, stream, consumers, n) -> dict:
    """Run the consumers until the output holds n entries; stop them and return the outputs."""
    stopping = asyncio.Event()
    runs = [asyncio.create_task(c.run(stopping)) for c in consumers]

    async def done():
        return await client.xlen(stream + ":out") >= n

    await until(done)
    stopping.set()
    await asyncio.gather(*runs)
    return await outputs(client, stream)


def worker(url, stream, name, delay, concurrency=4, claim_ms=300) -> subprocess.Popen:
    """A consumer in its own process (tests/serve/stream_worker.py)."""
    command = [sys.executable, "-m", "tests.serve.stream_worker", url, stream, stream + ":out", name]
    return forked.popen([*command, str(delay), str(claim_ms), str(concurrency)], cwd=ROOT)
