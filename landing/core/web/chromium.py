"""Which Chromium the browser driver runs when LANDING_CHROMIUM is not set: the default is decided here, once.

>>> default_chromium(lambda path: path == CHROMIUM)
'/usr/bin/chromium'
"""

from collections.abc import Callable

# Debian's build of the old headless mode (what Playwright itself runs headless) first: on the same pages, with the
# same arguments, it reads what the full browser's new headless mode reads for a fraction of its CPU per visit
# (bench/README.md, "browser_visit_cost.py"), and CPU is what the browser visits of a crawl are bound by.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = "/usr/bin/chromium"


def default_chromium(executable: Callable[[str], bool]) -> str:
    """The headless shell where `executable` says it runs, else Chromium (whose absence auto and browser report)."""
    return next((path for path in (HEADLESS_SHELL, CHROMIUM) if executable(path)), CHROMIUM)
