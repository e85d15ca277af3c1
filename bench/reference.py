"""The reference a crawl is measured against: plain asyncio + aiohttp + lxml visiting the same DOIs through the same
sandbox at the crawl's concurrency, following Location hops by hand (at most 10) and parsing meta tags. No
robots.txt, retries, cookies or stores: what the machine and the sandbox allow."""

import asyncio
import resource
import time

import aiohttp
import lxml.etree
import lxml.html
from yarl import URL

from landing_dev.runner import SandboxProcess

REDIRECTS = (301, 302, 303, 307, 308)


async def visit(session, proxy: str, doi: str, tally: dict):
    url = URL(f"https://doi.org/{doi}")
    for hop in range(11):
        async with session.get(url, proxy=proxy, allow_redirects=False) as reply:
            tally["requests"] += 1
            location = reply.headers.get("Location")
            if reply.status in REDIRECTS and location and hop < 10:
                url = url.join(URL(location))
                continue
            body = await reply.read()
            if reply.headers.get("Content-Type", "").startswith("text/html") and body:
                page = lxml.html.document_fromstring(body)
                tally["meta"] += len(page.xpath("//meta[@name or @property]"))
            tally[reply.status] = tally.get(reply.status, 0) + 1
            return


async def reference(proxy: str, dois: list[str], concurrency: int) -> dict:
    tally = {"requests": 0, "meta": 0, "failed": 0}
    queue = iter(dois)

    async def worker(session):
        for doi in queue:
            try:
                await visit(session, proxy, doi, tally)
            except (TimeoutError, aiohttp.ClientError, ValueError, lxml.etree.LxmlError):
                tally["failed"] += 1

    connector = aiohttp.TCPConnector(limit=concurrency, ssl=False)  # the sandbox's certificate is self-signed
    async with aiohttp.ClientSession(
        connector=connector, cookie_jar=aiohttp.DummyCookieJar(), timeout=aiohttp.ClientTimeout(total=30)
    ) as session:
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
    return tally


def run_reference(proxy: str, dois: list[str], concurrency: int, server: SandboxProcess) -> dict:
    server_cpu, own = server.cpu(), resource.getrusage(resource.RUSAGE_SELF)
    started = time.monotonic()
    tally = asyncio.run(reference(proxy, dois, concurrency))
    seconds, after = time.monotonic() - started, resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - own.ru_utime - own.ru_stime
    return {"seconds": seconds, "tally": tally, "cpu": cpu, "server_cpu": server.cpu() - server_cpu}


def report_reference(ref: dict, n: int, concurrency: int, steady, quiet=False):
    tally, rate = ref["tally"], n / ref["seconds"]
    if quiet:  # printed once already: only the ratio
        print(f"crawl/reference: {steady['late'] / rate:.2f}")
        return
    statuses = ", ".join(f"{k}:{v}" for k, v in sorted((k, v) for k, v in tally.items() if isinstance(k, int)))
    print(
        f"reference (aiohttp + lxml, concurrency {concurrency}): {n:,} DOIs in {ref['seconds']:.0f} s, "
        f"{rate:.1f} DOIs/s, {tally['requests'] / ref['seconds']:.1f} requests/s, {tally['requests'] / n:.2f} "
        f"requests/DOI; final statuses {statuses}; {tally['failed']} failed"
    )
    print(
        f"  client CPU {ref['cpu']:.0f} s = {ref['cpu'] * 1000 / n:.1f} ms per DOI; sandbox server CPU "
        f"{ref['server_cpu']:.0f} s ({ref['server_cpu'] / ref['seconds']:.0%} of one core)"
    )
    if steady:
        print(f"crawl/reference: {steady['late'] / rate:.2f} (the crawl's last-half rate over the reference's)")
