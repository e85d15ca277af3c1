"""Python API: match URLs (or DOIs, PIIs) to DOIs from code, with the spider `scrapy match` runs.

    from landing.match.api import match
    results = match(["https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0160617"])

`match` runs Scrapy's Twisted reactor, which can run once per process: call it once with every input, or
run `scrapy match` as a subprocess from long-lived programs.
"""

from pathlib import Path

from scrapy import signals
from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings

from landing import config
from landing import settings as project_settings
from landing.config import trusted
from landing.core.artifacts import DECISIONS_JSON
from landing.core.decisions import Decisions
from landing.match.spider import MatcherSpider

ARTIFACT = DECISIONS_JSON  # the one artifact the matcher reads


class ArtifactError(ValueError):
    """The domain-decision-structure asked for cannot be used."""


def load_artifact(path, required: bool) -> tuple[Decisions, str | None]:
    """(decisions, warning): the artifact at path; a missing default artifact is a warning, not an error."""
    path = Path(path)
    if not path.exists():
        if required:
            raise ArtifactError(f"no artifact at {path}")
        return Decisions(), (
            f"no artifact at {path} (run the sampler first, or pass --artifact); domain-prefix verifications are off"
        )
    try:
        return Decisions.read(path.read_text(encoding="utf-8")), None
    except (ValueError, OSError) as error:
        raise ArtifactError(f"cannot use {path} as a {ARTIFACT}: {error}") from None


def match(inputs, settings: dict | None = None, artifact=None, fetch: bool = True) -> list[dict]:
    """One result per input, in order (see docs/matching.md "Output"); settings override the project's."""
    merged = Settings()
    merged.setmodule(project_settings)
    merged.update(settings or {})
    inputs = list(inputs)
    default = Path(config.of_settings(merged).artifacts_dir) / ARTIFACT
    decisions, _ = load_artifact(artifact or default, required=artifact is not None)
    decisions = trusted(decisions, merged)
    results: dict = {}

    def scraped(item, response=None, spider=None):
        results[item.pop("number")] = item

    process = CrawlerProcess(merged, install_root_handler=False)
    crawler = process.create_crawler(MatcherSpider)
    crawler.signals.connect(scraped, signal=signals.item_scraped)
    process.crawl(crawler, inputs=inputs, decisions=decisions, fetch=fetch)
    process.start()
    return [results.get(n) for n in range(len(inputs))]
