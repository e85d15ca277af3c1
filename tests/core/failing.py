"""Pages and the landing-page corpus the failure classes are read from (tests/core/test_failures*.py)."""

from pathlib import Path

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "landing-pages"

HTML = "text/html; charset=utf-8"
ARTICLE_WORDS = " ".join(f"word{i}" for i in range(200))
