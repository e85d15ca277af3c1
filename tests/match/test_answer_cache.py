"""landing.match.answer_cache: answers and results kept in this process (LocalAnswers) or in a real redis-server
for every instance (SharedAnswers), with a TTL; a Redis that fails is a miss, never an error."""

import asyncio
import logging
import uuid

import pytest
import redis
from scrapy.settings import Settings

import landing.settings as project_settings
from landing.config import of_settings
from landing.match.answer_cache import (
    PAUSE_SECONDS,
    LocalAnswers,
    SharedAnswers,
    answers_of,
    namespace_of,
    question_key,
    result_key,
)
from landing.setting_checks import SettingsError
from tests.redis_server import redis_process

RESULT = {"input": "10.1234/abc", "doi": "10.1234/abc", "method": "doi-literal", "evidence": []}


class Clock:
    def __init__(self, now: float = 0.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def namespace() -> str:
    """A namespace of its own for each test on the session's redis-server."""
    return f"test:{uuid.uuid4().hex}"


def run(coroutine):
    return asyncio.run(coroutine)


# --- LocalAnswers: the same interface, in this process ------------------------------------------------------
def test_local_answers_keep_answers_and_results_within_their_bound():
    async def scenario():
        local = LocalAnswers(entries=2)
        for n in range(3):
            await local.put(("handle", f"10.1234/{n}"), {"n": n})
            await local.put_result("v1", "known", f"input {n}", {**RESULT, "input": f"input {n}"})
        got = (
            await local.get(("handle", "10.1234/0")),
            await local.get(("handle", "10.1234/2")),
            await local.get_result("v1", "known", "input 0"),
            (await local.get_result("v1", "known", "input 2"))["input"],
            await local.get_result("v2", "known", "input 2"),
        )
        await local.close()
        return got, (len(local.questions.layers[0]), len(local.results.layers[0])), local.stats

    got, sizes, stats = run(scenario())
    assert got == ((False, None), (True, {"n": 2}), None, "input 2", None)
    # Counted: the results asked (the questions' own lookups are not: see LocalAnswers).
    assert (sizes, stats) == ((2, 2), {"hits": 1, "misses": 2, "errors": 0})


def test_local_results_are_bounded_in_bytes_the_least_recently_used_long_inputs_dropped_first():
    async def scenario():
        # Room for two results of 10,000-character inputs (each about 21,000 bytes) and not three.
        local = LocalAnswers(entries=100, weight=50_000)
        texts = [str(n) * 10_000 for n in range(4)]
        for text in texts:
            await local.put_result("v1", "known", text, {**RESULT, "input": text})
        kept = [await local.get_result("v1", "known", text) is not None for text in texts]
        memory = local.results.layers[0]
        return kept, memory.values.weighed

    kept, weighed = run(scenario())
    assert (kept, weighed) == ([False, False, True, True], 2 * (1024 + 2 * 10_000))


# --- SharedAnswers: Redis ------------------------------------------------------------------------------------
def test_an_answer_one_instance_wrote_is_read_by_another(redis_server):
    space = namespace()

    async def scenario():
        writer, reader = SharedAnswers(redis_server, 3600, space), SharedAnswers(redis_server, 3600, space)
        await writer.put(("scope", "handle", "10.1234/abc"), {"responseCode": 1, "values": []})
        got = await reader.get(("scope", "handle", "10.1234/abc")), await reader.get(("scope", "handle", "10.1/x"))
        await writer.close()
        await reader.close()
        return got, reader.stats

    got, stats = run(scenario())
    assert got == ((True, {"responseCode": 1, "values": []}), (False, None))
    assert stats == {"hits": 1, "misses": 1, "errors": 0}


def test_an_answer_of_none_is_found_as_none_not_missing(redis_server):
    space = namespace()

    async def scenario():
        shared = SharedAnswers(redis_server, 3600, space)
        await shared.put(("scope", "handle", "10.1234/none"), None)
        got = await shared.get(("scope", "handle", "10.1234/none"))
        await shared.close()
        return got

    assert run(scenario()) == (True, None)


def test_answers_and_results_are_written_with_the_ttl(redis_server):
    space = namespace()

    async def scenario():
        shared = SharedAnswers(redis_server, 2 * 3600, space)
        await shared.put(("scope", "resolve", "10.1234/abc"), {"final_url": "https://x.example/"})
        await shared.put_result("sha256:0123", "known", "10.1234/abc", RESULT)
        await shared.close()

    run(scenario())
    with redis.Redis.from_url(redis_server) as client:
        keys = sorted(client.scan_iter(f"{space}:*"))
        ttls = [client.pttl(key) for key in keys]
    assert len(keys) == 2
    assert all(2 * 3600 * 1000 - 60_000 < ttl <= 2 * 3600 * 1000 for ttl in ttls)


def test_a_result_stored_by_one_instance_is_found_by_another_under_the_same_version_and_policy_only(redis_server):
    space = namespace()

    async def scenario():
        writer, reader = SharedAnswers(redis_server, 3600, space), SharedAnswers(redis_server, 3600, space)
        await writer.put_result("sha256:0123", "known", "10.1234/abc", RESULT)
        got = (
            await reader.get_result("sha256:0123", "known", "10.1234/abc"),
            await reader.get_result("sha256:0123", "all", "10.1234/abc"),
            await reader.get_result("sha256:4567", "known", "10.1234/abc"),
        )
        await writer.close()
        await reader.close()
        return got

    assert run(scenario()) == (RESULT, None, None)


def test_a_result_kept_with_nobody_waiting_is_found_by_another_instance_once_its_batch_went(redis_server):
    space = namespace()

    async def scenario():
        writer, reader = SharedAnswers(redis_server, 3600, space), SharedAnswers(redis_server, 3600, space)
        kept = writer.results.keep(("v", "known", "text"), RESULT)
        await writer.close()  # the batch queued at the keep goes before the connection closes
        got = await reader.get_result("v", "known", "text")
        await reader.close()
        return kept, got

    assert run(scenario()) == (True, RESULT)


def test_a_result_kept_with_nobody_waiting_while_redis_is_down_is_counted_as_one_error(tmp_path):
    async def scenario(server):
        shared = SharedAnswers(server.url, 3600, namespace())
        server.stop()
        shared.results.keep(("v", "known", "a"), RESULT)
        shared.results.keep(("v", "known", "b"), RESULT)
        await shared.close()
        return shared.stats["errors"], shared.results.held(("v", "known", "a"))

    with redis_process(tmp_path) as server:
        assert run(scenario(server)) == (1, (True, RESULT))


def test_a_result_found_once_is_found_again_without_asking_redis(redis_server):
    space = namespace()

    async def scenario():
        writer, reader = SharedAnswers(redis_server, 3600, space), SharedAnswers(redis_server, 3600, space)
        await writer.put_result("v", "known", "text", RESULT)
        first = await reader.get_result("v", "known", "text")
        with redis.Redis.from_url(redis_server) as client:
            client.delete(result_key(space, "v", "known", "text"))
        again = await reader.get_result("v", "known", "text")
        await writer.close()
        await reader.close()
        return first, again

    assert run(scenario()) == (RESULT, RESULT)


def test_questions_asked_at_once_go_to_redis_as_one_read(tmp_path):
    space = namespace()

    async def scenario(url):
        shared = SharedAnswers(url, 3600, space)
        await asyncio.gather(*(shared.put(("scope", "handle", f"10.1234/{n}"), n) for n in range(50)))
        got = await asyncio.gather(*(shared.get(("scope", "handle", f"10.1234/{n}")) for n in range(60)))
        await shared.close()
        return got

    with redis_process(tmp_path) as server:
        got = run(scenario(server.url))
        with redis.Redis.from_url(server.url) as client:
            calls = {name: stats["calls"] for name, stats in client.info("commandstats").items()}
    assert got == [(True, n) for n in range(50)] + [(False, None)] * 10
    assert (calls.get("cmdstat_mget"), calls.get("cmdstat_get"), calls.get("cmdstat_set")) == (1, None, 50)


def test_reads_asked_while_a_batch_is_out_go_together_as_the_next_round_trip(tmp_path):
    space = namespace()

    async def scenario(url):
        writer, shared = SharedAnswers(url, 3600, space), SharedAnswers(url, 3600, space)
        await writer.put(("scope", "handle", "10.1234/b"), "b")
        await writer.close()
        first = asyncio.ensure_future(shared.redis.get("unheld"))
        await asyncio.sleep(0)  # its read is queued, to go at the end of the turn
        await asyncio.sleep(0)  # its batch is out, alone
        out = set(shared.redis.sending)
        later = [asyncio.ensure_future(shared.get(("scope", "handle", f"10.1234/{k}"))) for k in "abc"]
        await asyncio.sleep(0)  # asked while the first batch is out: they wait for it
        queued = sorted(shared.redis.reads)
        got = [await first] + [await each for each in later]
        await shared.close()
        return out, queued, got

    with redis_process(tmp_path) as server:
        out, queued, got = run(scenario(server.url))
        with redis.Redis.from_url(server.url) as client:
            calls = {name: stats["calls"] for name, stats in client.info("commandstats").items()}
    keys = sorted(question_key(space, ("scope", "handle", f"10.1234/{k}")) for k in "abc")
    # Two MGETs: the first batch's one key, then the three asked while it was out.
    assert (len(out), queued, got) == (1, keys, [(False, None), (False, None), (True, "b"), (False, None)])
    assert calls.get("cmdstat_mget") == 2


def test_a_long_input_makes_a_short_key():
    text = "x " * 500_000
    assert len(result_key("landing:match", "sha256:0123456789abcdef", "known", text)) < 120
    assert len(question_key("landing:match", ("scope", "handle", "10.1234/" + "a" * 1000))) < 100


def test_a_value_in_redis_that_is_not_json_is_a_miss_and_counted(redis_server):
    space = namespace()
    with redis.Redis.from_url(redis_server) as client:
        client.set(question_key(space, ("scope", "handle", "10.1234/abc")), b"\xff not json")

    async def scenario():
        shared = SharedAnswers(redis_server, 3600, space)
        got = await shared.get(("scope", "handle", "10.1234/abc"))
        await shared.close()
        return got, shared.stats

    assert run(scenario()) == ((False, None), {"hits": 0, "misses": 1, "errors": 1})


def test_a_redis_that_is_down_makes_every_question_a_miss_never_a_failure(tmp_path, caplog):
    clock = Clock()

    async def scenario(server):
        shared = SharedAnswers(server.url, 3600, namespace(), clock=clock)
        redis_layer = shared.questions.layers[-1]  # Redis alone: the process's own layer would answer first
        await redis_layer.put(("scope", "handle", "10.1234/abc"), {"responseCode": 1})
        server.stop()
        got = [await redis_layer.get(("scope", "handle", "10.1234/abc"))]
        await redis_layer.put(("scope", "handle", "10.1234/def"), {"responseCode": 1})
        got.append(await shared.get_result("v", "known", "10.1234/abc"))
        await shared.put_result("v", "known", "10.1234/abc", RESULT)
        await shared.close()
        return got, shared.stats

    with caplog.at_level(logging.WARNING, logger="landing.match.answer_cache"), redis_process(tmp_path) as server:
        got, stats = run(scenario(server))
    assert got == [(False, None), None]
    # One error: Redis then rests PAUSE_SECONDS on the clock, unasked, its questions misses.
    assert stats == {"hits": 0, "misses": 2, "errors": 1}
    assert [r.getMessage().split(":")[0] for r in caplog.records] == ["match cache at 127.0.0.1"]


def test_a_redis_back_after_its_pause_is_asked_again(tmp_path):
    clock = Clock()

    async def scenario(server):
        shared = SharedAnswers(server.url, 3600, namespace(), clock=clock)
        redis_layer = shared.questions.layers[-1]  # Redis alone: the process's own layer would answer first
        server.stop()
        down = await redis_layer.get(("scope", "pii", "S1"))
        server.start()  # the same port, its data gone
        await redis_layer.put(("scope", "pii", "S1"), ["10.1016/a"])  # still paused: not written
        paused = await redis_layer.get(("scope", "pii", "S1"))
        clock.now += PAUSE_SECONDS
        await redis_layer.put(("scope", "pii", "S1"), ["10.1016/a"])
        back = await redis_layer.get(("scope", "pii", "S1"))
        await shared.close()
        return [down, paused, back], shared.stats

    with redis_process(tmp_path) as server:
        got, stats = run(scenario(server))
    assert got == [(False, None), (False, None), (True, ["10.1016/a"])]
    assert stats == {"hits": 1, "misses": 2, "errors": 1}


# --- the settings ---------------------------------------------------------------------------------------------
def _config(**overrides):
    settings = Settings()
    settings.setmodule(project_settings, priority="project")
    settings.setdict(overrides, priority="cmdline")
    return of_settings(settings)


def test_without_landing_match_redis_a_matcher_keeps_its_answers_in_the_process():
    answers = answers_of(_config(TUNING_MATCH_CACHE_ENTRIES="7"))
    assert (type(answers), answers.results.layers[0].entries, answers.results.layers[0].ttl) == (
        LocalAnswers,
        7,
        24 * 3600,
    )


def test_with_landing_match_redis_a_matcher_shares_its_answers_for_the_cache_hours(redis_server):
    answers = answers_of(_config(LANDING_MATCH_REDIS=redis_server, LANDING_MATCH_CACHE_HOURS="0.5"))
    run(answers.close())
    assert (type(answers), answers.ttl_ms) == (SharedAnswers, 1_800_000)


def test_matchers_of_a_sandbox_and_of_the_web_keep_their_answers_apart_in_one_redis():
    web, same_web = namespace_of(_config()), namespace_of(_config())
    sandbox = namespace_of(_config(LANDING_SANDBOX="http://127.0.0.1:8099"))
    other_resolver = namespace_of(_config(LANDING_DOI_RESOLVER="https://dx.doi.org"))
    assert web == same_web and len({web, sandbox, other_resolver}) == 3
    assert web.startswith("landing:match:") and "127.0.0.1" not in sandbox


def test_a_landing_match_redis_that_is_no_redis_url_is_refused_in_words():
    with pytest.raises(SettingsError, match="LANDING_MATCH_REDIS: use a URL like redis://host:6379/0, or leave it"):
        _config(LANDING_MATCH_REDIS="http://127.0.0.1:6379")


def test_a_cache_of_no_hours_is_refused_in_words():
    with pytest.raises(SettingsError, match="LANDING_MATCH_CACHE_HOURS"):
        _config(LANDING_MATCH_CACHE_HOURS="0")
