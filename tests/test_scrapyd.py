"""Scrapyd end to end: a real Scrapyd, the project deployed with scrapyd-deploy, doi_sampler scheduled on a sandbox.

Scrapyd runs from the .venv (so its jobs import the same dependencies) in a temporary directory with its own
scrapyd.conf. The egg is built by `scrapyd-deploy` from a temporary copy of the project (landing/, landing_dev/, setup.py,
pyproject.toml and the repo's scrapy.cfg with a [deploy:test] target added), so the build leaves nothing in the repo.
The .venv also holds the development tools (landing-dev, dev/pyproject.toml), which a node does not: what a node's
jobs know is asked of Scrapyd's runner in the .venv less that distribution.
"""

import configparser
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from landing.core.sampling.sample_sizes import budget, sample_size
from landing.settings import LANDING_SAMPLE_MIN_PER_PREFIX
from landing.stores import open_docs
from tests.installed import DEV, node_packages
from tests.sampler.crawling import PROJECT, truth_of

BIN = Path(sys.executable).parent
SAMPLE_MIN, SAMPLE_MAX = 2, 10
ARTIFACTS = ("prefixes-domains.csv", "prefixes-domains-bad.csv", "domain-decision-structure.json")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(what: str, check, seconds: float, interval: float = 0.1, detail=lambda: ""):
    """Poll `check` until it returns something truthy; fail after `seconds`, saying what `detail()` says."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(interval)
    pytest.fail(f"timed out after {seconds:.0f} s waiting for {what}\n{detail()}")


class Scrapyd:
    """A Scrapyd process on a free port, all its directories under `root`."""

    def __init__(self, root: Path):
        self.root = root
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.logs = root / "logs"
        self.eggs = root / "eggs"
        (root / "home").mkdir()
        (root / "scrapyd.conf").write_text(
            "[scrapyd]\n"
            "bind_address = 127.0.0.1\n"
            f"http_port = {self.port}\n"
            f"eggs_dir = {self.eggs}\n"
            f"logs_dir = {self.logs}\n"
            f"dbs_dir = {root / 'dbs'}\n"
            "items_dir =\n"
            "max_proc = 1\n"
            "poll_interval = 0.2\n"
        )
        self.output = root / "scrapyd.out"
        with open(self.output, "wb") as out:
            # cwd: Scrapyd and its runner read ./scrapyd.conf.
            self.process = subprocess.Popen(
                [str(BIN / "scrapyd")], cwd=root, stdout=out, stderr=subprocess.STDOUT, env=_env(root / "home")
            )

    def log(self) -> str:
        return self.output.read_text(errors="replace")

    def get(self, endpoint: str, **params) -> dict:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        # listspiders.json starts a runner process: slow on a loaded machine, a failure only past a minute.
        with urllib.request.urlopen(f"{self.url}{endpoint}{query}", timeout=60) as response:
            return json.load(response)

    def post(self, endpoint: str, fields: list[tuple[str, str]]) -> dict:
        data = urllib.parse.urlencode(fields).encode()
        with urllib.request.urlopen(f"{self.url}{endpoint}", data=data, timeout=60) as response:
            return json.load(response)

    def wait_ready(self, seconds: float = 30):
        def answered():
            if self.process.poll() is not None:
                pytest.fail(f"scrapyd exited with {self.process.returncode}:\n{self.log()[-3000:]}")
            try:
                return self.get("daemonstatus.json").get("status") == "ok"
            except OSError:
                return False

        _wait("scrapyd's daemonstatus.json", answered, seconds)

    def schedule(self, spider: str, settings: dict) -> str:
        fields = [("project", "landing"), ("spider", spider)]
        fields += [("setting", f"{name}={value}") for name, value in settings.items()]
        answer = self.post("schedule.json", fields)
        assert answer["status"] == "ok", answer
        return answer["jobid"]

    def wait_finished(self, job: str, seconds: float = 120):
        def finished():
            jobs = self.get("listjobs.json", project="landing")
            return any(j["id"] == job for j in jobs["finished"])

        _wait(f"job {job} to finish", finished, seconds, interval=0.2, detail=lambda: self.log()[-3000:])

    def job_log(self, spider: str, job: str) -> Path:
        return self.logs / "landing" / spider / f"{job}.log"

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


def _env(home: Path) -> dict:
    env = {**os.environ, "HOME": str(home)}  # no ~/.scrapyd.conf or ~/.scrapy.cfg of the user's overrides ours
    env.pop("SCRAPY_SETTINGS_MODULE", None)  # the egg names its own settings module
    env.pop("XDG_CONFIG_HOME", None)
    # Scrapy's CookiesMiddleware asks tldextract for the Public Suffix List; with a fresh cache (this HOME) it
    # would try publicsuffix.org and log tracebacks when offline. An empty URL list uses its bundled copy.
    env["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""
    return env


@pytest.fixture(scope="module")
def scrapyd(tmp_path_factory):
    server = Scrapyd(tmp_path_factory.mktemp("scrapyd"))
    try:
        server.wait_ready()
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def deployed(scrapyd, tmp_path_factory):
    """The project deployed with `scrapyd-deploy test` from a copy; (the egg Scrapyd stored, deploy output)."""
    copy = tmp_path_factory.mktemp("project")
    # The checkout a user deploys from has both packages.
    for package in ("landing", DEV):
        shutil.copytree(PROJECT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("setup.py", "pyproject.toml"):  # pyproject.toml holds tool configuration only: the build is setup.py's
        shutil.copy(PROJECT / name, copy)
    config = (PROJECT / "scrapy.cfg").read_text()
    (copy / "scrapy.cfg").write_text(f"{config}\n[deploy:test]\nurl = {scrapyd.url}\n")  # project from [deploy]
    done = subprocess.run(
        [str(BIN / "scrapyd-deploy"), "test", "--version", "1"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(scrapyd.root / "home"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    answer = json.loads(done.stdout)
    assert answer["status"] == "ok" and answer["project"] == "landing" and answer["spiders"] >= 1, answer
    eggs = list((scrapyd.eggs / "landing").glob("*.egg"))
    assert len(eggs) == 1, eggs
    return eggs[0], done


def test_the_repo_deploys_to_a_local_scrapyd_by_default():
    config = configparser.ConfigParser()
    config.read(PROJECT / "scrapy.cfg")
    assert dict(config["deploy"]) == {"url": "http://localhost:6800/", "project": "landing"}


def test_the_egg_holds_every_file_of_the_landing_package_and_names_the_settings(deployed):
    egg, _ = deployed
    with zipfile.ZipFile(egg) as archive:
        names = set(archive.namelist())
        entry_points = archive.read("EGG-INFO/entry_points.txt").decode()
        info = archive.read("EGG-INFO/PKG-INFO").decode()
    wanted = {
        path.relative_to(PROJECT).as_posix()
        for path in (PROJECT / "landing").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }
    assert wanted - names == set(), "files under landing/ missing from the egg (package_data in setup.py?)"
    assert "[scrapy]\nsettings = landing.settings" in entry_points
    assert sorted({name.split("/")[0] for name in names}) == ["EGG-INFO", "landing"]  # no sandbox, demo, local S3
    assert "\nName: landing\n" in info  # built from the repo's setup.py, not one scrapyd-deploy wrote ("project")


def test_the_egg_carries_no_sandbox_command_and_registers_no_command(deployed):
    egg, _ = deployed
    with zipfile.ZipFile(egg) as archive:
        names = set(archive.namelist())
        entry_points = archive.read("EGG-INFO/entry_points.txt").decode()
    assert [name for name in names if "sandbox" in name or DEV in name] == []
    assert "scrapy.commands" not in entry_points


def test_scrapyds_runner_knows_no_sandbox_command(scrapyd, deployed):
    # The runner Scrapyd starts each job with: the egg activated, then Scrapy's command line; run with the node's
    # packages only (-S: not the .venv's site-packages; PYTHONPATH: the node's).
    node = {**node_packages(scrapyd.root), "SCRAPY_PROJECT": "landing"}
    done = subprocess.run(
        [sys.executable, "-S", "-m", "scrapyd.runner", "sandbox", "generate", "world", "--dois", "5"],
        cwd=scrapyd.root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**_env(scrapyd.root / "home"), **node},
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Unknown command: sandbox" in done.stdout, done.stdout + done.stderr
    assert not (scrapyd.root / "world").exists()


def test_jobs_can_only_import_the_project_from_the_egg(scrapyd):
    # Scrapyd's runner appends the egg to sys.path: a `landing` importable without it (an installed copy, a
    # checkout as working directory, PYTHONPATH) would shadow the deployed code, and this test would prove nothing.
    done = subprocess.run(
        [sys.executable, "-c", "import landing"],
        cwd=scrapyd.root,
        capture_output=True,
        text=True,
        env=_env(scrapyd.root / "home"),
    )
    assert "No module named 'landing'" in done.stderr


def test_scrapyd_lists_the_spiders_from_the_egg(scrapyd, deployed):
    spiders = scrapyd.get("listspiders.json", project="landing")
    assert "doi_sampler" in spiders["spiders"]


def test_a_scheduled_crawl_fills_the_stores_and_exports_artifacts(
    scrapyd, deployed, small_world, small_sandbox, tmp_path
):
    settings = {
        "LANDING_SANDBOX": small_sandbox.proxy,
        "LANDING_DOCS": f"sqlite:///{tmp_path / 'landing.db'}",
        "LANDING_BLOBS": f"file://{tmp_path / 'blobs'}",
        "LANDING_ARTIFACTS_DIR": str(tmp_path / "artifacts"),
        "LANDING_SAMPLE_MIN": SAMPLE_MIN,
        "LANDING_SAMPLE_MAX": SAMPLE_MAX,
        "LANDING_PROGRESS_INTERVAL": 1,
        "TELNETCONSOLE_ENABLED": False,
    }
    job = scrapyd.schedule("doi_sampler", settings)
    scrapyd.wait_finished(job)

    assert f"Process finished: project='landing' spider='doi_sampler' job='{job}'" in scrapyd.log(), scrapyd.log()[
        -3000:
    ]  # exit status 0; "Process died: exitstatus=N" otherwise
    log = scrapyd.job_log("doi_sampler", job).read_text()
    assert "Traceback" not in log, log[-3000:]
    assert [line for line in log.splitlines() if "] ERROR: " in line] == []
    assert "'finish_reason': 'finished'" in log, log[-3000:]

    truth = truth_of(small_world)
    with open_docs(settings["LANDING_DOCS"]) as docs:
        pids = list(docs.scan("pid"))
        snapshots = [d["pid/doi"] for d in docs.scan("snapshot")]
        analyses = [d["pid/doi"] for d in docs.scan("analysis")]
    sampled = [p["pid/doi"] for p in pids]
    assert sampled and set(sampled) <= set(truth)
    assert sorted(snapshots) == sorted(analyses) == sorted(sampled)  # every sampled DOI visited once, analysed once

    # As many DOIs per owner as the sampling rule gives for the world's owners (each agency scaled to its largest,
    # raised to the floor of each prefix it lists).
    owners = Counter((t["ra"], t["member_id"]) for t in truth.values())
    largest = {ra: max(n for (r, _), n in owners.items() if r == ra) for ra, _ in owners}
    world = json.loads((small_world / "world.json").read_text())
    listed = {
        **{("crossref", m["id"]): len(m["prefixes"]) for m in world["members"]},
        **{("datacite", c["id"]): len(c["prefixes"]) for c in world["clients"]},
    }
    expected = {
        owner: budget(
            sample_size(n, largest[owner[0]], SAMPLE_MIN, SAMPLE_MAX), listed[owner], LANDING_SAMPLE_MIN_PER_PREFIX, n
        )
        for owner, n in owners.items()
    }
    assert Counter((p["pid/ra"], p["pid/member-id"]) for p in pids) == expected

    artifacts = tmp_path / "artifacts"
    assert {name for name in ARTIFACTS if (artifacts / name).is_file()} == set(ARTIFACTS)
    assert json.loads((artifacts / "domain-decision-structure.json").read_text())["domains"]
    assert any((tmp_path / "blobs").rglob("*"))


def test_the_project_crawl_command_checks_settings_under_scrapyd_too(scrapyd, deployed, tmp_path):
    # landing.commands.crawl replaces Scrapy's: Scrapyd's runner must reach it through the egg's settings.
    job = scrapyd.schedule(
        "doi_sampler", {"LANDING_DOCS": f"sqlite:///{tmp_path / 'landing.db'}", "LANDING_SAMPLE_MAX": "lots"}
    )
    scrapyd.wait_finished(job)
    output = scrapyd.log()
    assert "LANDING_SAMPLE_MAX='lots' is not a number" in output
    assert f"Process died: exitstatus=2 project='landing' spider='doi_sampler' job='{job}'" in output


def test_a_cancelled_continuous_job_exports_a_last_version(scrapyd, deployed, small_sandbox, tmp_path):
    # A simulated day in 3 real seconds: the first round is visited and exported within seconds.
    artifacts = tmp_path / "artifacts"
    settings = {
        "LANDING_SANDBOX": small_sandbox.proxy,
        "LANDING_DOCS": f"sqlite:///{tmp_path / 'landing.db'}",
        "LANDING_BLOBS": f"file://{tmp_path / 'blobs'}",
        "LANDING_ARTIFACTS_DIR": str(artifacts),
        "LANDING_EXPORT_REPORT": False,
        "LANDING_DRIVER": "http",
        "LANDING_SAMPLE_MIN": SAMPLE_MIN,
        "LANDING_SAMPLE_MAX": SAMPLE_MAX,
        "LANDING_CONTINUOUS": True,
        "LANDING_CLOCK": "2026-11-01T00:00:00Z",
        "LANDING_CLOCK_SPEED": 28800,
        "LANDING_CLOCK_SINCE": time.time(),
        "LANDING_REFRESH_DAYS": 1,
        "TUNING_RECHECK_DAYS": 0.5,
        "TELNETCONSOLE_ENABLED": False,
    }
    job = scrapyd.schedule("doi_sampler", settings)
    log = scrapyd.job_log("doi_sampler", job)

    def versions():
        return sorted(p.name for p in (artifacts / "versions").glob("*")) if (artifacts / "versions").is_dir() else []

    before = _wait("a first version", versions, 60, detail=lambda: log.read_text()[-3000:] if log.exists() else "")
    answer = scrapyd.post("cancel.json", [("project", "landing"), ("job", job)])
    assert answer["status"] == "ok", answer
    scrapyd.wait_finished(job)

    text = log.read_text()
    assert "SIGINT: continuous mode exports a last version before it stops" in text, text[-3000:]
    after = versions()
    assert after[: len(before)] == before and len(after) > len(before)  # the cadence may export one on the way
    assert f"Artifacts exported to {artifacts}/versions/{after[-1]} " in text.split("exports a last version")[1]
