"""`make sandbox-demo`: build a sandbox world, serve it, walk some DOIs through it, report."""

import asyncio
import collections
import json
import sys
import threading
import urllib.request
from pathlib import Path

from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.server import SandboxServer
from landing_dev.sandbox.world import World

WORLD = Path("data/world")
DOIS = 2000


def _get(proxy: str, url: str):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": proxy}))
    with opener.open(url, timeout=30) as response:
        return json.loads(response.read())


def main():
    print(f"demo: generating a {DOIS:,}-DOI world in {WORLD}/ ...", flush=True)
    stats = generate(WORLD, DOIS, seed=42)
    print(f"demo: {stats['members']} Crossref members, {stats['clients']} DataCite clients, {stats['hosts']} sites")
    world = World(WORLD)
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    server = SandboxServer(world)
    port = asyncio.run_coroutine_threadsafe(server.start(), loop).result(10)
    proxy = f"http://127.0.0.1:{port}"
    members = _get(proxy, "http://api.crossref.org/members?rows=3")["message"]
    print(
        f"demo: Crossref API through the proxy: {members['total-results']} members, first "
        f"{members['items'][0]['primary-name']!r} with {members['items'][0]['counts']['total-dois']} DOIs"
    )
    sample = _get(proxy, f"http://api.crossref.org/works?sample=5&filter=member:{members['items'][0]['id']}&select=DOI")
    print("demo: a sample of its works:", ", ".join(i["DOI"] for i in sample["message"]["items"]))
    truth = [json.loads(line) for line in open(WORLD / "truth.jsonl")]
    print("demo: what a plain HTTP client meets (truth.jsonl 'error'):")
    for error, count in collections.Counter(str(t["error"]) for t in truth).most_common():
        print(f"  {error:20} {count:6,}")
    print(f"demo: world files in {WORLD}/: world.json dois.jsonl routes.jsonl truth.jsonl")
    print(f"demo: serve it yourself with: .venv/bin/scrapy sandbox serve {WORLD} --port 8700")
    asyncio.run_coroutine_threadsafe(server.close(), loop).result(10)
    world.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
