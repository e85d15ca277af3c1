"""The stream consumer against a real redis-server: every input entry gets exactly one output entry, whatever happens
to the consumers (two in a group, one killed, Redis restarted, a stop). Input order is not kept in the output."""

import asyncio
import logging
import signal

from landing.core.matching.events import event_line
from landing.serve.stream import client_for
from tests.redis_server import redis_process
from tests.serve.streaming import (
    GROUP,
    answered_all,
    consumer,
    echo,
    equal,
    fill,
    outputs,
    pending,
    run,
    until,
    worker,
)


def test_every_input_gets_exactly_one_output_entry_naming_its_input_id(redis_server):
    async def scenario():
        client = client_for(redis_server)
        ids = await fill(client, "every", 50)
        found = await answered_all(client, "every", [consumer(client, "a", echo, "every")], 50)
        assert found == {entry_id: [{"input": f"10.1234/{i}", "fetch": "known"}] for i, entry_id in enumerate(ids)}
        assert await pending(client, "every") == 0
        await client.aclose()

    run(scenario())


def test_entries_written_before_the_group_existed_are_answered_too(redis_server):
    async def scenario():
        client = client_for(redis_server)
        ids = await fill(client, "early", 3)
        assert not await client.exists("early:out")
        found = await answered_all(client, "early", [consumer(client, "a", echo, "early")], 3)
        assert sorted(found) == sorted(ids)
        await client.aclose()

    run(scenario())


def test_malformed_entries_get_an_error_result_and_are_acknowledged(redis_server):
    async def scenario():
        client = client_for(redis_server)
        bad = [
            {"fetch": "all"},
            {"q": "x" * 101},
            {"q": "10.1234/x", "fetch": "some"},
            {"q": b"\xef\xbb\xbf"},
            {"q": " "},
        ]
        ids = [(await client.xadd("bad", fields)).decode() for fields in bad]
        good = (await client.xadd("bad", {"q": "10.1234/ok", "fetch": "none"})).decode()
        found = await answered_all(client, "bad", [consumer(client, "a", echo, "bad", max_input=100)], 6)
        assert [found[entry_id] for entry_id in ids] == [
            [{"error": "the entry has no field q (the input to match)", "status": 400}],
            [{"error": "q has 101 characters: at most 100 are answered", "status": 413}],
            [{"error": "fetch='some': use none, known or all", "status": 400}],
            [{"error": "q is empty", "status": 400}],  # a BOM alone: nothing once it is dropped
            [{"error": "q is empty", "status": 400}],
        ]
        assert found[good] == [{"input": "10.1234/ok", "fetch": "none"}]
        assert await pending(client, "bad") == 0
        await client.aclose()

    run(scenario())


def test_an_answer_that_raises_gets_an_error_result_and_the_consumer_goes_on(redis_server):
    async def failing(text, fetch):
        if text.endswith("/1"):
            raise RuntimeError("broken")
        return {"input": text}

    async def scenario():
        client = client_for(redis_server)
        ids = await fill(client, "raising", 3)
        found = await answered_all(client, "raising", [consumer(client, "a", failing, "raising")], 3)
        assert found[ids[1]] == [{"error": "the matcher failed on this input", "status": 500}]
        assert found[ids[2]] == [{"input": "10.1234/2"}]
        await client.aclose()

    run(scenario())


def test_an_output_entry_names_the_artifact_version_its_match_used(redis_server):
    async def matched(text, fetch):
        return {"input": text, "doi": "10.1234/0", "evidence": [{"step": "artifact", "outcome": "20261126T0400Z"}]}

    async def scenario():
        client = client_for(redis_server)
        await fill(client, "versioned", 1)
        await answered_all(client, "versioned", [consumer(client, "a", matched, "versioned")], 1)
        [(_, fields)] = await client.xrange("versioned:out")
        assert fields[b"version"] == b"20261126T0400Z"
        await client.aclose()

    run(scenario())


def test_an_entry_asking_for_events_gets_its_results_events_about_its_citing_page_and_the_version(redis_server):
    result = {
        "input": "10.1234/0",
        "doi": "10.1234/0",
        "method": "doi-literal",
        "verification": "literal",
        "url": None,
        "subj_id": None,
        "evidence": [{"step": "artifact", "candidate": None, "outcome": "20261126T0400Z", "requests": 0}],
    }

    async def matched(text, fetch):
        return result

    async def scenario():
        client = client_for(redis_server)
        cited = "https://blog.example.org/7?utm_source=rss"
        entry = (await client.xadd("events", {"q": "10.1234/0", "format": "event", "subj": cited})).decode()
        found = await answered_all(client, "events", [consumer(client, "a", matched, "events")], 1)
        [(_, fields)] = await client.xrange("events:out")
        assert (found[entry], fields[b"version"]) == ([event_line(result, cited)], b"20261126T0400Z")
        await client.aclose()

    run(scenario())


