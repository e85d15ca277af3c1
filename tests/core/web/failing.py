"""Pages and the landing-page corpus the failure classes are read from (tests/core/test_failures*.py)."""

from landing_dev.sandbox.corpus import FOLDER

CORPUS = FOLDER / "landing-pages"

HTML = "text/html; charset=utf-8"
ARTICLE_WORDS = " ".join(f"word{i}" for i in range(200))
