"""Worlds on disk: deterministic generation, errors that name file and line, and the `scrapy sandbox` command."""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.owners import PREFIX_MOST, more_prefixes
from landing_dev.sandbox.world import FORMAT, World, WorldError
from tests import forked
from tests.installed import node_packages
from tests.sandbox.client import get

PROJECT = Path(__file__).resolve().parents[2]
WORLD_FILES = ("world.json", "dois.jsonl", "routes.jsonl", "truth.jsonl")


def scrapy(*args, env=None):
    return forked.run([sys.executable, "-m", "scrapy", *args], PROJECT, os.environ if env is None else env, 120)


def files(directory):
    return {name: (Path(directory) / name).read_bytes() for name in WORLD_FILES}


# --- generation ---------------------------------------------------------------------------------------------


def test_generation_with_the_same_seed_writes_the_same_bytes(tmp_path):
    generate(tmp_path / "a", 150, seed=5)
    generate(tmp_path / "b", 150, seed=5)
    assert files(tmp_path / "a") == files(tmp_path / "b")


def test_generation_with_another_seed_writes_another_world(tmp_path):
    generate(tmp_path / "a", 150, seed=5)
    generate(tmp_path / "b", 150, seed=6)
    assert files(tmp_path / "a")["dois.jsonl"] != files(tmp_path / "b")["dois.jsonl"]


def test_generated_world_has_the_asked_number_of_dois_each_with_a_truth_line(tmp_path):
    generate(tmp_path, 150, seed=5)
    dois = [json.loads(line)["doi"].lower() for line in open(tmp_path / "dois.jsonl")]
    truth = [json.loads(line)["doi"] for line in open(tmp_path / "truth.jsonl")]
    assert len(dois) == 150
    assert truth == dois


def test_sites_spread_each_owners_pages_over_that_many_hosts_of_its_own_and_change_nothing_else(tmp_path):
    generate(tmp_path / "one", 300, seed=5, only=["direct"])
    generate(tmp_path / "three", 300, seed=5, only=["direct"], sites=3)

    def hosts(name):
        found = {}
        for line in open(tmp_path / name / "truth.jsonl"):
            record = json.loads(line)
            found.setdefault(record["member_id"], set()).add(record["final_domain"])
        return found

    one, three = hosts("one"), hosts("three")
    assert {len(h) for h in one.values()} == {1}
    assert {len(h) for h in three.values()} == {3}
    assert all(one[owner] < three[owner] for owner in one)  # the first site keeps its name
    strip = [json.loads(line) | {"url": None, "landing_url": None} for line in open(tmp_path / "three" / "dois.jsonl")]
    assert strip == [
        json.loads(line) | {"url": None, "landing_url": None} for line in open(tmp_path / "one" / "dois.jsonl")
    ]


def test_a_large_owner_holds_dozens_of_prefixes_the_last_with_a_handful_of_dois():
    owners = [{"prefixes": ["10.1000"]}, {"prefixes": ["10.1001", "10.1002"]}, {"prefixes": ["10.1003"]}]
    more_prefixes(random.Random(1), owners, [13_000, 1_000, 100], {"10.1000", "10.1001", "10.1002", "10.1003"})
    assert [len(o["prefixes"] + o["more"]) for o in owners] == [PREFIX_MOST, 8, 1]
    share = owners[0]["weights"][-1] / sum(owners[0]["weights"])
    assert 1 <= share * 13_000 <= 10  # the last of 48 prefixes: a handful of the owner's 13,000 DOIs


def test_generated_dois_fall_under_every_prefix_their_owner_lists(tmp_path):
    generate(tmp_path, 3000, seed=1)
    world = json.loads((tmp_path / "world.json").read_text())
    used = {json.loads(line)["doi"].partition("/")[0] for line in open(tmp_path / "dois.jsonl")}
    listed = [p for owner in world["members"] + world["clients"] for p in owner["prefixes"]]
    assert max(len(owner["prefixes"]) for owner in world["members"]) >= 5 and set(listed) == used


def test_generate_rejects_an_unknown_scenario(tmp_path):
    with pytest.raises(ValueError, match="no-such-scenario"):
        generate(tmp_path, 10, only=["no-such-scenario"])


# --- hand-written worlds with errors -------------------------------------------------------------------------

MEMBER = {"id": "1", "primary-name": "One Press"}