def test_the_output_stream_is_trimmed_to_about_maxlen(redis_server):
    async def scenario():
        client = client_for(redis_server)
        ids = await fill(client, "trimmed", 300)
        trimmed = consumer(client, "a", echo, "trimmed", maxlen=10)
        stopping = asyncio.Event()
        running = asyncio.create_task(trimmed.run(stopping))
        await until(lambda: trimmed.stats["written"] == 300)
        stopping.set()
        await running
        # MAXLEN ~ trims whole macro nodes (100 entries each by default): about, never below, the bound.
        assert 10 <= await client.xlen("trimmed:out") <= 110
        [(_, fields)] = await client.xrevrange("trimmed:out", count=1)
        assert fields[b"input"].decode() in ids and await pending(client, "trimmed") == 0
        await client.aclose()

    run(scenario())


def test_two_consumers_in_one_group_share_the_inputs_and_answer_none_twice(redis_server):
    both = asyncio.Event()

    async def scenario():
        client = client_for(redis_server)
        answered = {"a": 0, "b": 0}

        def by(name):
            async def answer(text, fetch):
                if name == "a":
                    await both.wait()  # a holds its first entry until b has answered one: both take part
                answered[name] += 1
                both.set()
                return {"input": text, "by": name}

            return answer

        ids = await fill(client, "shared", 100)
        pair = [consumer(client, "a", by("a"), "shared", concurrency=1), consumer(client, "b", by("b"), "shared")]
        found = await answered_all(client, "shared", pair, 100)
        assert sorted(found) == sorted(ids)
        assert all(len(results) == 1 for results in found.values())
        assert answered["a"] >= 1 and answered["b"] >= 1 and answered["a"] + answered["b"] == 100
        await client.aclose()

    run(scenario())


def test_a_result_for_an_entry_claimed_by_another_consumer_is_not_written(redis_server):
    async def scenario():
        client = client_for(redis_server)
        first, second = consumer(client, "a", echo, "claimed"), consumer(client, "b", echo, "claimed")
        await client.xgroup_create("claimed", GROUP, id="0", mkstream=True)
        [entry_id] = await fill(client, "claimed", 1)
        await client.xreadgroup(GROUP, "a", {"claimed": ">"}, count=1)
        await client.xclaim("claimed", GROUP, "b", 0, [entry_id])  # a was thought dead
        assert await first.write(entry_id, {"by": "a"}) is False
        assert await second.write(entry_id, {"by": "b"}) is True
        assert await second.write(entry_id, {"by": "b", "again": True}) is False  # acknowledged: written once
        assert await outputs(client, "claimed") == {entry_id: [{"by": "b"}]}
        await client.aclose()

    run(scenario())


def test_an_answer_longer_than_the_claim_time_is_not_claimed_from_a_live_consumer(redis_server):
    release = asyncio.Event()

    async def scenario():
        client = client_for(redis_server)
        calls = []

        async def slow(text, fetch):
            calls.append(text)
            await release.wait()
            return {"input": text}

        first = consumer(client, "a", slow, "renewed", claim_ms=600)
        second = consumer(client, "b", echo, "renewed", claim_ms=600)
        [entry_id] = await fill(client, "renewed", 1)
        stopping = asyncio.Event()
        runs = [asyncio.create_task(first.run(stopping))]

        await until(lambda: equal(pending(client, "renewed", "a"), 1))
        runs.append(asyncio.create_task(second.run(stopping)))
        await until(lambda: first.stats["renewed"] >= 4)  # one every third of the claim time: b has scanned past it
        assert second.stats["claimed"] == 0 and await pending(client, "renewed", "a") == 1
        release.set()
        await until(lambda: client.xlen("renewed:out"))
        stopping.set()
        await asyncio.gather(*runs)
        assert calls == ["10.1234/0"] and list(await outputs(client, "renewed")) == [entry_id]
        await client.aclose()

    run(scenario())


def test_a_consumer_killed_with_sigkill_mid_stream_loses_no_input(redis_server):
    async def scenario():
        client = client_for(redis_server)
        ids = await fill(client, "killed", 200)
        first, second = worker(redis_server, "killed", "a", 0.02), worker(redis_server, "killed", "b", 0.02)
        try:
            await until(lambda: equal(pending(client, "killed", "a"), 4))  # a holds entries it has not answered
            first.kill()
            assert first.wait(10) == -signal.SIGKILL
            await until(lambda: equal(client.xlen("killed:out"), 200))
            found = await outputs(client, "killed")
            assert sorted(found) == sorted(ids) and all(len(results) == 1 for results in found.values())
            assert await pending(client, "killed") == 0
            second.send_signal(signal.SIGTERM)
            assert second.wait(10) == 0
        finally:
            for process in (first, second):
                if process.poll() is None:
                    process.kill()
                    process.wait(10)
        await client.aclose()

    run(scenario())


