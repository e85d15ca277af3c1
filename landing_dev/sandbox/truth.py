"""Ground truth: walk every DOI of a world through the router as three reference clients would.

- http: a polite plain HTTP client: no cookies kept, follows HTTP redirects (at most 20) and meta refresh,
  runs no JavaScript, obeys robots.txt, retries 429, 500, 502, 503 and 504 twice.
- cookies: the same client keeping one cookie jar for the DOI's whole chain.
- browser: cookies kept, JavaScript run (redirects and challenges), robots.txt not consulted.
All three accept at most 2 MiB of body.
"""

import json
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from protego import Protego

from landing_dev.sandbox.analysis_truth import page_truth
from landing_dev.sandbox.http import Request
from landing_dev.sandbox.web import State, respond
from landing_dev.sandbox.world import World

MAX_REDIRECTS = 20
MAX_BYTES = 2 * 1024 * 1024
RETRY_STATUSES = (429, 500, 502, 503, 504)
RETRIES = 2


@dataclass(frozen=True)
class Client:
    cookies: bool
    js: bool
    robots: bool


HTTP, COOKIES, BROWSER = Client(False, False, True), Client(True, False, True), Client(True, True, False)


def _allowed(world, url, cache) -> bool:
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    if origin not in cache:
        reply = respond(world, Request("GET", origin + "/robots.txt"), State(0, dry=False))
        cache[origin] = Protego.parse(reply.body.decode("utf-8", "replace")) if reply.status == 200 else None
    rules = cache[origin]
    return rules is None or rules.can_fetch(url, "*")


def _size(world, route) -> int:
    page = route.get("page") or {}
    if "body_file" in route:
        path = world.directory / route["body_file"]
        return path.stat().st_size if path.exists() else 0
    return max(page.get("pad_to", 0), len(route.get("body", "")))


def walk(world, url: str, client: Client, robots_cache=None) -> dict:
    """Follow url as client does; return the chain, where it ended and why it failed (if it did)."""
    state, jar, chain, retried = State(0, dry=True), {}, [], []
    robots_cache = {} if robots_cache is None else robots_cache
    redirects, attempts, delay = 0, 0, 0
    result = {"error": None, "final_url": None, "final_status": None, "route": None}
    while True:
        if client.robots and not _allowed(world, url, robots_cache):
            result["error"] = "robots"
            break
        cookie = "; ".join(f"{k}={v}" for k, v in jar.items())
        reply = respond(world, Request("GET", url, {"cookie": cookie} if cookie else {}), state)
        if client.cookies:
            for name, value in reply.headers:
                if name.lower() == "set-cookie":
                    key, _, val = value.split(";", 1)[0].partition("=")
                    jar[key.strip()] = val.strip()
        if reply.status in RETRY_STATUSES and attempts < RETRIES:
            attempts += 1
            retried.append(reply.status)
            continue
        attempts = 0
        delay = max(delay, reply.delay_ms)
        chain.append({"url": url, "status": reply.status})
        route = reply.route or {}
        page = route.get("page") or {}
        nxt = None
        if 300 <= reply.status < 400 and reply.header("Location"):
            nxt = urljoin(url, reply.header("Location"))
        elif page.get("meta_refresh"):
            nxt = urljoin(url, page["meta_refresh"])
        elif client.js and (page.get("js_redirect") or page.get("js_computed")):
            nxt = urljoin(url, page.get("js_redirect") or page.get("js_computed"))
        elif client.js and page.get("challenge"):
            key, _, val = page["challenge"].partition("=")
            jar[key] = val
            nxt = url
        if nxt is not None:
            redirects += 1
            if redirects > MAX_REDIRECTS:
                seen = [hop["url"] for hop in chain]
                result["error"] = "redirect-loop" if len(set(seen)) < len(seen) else "too-many-redirects"
                break
            url = nxt
            continue
        result["error"] = _failure(world, reply, route, page)
        if result["error"] is None:
            result["final_url"], result["final_status"], result["route"] = url, reply.status, route
        break
    end = chain[-1] if chain else {"url": url, "status": None}
    return {
        **result,
        "end_url": end["url"] if chain else url,
        "end_status": end["status"],
        "urls": chain,
        "retried": retried,
        "delay_ms": delay,
    }


def _failure(world, reply, route, page):
    role = route.get("role", "landing")
    if role == "challenge":
        return "challenge"
    if role == "cookie-absent":
        return "cookie-required"
    if page.get("js_redirect") or page.get("js_computed"):
        return "js-required"
    if reply.status >= 500:
        return "http-5xx"
    if reply.status >= 400 and not (reply.status == 401 and "page" in route):
        return "http-4xx"
    if not (reply.header("Content-Type") or "").startswith("text/html"):
        return "not-html"
    if _size(world, route) > MAX_BYTES:
        return "too-large"
    return None if role == "landing" else "not-landing"


def _domain(url):
    return urlsplit(url).hostname if url else None


def _landing_page(world, landing, browser):
    """The page spec of the DOI's landing page, or None; the browser's walk usually ended on it already."""
    route = browser["route"] if browser["final_url"] == landing else (world.route(landing) if landing else None)
    if not route or "page" not in route or route.get("role", "landing") != "landing":
        return None
    return route["page"]


def write_truth(directory, progress=None) -> dict:
    """Write truth.jsonl for the world in directory; returns counts of errors by class."""
    world = World(directory)
    robots: dict = {}
    errors: dict = {}
    with open(world.directory / "dois.jsonl") as dois, open(world.directory / "truth.jsonl", "w") as out:
        for n, line in enumerate(dois, 1):
            if not line.strip():
                continue
            rec = json.loads(line)
            http = walk(world, rec["url"], HTTP, robots)
            cookies = walk(world, rec["url"], COOKIES, robots)
            browser = walk(world, rec["url"], BROWSER)
            landing = rec.get("landing_url") or browser["final_url"]
            page = _landing_page(world, landing, browser)
            analysis = page_truth(rec["doi"], page) if page is not None else None
            truth = {
                "doi": rec["doi"].lower(),
                "ra": rec["ra"],
                "member_id": str(rec.get("member", rec.get("client"))),
                "prefix": rec["doi"].split("/", 1)[0].lower(),
                "scenario": rec.get("scenario"),
                "resource_url": rec["url"],
                "landing_url": landing,
                "final_url": http["final_url"],
                "final_domain": _domain(http["final_url"]),
                "final_status": http["final_status"],
                "end_url": http["end_url"],
                "end_status": http["end_status"],
                "error": http["error"],
                "urls": http["urls"],
                "retried": http["retried"],
                "cookie_final_url": cookies["final_url"],
                "cookie_error": cookies["error"],
                "browser_final_url": browser["final_url"],
                "browser_error": browser["error"],
                "robots_disallowed": bool(landing) and not _allowed(world, landing, robots),
                "delay_ms": http["delay_ms"],
            }
            truth.update(
                analysis
                or {
                    "meta_tag_correctness": None,
                    "doi_in_text": None,
                    "doi_in_hyperlinks": None,
                    "doi_in_meta_tags": None,
                    "meta_tags": None,
                }
            )
            if "corpus" in rec:
                truth["corpus"] = rec["corpus"]  # the manifest's yes/no columns for a real page
            out.write(json.dumps(truth) + "\n")
            errors[http["error"]] = errors.get(http["error"], 0) + 1
            if progress and n % 10000 == 0:
                progress(f"truth for {n:,} DOIs")
    world.close()
    return {"errors": {str(k): v for k, v in sorted(errors.items(), key=lambda kv: str(kv[0]))}}
