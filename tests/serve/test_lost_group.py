"""A consumer group deleted while its input stream survives, against a real redis-server: made again at the last
answered entry, so that no input is answered twice and none is lost."""

import asyncio

from landing.serve.stream import client_for
from tests.serve.streaming import GROUP, consumer, fill, outputs, pending, run, until

HELD = 150  # an input whose answer waits while the group is deleted: answered after the loss, once
LOST_AT = 200  # inputs from here on wait too: the group is deleted once every input before it but HELD is answered
N = 400


def test_a_group_deleted_mid_way_is_made_again_at_the_last_answered_entry_no_input_answered_twice_or_lost(
    redis_server,
):
    async def scenario():
        client = client_for(redis_server)
        ids = await fill(client, "lost", N)
        gate = asyncio.Event()

        async def gated(text, fetch):
            number = int(text.rsplit("/", 1)[1])
            if number == HELD or number >= LOST_AT:
                await gate.wait()
            return {"input": text}

        stopping = asyncio.Event()
        running = asyncio.create_task(consumer(client, "a", gated, "lost", claim_ms=300).run(stopping))
        await until(lambda: _length(client, LOST_AT - 1))
        await client.xgroup_destroy("lost", GROUP)
        gate.set()

        async def all_answered():
            return len(await outputs(client, "lost")) == N and await pending(client, "lost") == 0

        await until(all_answered)
        stopping.set()
        await running
        found = await outputs(client, "lost")
        await client.aclose()
        return found, ids

    found, ids = run(scenario())
    assert (sorted(found), [n for n, i in enumerate(ids) if len(found[i]) != 1]) == (sorted(ids), [])


async def _length(client, n) -> bool:
    return await client.xlen("lost:out") >= n
