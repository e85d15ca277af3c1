"""landing.match.answering.Matcher (which the resident crawl holds) and landing.match.loaded_artifact.ArtifactHolder: a
long-lived matcher's answers, its result cache, its fetch policies, and the artifact reloaded under it; the cascade's
questions answered from a table."""

import asyncio
import json
import logging
import os
import sys
from dataclasses import replace

import pytest

from landing.core.matching.cascade import Matching, drive
from landing.core.matching.decisions import Decisions
from landing.core.matching.questions import Exists, Fetch
from landing.core.matching.results import LookupFailed
from landing.core.publishing.artifact_format import ArtifactError as CoreArtifactError
from landing.match.answer_cache import LocalAnswers
from landing.match.answering import Matcher, MatcherClosed, stopped
from landing.match.cache_layers import stack
from landing.match.loaded_artifact import ArtifactError, ArtifactHolder
from landing.match.lookups import NotHeld
from tests import forked
from tests.core.matching.cascading import DOI, SETUP, decided, page
from tests.match.lookups_probe import ROOT

LOG = logging.getLogger("tests.match.resident")
# As read back from the files written: the version is the file's own hash.
OLD = Decisions.read(decided("journal.example", "10.1234", "domain-confirmed").to_json())
NEW = Decisions.read(decided("journal.example", "10.1234", "domain-recognised").to_json())
ELSEWHERE = "https://elsewhere.example/post/1"  # a URL on a domain neither artifact knows


def write(path, decisions) -> None:
    """The artifact written as the exporter writes it: a temp file beside it, then os.replace."""
    temp = path.with_name(".temp")
    temp.write_text(decisions.to_json(), encoding="utf-8")
    os.replace(temp, path)


@pytest.fixture
def artifact(tmp_path):
    path = tmp_path / "domain-decision-structure.json"
    write(path, OLD)
    return path


class Table:
    """The cascade's questions answered from a dict, each noted; `gate`, when set, holds every answer until it opens."""

    def __init__(self, answers: dict):
        self.answers, self.asked, self.gate = answers, [], None

    async def ask(self, question):
        self.asked.append(question)
        if self.gate is not None:
            await self.gate.wait()
        found = self.answers[question]
        if isinstance(found, Exception):
            raise found
        return found


def matcher_of(artifact, table: Table, **caps) -> Matcher:
    holder = ArtifactHolder(artifact, required=True)
    return Matcher(holder, replace(SETUP, **caps), table.ask, LocalAnswers(100), deadline=5, concurrency=4, logger=LOG)


def run(coroutine):
    return asyncio.run(coroutine)


def test_an_input_gets_exactly_the_result_scrapy_match_prints_with_the_artifact_held(artifact):
    table = Table({Exists(DOI): (True, 1)})
    got = run(matcher_of(artifact, table).match(f"doi:{DOI}"))
    expected = drive(Matching(f"doi:{DOI}", replace(SETUP, decisions=OLD)), table.answers.get).to_json()
    assert got == expected
    assert got["evidence"][-1]["outcome"] == OLD.version


def test_an_input_asked_again_is_answered_from_the_result_cache_with_no_question(artifact):
    table = Table({Exists(DOI): (True, 1)})
    matcher = matcher_of(artifact, table)

    async def twice():
        return await matcher.match(DOI), await matcher.match(DOI)

    first, second = run(twice())
    assert (first, table.asked, matcher.stats()["cache_hits"]) == (second, [Exists(DOI)], 1)


def test_a_matcher_that_keeps_no_result_matches_an_input_given_twice_twice(artifact):
    table = Table({Exists(DOI): (True, 1)})
    holder = ArtifactHolder(artifact, required=True)
    # As `scrapy match` runs it: every input line is matched, the same one twice included.
    matcher = Matcher(
        holder, SETUP, table.ask, LocalAnswers(100), deadline=5, concurrency=4, logger=LOG, results=stack()
    )

    async def twice():
        return await matcher.match(DOI), await matcher.match(DOI)

    first, second = run(twice())
    assert (first == second, table.asked) == (True, [Exists(DOI), Exists(DOI)])