def write_world(directory, dois, routes=None, members=(MEMBER,)):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "world.json").write_text(json.dumps({"format": FORMAT, "members": list(members), "clients": []}))
    (directory / "dois.jsonl").write_text("".join((d if isinstance(d, str) else json.dumps(d)) + "\n" for d in dois))
    if routes is not None:
        (directory / "routes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in routes))
    return directory


def doi(n, **extra):
    return {"doi": f"10.1234/Work.{n}", "ra": "crossref", "member": "1", "url": f"https://site.example/{n}", **extra}


def open_world(directory):
    World(directory).close()


def test_hand_written_world_opens_and_resolves(tmp_path):
    world = World(write_world(tmp_path, [doi(1), doi(2)], [{"url": "https://site.example/1", "body": "hi"}]))
    try:
        assert world.doi("10.1234/WORK.2")["url"] == "https://site.example/2"
        assert world.route("https://site.example/1?utm_source=x")["body"] == "hi"
    finally:
        world.close()


def test_bad_json_line_is_a_world_error_naming_file_and_line(tmp_path):
    directory = write_world(tmp_path, [doi(1), doi(2), '{"doi": "10.1234/broken",', doi(4)])
    with pytest.raises(WorldError, match=r"dois\.jsonl:3: not JSON"):
        open_world(directory)


def test_unknown_member_is_a_world_error_naming_file_and_line(tmp_path):
    directory = write_world(tmp_path, [doi(1), doi(2, member="99")])
    with pytest.raises(WorldError, match=r"dois\.jsonl:2: member '99' is not declared in world\.json"):
        open_world(directory)


def test_duplicate_doi_differing_only_in_case_is_a_world_error_naming_file_and_line(tmp_path):
    twin = {**doi(1), "doi": "10.1234/WORK.1"}
    directory = write_world(tmp_path, [doi(1), doi(2), twin])
    with pytest.raises(WorldError, match=r"dois\.jsonl:3: DOI '10\.1234/WORK\.1' is listed twice, first at line 1"):
        open_world(directory)


def test_doi_without_a_url_is_a_world_error_naming_file_and_line(tmp_path):
    directory = write_world(tmp_path, [doi(1), {k: v for k, v in doi(2).items() if k != "url"}])
    with pytest.raises(WorldError, match=r"dois\.jsonl:2: 'url'"):
        open_world(directory)


def test_relative_route_url_is_a_world_error_naming_file_and_line(tmp_path):
    directory = write_world(tmp_path, [doi(1)], [{"url": "https://site.example/1"}, {"url": "/relative"}])
    with pytest.raises(WorldError, match=r"routes\.jsonl:2: 'url' must be an absolute URL"):
        open_world(directory)


def test_world_json_of_another_format_is_a_world_error_naming_the_file(tmp_path):
    directory = write_world(tmp_path, [doi(1)])
    (directory / "world.json").write_text(json.dumps({"format": "something-else/9"}))
    with pytest.raises(WorldError, match=r"world\.json: format must be"):
        open_world(directory)


def test_directory_without_world_json_is_a_world_error(tmp_path):
    with pytest.raises(WorldError, match="no world.json"):
        open_world(tmp_path)


# --- the scrapy sandbox command --------------------------------------------------------------------------------


def test_cli_generate_exits_0_and_writes_the_four_files(tmp_path):
    out = tmp_path / "world"
    done = scrapy("sandbox", "generate", str(out), "--dois", "50", "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert all((out / name).stat().st_size > 0 for name in WORLD_FILES)
    assert sum(1 for _ in open(out / "dois.jsonl")) == 50


def test_cli_generate_writes_the_same_bytes_as_generate_in_another_process(tmp_path):
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    assert scrapy("sandbox", "generate", str(tmp_path / "cli"), "--dois", "50", "--seed", "3", env=env).returncode == 0
    generate(tmp_path / "here", 50, seed=3)
    assert files(tmp_path / "cli") == files(tmp_path / "here")


@pytest.fixture(scope="module")
def small_world(tmp_path_factory):
    directory = tmp_path_factory.mktemp("small")
    generate(directory, 30, seed=3)
    return directory


def test_cli_serve_prints_the_proxy_url_first_and_answers_through_it(small_world):
    server = subprocess.Popen(
        [sys.executable, "-m", "scrapy", "sandbox", "serve", str(small_world), "--port", "0"],
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        proxy = server.stdout.readline().strip()
        assert proxy.startswith("http://127.0.0.1:")
        assert int(proxy.rsplit(":", 1)[1]) > 0
        response = get(proxy, "http://api.crossref.org/members?rows=1", timeout=10)
        assert response.status == 200
        assert json.loads(response.body)["status"] == "ok"
    finally:
        server.terminate()
        server.communicate(timeout=10)


@pytest.mark.parametrize(
    "args, message",
    [
        (("sandbox",), "expected:"),
        (("sandbox", "frobnicate", "x"), "expected:"),
        (("sandbox", "generate", "{tmp}/w"), "generate needs --dois N"),
        (("sandbox", "generate", "{tmp}/w", "--dois", "5", "--scenarios", "no-such-scenario"), "unknown scenario"),
        (("sandbox", "generate", "{tmp}/w", "--dois", "0"), "at least one DOI"),
        (("sandbox", "serve", "{tmp}/nowhere"), "no world.json"),
        (("sandbox", "truth", "{tmp}/nowhere"), "no world.json"),
    ],
    ids=[
        "no-subcommand",
        "unknown-subcommand",
        "generate-without-dois",
        "unknown-scenario",
        "zero-dois",
        "serve-missing-world",
        "truth-missing-world",
    ],
)
def test_cli_bad_usage_exits_nonzero_with_a_clear_message_and_no_traceback(tmp_path, args, message):
    done = scrapy(*(a.format(tmp=tmp_path) for a in args))
    assert done.returncode != 0
    assert message in done.stderr + done.stdout
    assert "Traceback" not in done.stderr + done.stdout


def test_cli_sandbox_is_a_command_where_landing_dev_is_and_only_there(tmp_path):
    (tmp_path / "landing").symlink_to(PROJECT / "landing")  # the project's package alone, as a Scrapyd egg has it
    node = node_packages(tmp_path)["PYTHONPATH"]  # the .venv's packages less landing-dev, as a node has them
    alone = {**os.environ, "PYTHONPATH": f"{tmp_path}:{node}", "SCRAPY_SETTINGS_MODULE": "landing.settings"}
    without = subprocess.run(
        [sys.executable, "-S", "-m", "scrapy"], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=alone
    )
    commands = [line.split()[0] for line in scrapy().stdout.splitlines() if line.startswith("  ") and line.strip()]
    assert "sandbox" in commands and "match" in commands
    assert "  match " in without.stdout and "sandbox" not in without.stdout, without.stdout + without.stderr


def test_malformed_doi_is_a_world_error_naming_file_and_line(tmp_path):
    directory = write_world(tmp_path, [doi(1), {**doi(2), "doi": "10.1/short-prefix"}])
    with pytest.raises(WorldError, match=r"dois\.jsonl:2: 'doi' must look like"):
        open_world(directory)


def test_missing_body_file_is_a_world_error_naming_file_and_line(tmp_path):
    directory = write_world(tmp_path, [doi(1)], [{"url": "https://site.example/1", "body_file": "pages/gone.html"}])
    with pytest.raises(WorldError, match=r"routes\.jsonl:1: body_file 'pages/gone.html' does not exist"):
        open_world(directory)


def test_prefix_sample_draws_only_from_the_asked_registry(tmp_path):
    client = {"id": "repo.one", "name": "Repo", "prefixes": ["10.1234"]}
    directory = write_world(
        tmp_path,
        [doi(n) for n in range(5)]
        + [
            {"doi": f"10.1234/data.{n}", "ra": "datacite", "client": "repo.one", "url": f"https://repo.example/{n}"}
            for n in range(5)
        ],
    )
    (directory / "world.json").write_text(json.dumps({"format": FORMAT, "members": [MEMBER], "clients": [client]}))
    world = World(directory)
    try:
        import random

        drawn = world.sample(random.Random(1), "crossref", prefix="10.1234", n=10)
        assert sorted(r["doi"] for r in drawn) == [f"10.1234/Work.{n}" for n in range(5)]
    finally:
        world.close()


def test_pii_is_returned_as_written_and_found_in_either_form(tmp_path):
    world = World(write_world(tmp_path, [doi(1, pii="S0169-5347(01)02380-1")]))
    try:
        assert [r["pii"] for r in world.by_pii("S0169534701023801")] == ["S0169-5347(01)02380-1"]
    finally:
        world.close()


def test_truth_command_rewrites_a_generated_world_unchanged(tmp_path):
    generate(tmp_path, 120, seed=4)
    before = (tmp_path / "truth.jsonl").read_bytes()
    assert scrapy("sandbox", "truth", str(tmp_path)).returncode == 0
    assert (tmp_path / "truth.jsonl").read_bytes() == before
