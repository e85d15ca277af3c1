"""A stream consumer in a process of its own, for the tests that kill it (SIGKILL) or stop it (SIGTERM):

    python -m tests.serve.stream_worker REDIS_URL STREAM_IN STREAM_OUT CONSUMER DELAY CLAIM_MS CONCURRENCY

Each answer takes DELAY seconds (so a kill finds entries in progress) and names the consumer that made it."""

import asyncio
import logging
import signal
import sys

from landing.serve.stream import StreamConsumer, client_for


async def main(url, stream_in, stream_out, consumer, delay, claim_ms, concurrency) -> None:
    stopping = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopping.set)

    async def answer(text: str, fetch: str) -> dict:
        await asyncio.sleep(delay)  # the work an answer takes, not a wait for something to happen
        return {"input": text, "by": consumer}

    client = client_for(url)
    worker = StreamConsumer(
        client,
        stream_in,
        stream_out,
        "landing",
        consumer,
        answer,
        batch=concurrency,
        claim_idle_ms=claim_ms,
        concurrency=concurrency,
        maxlen=0,
        logger=logging.getLogger("stream_worker"),
        block_ms=100,
    )
    await worker.run(stopping)
    await client.aclose()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    url, stream_in, stream_out, consumer, delay, claim_ms, concurrency = sys.argv[1:]
    asyncio.run(main(url, stream_in, stream_out, consumer, float(delay), int(claim_ms), int(concurrency)))