def test_a_result_that_stopped_is_not_cached_and_is_asked_again(artifact):
    table = Table({Exists(DOI): LookupFailed("Handle API: 503")})
    matcher = matcher_of(artifact, table)

    async def fail_then_answer():
        failed = await matcher.match(DOI)
        table.answers[Exists(DOI)] = (True, 1)
        return failed, await matcher.match(DOI)

    failed, answered = run(fail_then_answer())
    assert (stopped(failed), answered["doi"], len(table.asked)) == (True, DOI, 2)


def test_the_same_input_under_another_fetch_policy_is_not_answered_from_the_cache(artifact):
    table = Table({Exists(DOI): (True, 1)})
    matcher = matcher_of(artifact, table)

    async def both():
        await matcher.match(DOI, "known")
        await matcher.match(DOI, "none")

    run(both())
    assert table.asked == [Exists(DOI), Exists(DOI)]


def test_a_fetch_policy_not_none_known_or_all_is_refused(artifact):
    with pytest.raises(ValueError, match="fetch='some': use none, known, all"):
        run(matcher_of(artifact, Table({})).match(DOI, "some"))


def test_each_fetch_policy_sets_whether_and_which_pages_are_fetched(artifact):
    matcher = matcher_of(artifact, Table({}))
    assert [(s.fetch, s.fetch_policy) for s in map(matcher.setup, ("none", "known", "all"))] == [
        (False, "known"),
        (True, "known"),
        (True, "all"),
    ]


def test_free_text_fetches_a_url_on_an_unknown_domain_only_when_asked_to_fetch_all(artifact):
    text = f"See {ELSEWHERE} for more"
    table = Table({Fetch(ELSEWHERE): page(ELSEWHERE)})

    async def known_then_all():
        await matcher_of(artifact, table).match(text, "known")
        known = list(table.asked)
        await matcher_of(artifact, table).match(text, "all")
        return known, table.asked[len(known) :]

    known, fetched_all = run(known_then_all())
    assert (Fetch(ELSEWHERE) in known, Fetch(ELSEWHERE) in fetched_all) == (False, True)


def test_an_input_keeps_the_artifact_it_started_with_when_a_new_version_is_loaded_meanwhile(artifact):
    table = Table({Exists(DOI): (True, 1)})
    matcher = matcher_of(artifact, table)
    table.gate = asyncio.Event()

    async def reload_midway():
        started = asyncio.ensure_future(matcher.match(DOI))
        while not table.asked:
            await asyncio.sleep(0)
        write(artifact, NEW)
        assert await matcher.holder.check()
        table.gate.set()
        return await started, await matcher.match(f"doi:{DOI}")

    before, after = run(reload_midway())
    assert (before["evidence"][-1]["outcome"], after["evidence"][-1]["outcome"]) == (OLD.version, NEW.version)
    assert matcher.version == NEW.version


def test_closing_drops_inputs_in_progress_and_refuses_new_ones(artifact):
    table = Table({Exists(DOI): (True, 1)})
    matcher = matcher_of(artifact, table)
    table.gate = asyncio.Event()  # never opens

    async def close_midway():
        started = asyncio.ensure_future(matcher.match(DOI))
        while not table.asked:
            await asyncio.sleep(0)
        await matcher.close()
        with pytest.raises(MatcherClosed):
            await started
        with pytest.raises(MatcherClosed):
            await matcher.match(DOI)

    run(close_midway())


def test_closing_drops_an_input_still_waiting_for_a_page_slot(artifact):
    pages = [f"{ELSEWHERE}?page={n}" for n in (1, 2)]
    table = Table({Fetch(url): page(url) for url in pages})
    holder = ArtifactHolder(artifact, required=True)
    matcher = Matcher(holder, SETUP, table.ask, LocalAnswers(100), deadline=5, concurrency=1, logger=LOG)
    table.gate = asyncio.Event()  # shut: the first input holds the only page slot

    async def close_while_waiting():
        first = asyncio.ensure_future(matcher.match(pages[0], "all"))
        waiting = asyncio.ensure_future(matcher.match(pages[1], "all"))
        while not table.asked:
            await asyncio.sleep(0)
        for _ in range(10):  # the second input runs as far as its page question
            await asyncio.sleep(0)
        held = matcher.stats()["pages"]
        await matcher.close()
        table.gate.set()  # answers would come now, for an input let through
        return held, await asyncio.gather(first, waiting, return_exceptions=True)

    held, answers = run(close_while_waiting())
    assert ((held["held"], held["waiting"]), [type(e) for e in answers]) == ((1, 1), [MatcherClosed, MatcherClosed])
    assert table.asked == [Fetch(pages[0])]  # the waiting input never fetched its page