def test_sigterm_drains_the_entries_a_consumer_holds_and_reads_no_more(redis_server):
    async def scenario():
        client = client_for(redis_server)
        await fill(client, "drained", 20)
        process = worker(redis_server, "drained", "a", 0.5, concurrency=3)
        try:
            await until(lambda: equal(pending(client, "drained", "a"), 3))
            process.send_signal(signal.SIGTERM)
            assert process.wait(10) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)
        [group] = await client.xinfo_groups("drained")
        assert await pending(client, "drained") == 0
        assert await client.xlen("drained:out") == group["entries-read"] < 20
        await client.aclose()

    run(scenario())


def test_a_redis_restart_mid_stream_loses_no_input_and_is_logged_once(tmp_path, caplog):
    caplog.set_level(logging.WARNING, "test.stream")

    async def scenario(server):
        client = client_for(server.url)
        ids = await fill(client, "restarted", 100)

        async def answer(text, fetch):
            await asyncio.sleep(0.005)  # the work an answer takes
            return {"input": text}

        one = consumer(client, "a", answer, "restarted", concurrency=4, claim_ms=300)
        stopping = asyncio.Event()
        running = asyncio.create_task(one.run(stopping))
        await until(lambda: client.xlen("restarted:out"))
        await asyncio.to_thread(server.stop)

        await until(lambda: one.stats["outages"] == 1)
        await asyncio.to_thread(server.start)
        await until(lambda: equal(client.xlen("restarted:out"), 100))
        stopping.set()
        await running
        found = await outputs(client, "restarted")
        assert sorted(found) == sorted(ids) and all(len(results) == 1 for results in found.values())
        assert await pending(client, "restarted") == 0
        assert one.stats["outages"] == 1
        await client.aclose()

    with redis_process(tmp_path, persist=True) as server:
        run(scenario(server))
    outages = [r.getMessage() for r in caplog.records if "does not answer" in r.getMessage()]
    assert len(outages) == 1


def test_an_entry_its_answer_cannot_answer_now_stays_pending_until_another_consumer_claims_it(redis_server):
    class Closing(Exception):
        pass

    async def closing(text, fetch):
        raise Closing  # the matcher closing under the consumer

    async def scenario():
        client = client_for(redis_server)
        [entry_id] = await fill(client, "left", 1)
        first = consumer(client, "a", closing, "left", unanswered=(Closing,))
        stopping = asyncio.Event()
        running = asyncio.create_task(first.run(stopping))
        await until(lambda: first.stats["left"] == 1)
        stopping.set()
        await running
        assert await pending(client, "left", "a") == 1 and not await client.exists("left:out")
        found = await answered_all(client, "left", [consumer(client, "b", echo, "left", claim_ms=100)], 1)
        assert found == {entry_id: [{"input": "10.1234/0", "fetch": "known"}]}
        await client.aclose()

    run(scenario())


def test_an_entry_delivered_more_than_five_times_without_an_answer_gets_an_error_result(redis_server):
    async def scenario():
        client = client_for(redis_server)
        await client.xgroup_create("poison", GROUP, id="0", mkstream=True)
        [entry_id] = await fill(client, "poison", 1)
        await client.xreadgroup(GROUP, "dead-0", {"poison": ">"}, count=1)
        for n in range(1, 6):  # five consumers took it in turn and died answering it
            await client.xclaim("poison", GROUP, f"dead-{n}", 0, [entry_id])
        found = await answered_all(client, "poison", [consumer(client, "b", echo, "poison", claim_ms=50)], 1)
        message = "given up: delivered 7 times, and no consumer lived to answer it"
        assert found == {entry_id: [{"error": message, "status": 500}]}
        await client.aclose()

    run(scenario())


def test_joining_forgets_consumers_long_idle_with_nothing_pending_and_keeps_the_others(redis_server):
    async def scenario():
        client = client_for(redis_server)
        await client.xgroup_create("forget", GROUP, id="0", mkstream=True)
        await client.xadd("forget", {"q": "10.1234/held"})
        await client.xreadgroup(GROUP, "holding", {"forget": ">"}, count=1)  # a dead consumer's entry: kept
        await client.xgroup_createconsumer("forget", GROUP, "gone")  # nothing pending: forgotten

        async def idle_enough():
            return all(found["idle"] > 5 for found in await client.xinfo_consumers("forget", GROUP))

        await until(idle_enough)
        joining = consumer(client, "new", echo, "forget", forget_idle_ms=5)
        assert await joining._join()
        names = sorted(found["name"].decode() for found in await client.xinfo_consumers("forget", GROUP))
        assert (names, joining.stats["forgotten"]) == (["holding"], 1)
        await client.aclose()

    run(scenario())
