"""The artifact the matcher reads (the domain-decision-structure), loaded once or held and reloaded while a service
runs: a new version exported beside it is picked up without dropping an input. Every read goes through
`read_decisions`, which raises the artifacts' one error (landing.core.publishing.artifact_format.ArtifactError)."""

import asyncio
import gzip
import logging
import zlib
from collections.abc import Callable
from pathlib import Path

from landing import clock
from landing.core.matching.decisions import Decisions
from landing.core.publishing.artifact_format import DECISIONS_JSON, ArtifactError

ARTIFACT = DECISIONS_JSON  # the one artifact the matcher reads
logger = logging.getLogger(__name__)


def read_decisions(path: Path) -> Decisions:
    """The decisions of the artifact at path: the one reader of the matcher's artifact; ArtifactError when it cannot
    be used."""
    try:  # an old version's file compressed by retention (`<file>.gz`, landing.artifacts) reads as well
        text = gzip.decompress(path.read_bytes()).decode("utf-8") if path.suffix == ".gz" else path.read_text("utf-8")
        return Decisions.read(text)
    except (ValueError, OSError, EOFError, zlib.error) as error:
        raise ArtifactError(path, str(error), f"cannot use {path} as a {ARTIFACT}: {error}") from None


def load_artifact(path, required: bool) -> tuple[Decisions, str | None]:
    """(decisions, warning): the artifact at path; a missing default artifact is a warning, not an error."""
    path = Path(path)
    if not path.exists():
        if required:
            raise ArtifactError(path, "missing", f"no artifact at {path}")
        return Decisions(), (
            f"no artifact at {path} (run the sampler first, or pass --artifact): domain-prefix verifications are off, "
            "and no URL is fetched unless the fetch policy is all (LANDING_MATCH_FETCH=all, scrapy match --fetch-all, "
            "the service's fetch=all)"
        )
    return read_decisions(path), None


class Held:
    """An artifact's decisions held as they were read: what a run of `scrapy match` matches every input with."""

    def __init__(self, decisions: Decisions):
        self.decisions = decisions

    @property
    def version(self) -> str:
        """The version answers name ("" without an artifact)."""
        return self.decisions.version


def _identity(path: Path):
    """What changes when the file is rewritten or replaced (os.replace: a new inode); None while it is missing."""
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_ino, found.st_mtime_ns, found.st_size)


class ArtifactHolder:
    """The artifact's current decisions, swapped whole when the file changes: whoever took `decisions` keeps the
    version it took (an input keeps the Setup it started with). A file that cannot be read keeps the old one."""

    def __init__(self, path, required: bool, trust: Callable[[Decisions], Decisions] = lambda d: d):
        """Loads the file now (ArtifactError when `required` and unusable); trust: the decisions the matcher may
        use of the file's (landing.config.trusted)."""
        self.path, self.trust = Path(path), trust
        self.seen = _identity(self.path)
        decisions, self.warning = load_artifact(self.path, required)
        self.decisions, self.loaded, self.reloads, self.failures = trust(decisions), clock.stamp(), 0, 0

    @property
    def version(self) -> str:
        """The version answers name now ("" without an artifact)."""
        return self.decisions.version

    async def check(self) -> bool:
        """Reload when the file changed since it was last read (parsed off the event loop); True when swapped."""
        seen = _identity(self.path)
        if seen is None or seen == self.seen:
            return False  # a file removed keeps the version already held: nothing newer replaced it
        self.seen = seen
        try:
            decisions = await asyncio.to_thread(self._read)
        except ArtifactError as error:  # half written by a writer that does not replace atomically
            self.failures += 1
            logger.warning(
                "artifact %s changed but cannot be read (%s): still answering with %s",
                self.path,
                error.what,
                self.version or "no artifact",
            )
            return False
        if decisions.version == self.version and self.version:
            return False  # the same content rewritten
        self.decisions, self.loaded, self.warning = decisions, clock.stamp(), None
        self.reloads += 1
        logger.info("artifact %s reloaded: now answering with %s", self.path, self.version)
        return True

    def _read(self) -> Decisions:
        return self.trust(read_decisions(self.path))

    async def watch(self, seconds: float, stopping: asyncio.Event) -> None:
        """check() every `seconds` until `stopping` is set."""
        while not stopping.is_set():
            try:
                await asyncio.wait_for(stopping.wait(), seconds)
            except TimeoutError:
                try:
                    await self.check()
                except Exception:  # a reload that failed oddly must not end the watching: the next look tries again
                    logger.exception("artifact %s: looking for a new version failed", self.path)