def test_stats_count_inputs_by_method_and_verification_and_the_cache(artifact):
    table = Table({Exists(DOI): (True, 1), Exists("10.1234/none"): (False, 1)})
    matcher = matcher_of(artifact, table)

    async def three():
        for text in (DOI, DOI, "10.1234/none"):
            await matcher.match(text)

    run(three())
    stats = matcher.stats()
    assert stats["by_answer"] == {("doi-literal", "literal"): 2, ("none", "none"): 1}
    assert (stats["inputs"], stats["cache_hits"], stats["cache_misses"], stats["in_flight"]) == (3, 1, 2, 0)


# --- ArtifactHolder -----------------------------------------------------------------------------------------
def test_a_new_artifact_replacing_the_file_is_loaded_at_the_next_check(artifact):
    holder = ArtifactHolder(artifact, required=True)
    write(artifact, NEW)
    assert (run(holder.check()), holder.version, holder.reloads) == (True, NEW.version, 1)


def test_an_unchanged_artifact_is_not_read_again(artifact):
    holder = ArtifactHolder(artifact, required=True)
    assert (run(holder.check()), holder.version) == (False, OLD.version)


def test_a_half_written_artifact_keeps_the_version_held_and_says_so(artifact, caplog):
    holder = ArtifactHolder(artifact, required=True)
    artifact.write_text(NEW.to_json()[:40], encoding="utf-8")  # a writer that does not replace atomically, midway
    assert (run(holder.check()), holder.version, holder.failures) == (False, OLD.version, 1)
    assert "cannot be read" in caplog.text and OLD.version in caplog.text


def test_a_removed_artifact_keeps_the_version_held(artifact):
    holder = ArtifactHolder(artifact, required=True)
    artifact.unlink()
    assert (run(holder.check()), holder.version) == (False, OLD.version)


def test_an_artifact_appearing_where_there_was_none_is_loaded(tmp_path):
    path = tmp_path / "domain-decision-structure.json"
    holder = ArtifactHolder(path, required=False)
    assert (holder.version, "no artifact at" in holder.warning) == ("", True)
    write(path, NEW)
    assert (run(holder.check()), holder.version, holder.warning) == (True, NEW.version, None)


def test_a_missing_artifact_is_warned_of_saying_no_url_is_fetched_unless_the_policy_is_all(tmp_path):
    holder = ArtifactHolder(tmp_path / "nothing.json", required=False)
    assert holder.warning.endswith(
        ": domain-prefix verifications are off, and no URL is fetched unless the fetch policy is all "
        "(LANDING_MATCH_FETCH=all, scrapy match --fetch-all, the service's fetch=all)"
    )


def test_a_required_artifact_that_is_missing_is_an_error_naming_it(tmp_path):
    with pytest.raises(ArtifactError, match="no artifact at .*nothing.json"):
        ArtifactHolder(tmp_path / "nothing.json", required=True)


def test_an_artifact_that_is_no_json_is_refused_with_the_one_artifact_error(tmp_path):
    path = tmp_path / "domain-decision-structure.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ArtifactError, match=r"cannot use .*domain-decision-structure.json as a") as refused:
        ArtifactHolder(path, required=True)
    assert (refused.value.name, refused.type) == (path, CoreArtifactError)


def test_the_trusted_decisions_are_those_held(artifact):
    holder = ArtifactHolder(artifact, required=True, trust=lambda d: replace(d, confirmed=frozenset()))
    assert (holder.decisions.confirmed, holder.version) == (frozenset(), OLD.version)


