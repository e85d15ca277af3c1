"""Packaging for Scrapyd: `scrapyd-deploy` builds the project's egg from this file (docs/scrapyd.md).

The egg carries the code only; its dependencies are installed in Scrapyd's environment
(`pip install -r requirements.txt`). A file under landing/ that is not a .py module (the Event JSON Schema) is
package_data, so that the egg and an installed package carry it (tests/test_scrapyd.py checks the egg holds them all).
landing_dev/ (the sandbox, the demo, the crawl runner, the local S3 server) is for development: find_packages leaves
it out; it and its `scrapy sandbox` command are the distribution landing-dev (dev/pyproject.toml), which `make`
installs editable into .venv and a Scrapyd node never installs.
"""

from setuptools import find_packages, setup

setup(
    name="landing",
    version="0.1",
    packages=find_packages(include=["landing", "landing.*"]),
    package_data={"landing": ["schemas/*.json"]},
    entry_points={"scrapy": ["settings = landing.settings"]},
    python_requires=">=3.11",
)