# --- the resident crawl, in a program's own reactor -----------------------------------------------------------
PROGRAM = """
import json, sys
from scrapy.utils.reactor import install_reactor

install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
from scrapy.crawler import AsyncCrawlerRunner
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.project import get_project_settings
from twisted.internet import reactor

from landing.match.loaded_artifact import ArtifactHolder
from landing.match.resident import start_resident


async def main():
    crawler, matcher, done = await start_resident(AsyncCrawlerRunner(get_project_settings()),
                                                  ArtifactHolder(sys.argv[1], required=True))
    found = [await matcher.match(q, "none") for q in sys.argv[2:]]
    await crawler.stop_async()
    await done
    print(json.dumps({"results": found, "closed": matcher.closed, "version": matcher.version}))


reactor.callWhenRunning(lambda: deferred_from_coro(main()).addBoth(lambda r: (reactor.stop(), r)[1]))
reactor.run()
"""


def test_a_program_running_its_own_reactor_starts_a_resident_matcher_answers_and_stops_it(artifact):
    inputs = ["not a url at all", ELSEWHERE]
    done = forked.run([sys.executable, "-c", PROGRAM, str(artifact), *inputs], ROOT, os.environ, 120)
    assert done.returncode == 0, done.stderr[-3000:]
    table = Table({})  # neither input asks a question with pages off
    expected = [run(matcher_of(artifact, table).match(q, "none")) for q in inputs]
    assert json.loads(done.stdout) == {"results": expected, "closed": True, "version": OLD.version}


# --- answered at once, from the answers this process holds ---------------------------------------------------
class Held(Table):
    """A Table whose answers in `held` are also answered at once (as Lookups.held answers), each such answer noted."""

    def __init__(self, answers: dict, held: dict):
        super().__init__(answers)
        self.at_hand, self.held_asked = held, []

    def held(self, question):
        if question not in self.at_hand:
            raise NotHeld(question)
        self.held_asked.append(question)
        return self.at_hand[question]


def held_matcher(artifact, table: Held) -> Matcher:
    holder = ArtifactHolder(artifact, required=True)
    return Matcher(holder, SETUP, table.ask, LocalAnswers(100), deadline=5, concurrency=4, logger=LOG, held=table.held)


def test_an_input_whose_answers_are_held_gets_the_result_asking_gives_without_asking(artifact):
    table = Held({}, {Exists(DOI): (True, 0)})
    got = run(held_matcher(artifact, table).match(DOI))
    asked = run(matcher_of(artifact, Table({Exists(DOI): (True, 0)})).match(DOI))
    assert (got, table.asked, table.held_asked) == (asked, [], [Exists(DOI)])


def test_an_input_answered_at_once_is_kept_and_found_there_when_asked_again(artifact):
    table = Held({}, {Exists(DOI): (True, 0)})
    matcher = held_matcher(artifact, table)

    async def twice():
        first = await matcher.match(DOI)
        await asyncio.sleep(0)  # one turn of the loop: the result is kept in this process's layer
        return first, await matcher.match(DOI)

    first, second = run(twice())
    stats = matcher.stats()
    assert (first, table.held_asked, stats["cache_hits"], stats["cache_misses"]) == (second, [Exists(DOI)], 1, 1)


def test_an_input_whose_answer_is_not_held_is_asked(artifact):
    table = Held({Exists(DOI): (True, 1)}, {})
    got = run(held_matcher(artifact, table).match(DOI))
    assert (got["doi"], table.asked, table.held_asked) == (DOI, [Exists(DOI)], [])


def test_results_matched_at_once_are_counted_in_the_answers_stats_as_results_asked_were(artifact):
    table = Held({}, {Exists(DOI): (True, 0)})
    matcher = held_matcher(artifact, table)

    async def twice():
        await matcher.match(DOI)
        await asyncio.sleep(0)  # one turn of the loop: the result is kept in this process's layer
        await matcher.match(DOI)

    run(twice())
    assert matcher.stats()["answers"] == {"hits": 1, "misses": 1, "errors": 0}
