"""Scenarios: what stands between a DOI's resource URL and its landing page, and what the page says.

Each builder takes the DOI's context and returns its resource URL, its routes and changes to its page.
docs/sandbox.md describes each scenario and what the ground truth says about it.
"""

from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

from landing_dev.sandbox.platforms import PLACEHOLDER_DOI, doi_value

# Scenarios a DOI can get on its own, with the weights the generator mixes them by.
PER_DOI = {
    "direct": 10,
    "http-to-https": 2,
    "multi-hop": 2,
    "tracking-params": 1,
    "not-found": 2,
    "gone": 0.5,
    "server-error-burst": 2,
    "server-error": 0.5,
    "rate-limited": 1,
    "unauthorized-page": 1.5,
    "meta-conflict": 1,
    "meta-missing": 1.5,
    "doi-absent": 1.5,
    "link-only": 1,
    "text-only": 1,
    "reference-trap": 1.5,
    "js-redirect": 0.8,
    "js-computed": 0.4,
    "meta-refresh": 1,
    "redirect-loop": 0.3,
    "long-chain": 0.3,
    "too-large": 0.2,
    "pdf": 1,
    "bad-charset": 0.6,
    "slow": 0.2,
}
# Scenarios that are a property of a whole site: they live on a host of their own.
SITE_WIDE = {
    "cookie-wall": "secure",
    "challenge": "protected",
    "placeholder-doi": "archive",
    "robots-disallowed": "private",
}
ALL = tuple(PER_DOI) + tuple(SITE_WIDE)
REDIRECTS = (301, 302, 303, 307, 308)
SESSION_COOKIE = "SERVER=WZ6myaEXBLEs"
CLEARANCE_COOKIE = "sandbox_clearance=ok"
TRACKING = "utm_source=crossref&utm_medium=referral&utm_campaign=doi"
BIG_PAGE = 2_621_440  # over the 2 MB DOWNLOAD_MAXSIZE crawlers default to
SLOW_MS = 2000


@dataclass
class Context:
    doi: str
    host: str
    slug: str
    number: int
    landing: str  # where the landing page lives
    page: dict  # the landing page's spec, changed in place by page scenarios
    rng: object
    routes: list = field(default_factory=list)

    def route(self, url, **response):
        self.routes.append({"url": url, **response})

    def page_route(self, url=None, **response):
        self.route(url or self.landing, page=self.page, **response)

    def site(self, path: str) -> str:
        return f"https://{self.host}{path}"


def build(name: str, ctx: Context) -> str:
    """Add the scenario's routes to ctx; return the DOI's resource URL."""
    return _BUILDERS[name](ctx)


def _direct(ctx):
    ctx.page_route()
    return ctx.landing


def _http_to_https(ctx):
    ctx.page_route()
    start = "http://" + ctx.landing[len("https://") :]
    ctx.route(start, status=301, location=ctx.landing)
    return start


def _multi_hop(ctx):
    # Like PLOS: the publisher's own resolver, then an old domain, then the page.
    q = quote(ctx.doi, safe="/:;()")
    first = f"http://dx.{ctx.slug}.example/{q}"
    old = f"http://www.old-{ctx.slug}.example/article/info:doi/{q}"
    ctx.route(first, status=ctx.rng.choice(REDIRECTS), location=old)
    ctx.route(old, status=ctx.rng.choice(REDIRECTS), location=ctx.landing)
    ctx.page_route()
    return first


def _tracking(ctx):
    start = f"https://links.{ctx.slug}.example/doi/{quote(ctx.doi, safe='/:;()')}"
    sep = "&" if "?" in ctx.landing else "?"
    ctx.route(start, status=302, location=ctx.landing + sep + TRACKING)
    ctx.page_route()
    return start


def _status(status, role="error", title="Not found"):
    def build_(ctx):
        ctx.route(ctx.landing, status=status, role=role, page={"title": title, "paragraphs": 1, "seed": ctx.number})
        return ctx.landing

    return build_


def _not_found(ctx):
    return ctx.landing  # no route at all: the site's plain 404


def _burst(ctx):
    ctx.page_route(fail_first={"count": 2, "status": 503, "retry_after": 1})
    return ctx.landing


def _rate_limited(ctx):
    ctx.page_route(fail_first={"count": 1, "status": 429, "retry_after": 1})
    return ctx.landing


def _unauthorized(ctx):
    ctx.page_route(status=401)  # real sites send the whole page with a 401
    return ctx.landing


def _stub(ctx, **page):
    start = ctx.site(f"/go/{ctx.number}")
    ctx.route(start, role="stub", page={"title": "Redirecting", "paragraphs": 0, "seed": ctx.number, **page})
    ctx.page_route()
    return start


def _js_redirect(ctx):
    return _stub(ctx, js_redirect=ctx.landing)


def _js_computed(ctx):
    return _stub(ctx, js_computed=ctx.landing)


def _meta_refresh(ctx):
    return _stub(ctx, meta_refresh=ctx.landing)


def _loop(ctx):
    a, b = ctx.site(f"/loop/{ctx.number}/a"), ctx.site(f"/loop/{ctx.number}/b")
    ctx.route(a, status=302, location=b)
    ctx.route(b, status=302, location=a)
    return a


def _long_chain(ctx):
    hops = [ctx.site(f"/hop/{ctx.number}/{i}") for i in range(25)]
    for here, there in zip(hops, hops[1:] + [ctx.landing]):
        ctx.route(here, status=ctx.rng.choice(REDIRECTS), location=there)
    ctx.page_route()
    return hops[0]


def _too_large(ctx):
    ctx.page["pad_to"] = BIG_PAGE
    return _direct(ctx)


def _pdf(ctx):
    url = ctx.landing.split("?")[0].rstrip("/") + ".pdf"
    ctx.route(url, pdf=True)
    return url


def _bad_charset(ctx):
    ctx.page.update(encoding="windows-1252", title=ctx.page["title"] + " — café à Zürich")
    if ctx.rng.random() < 0.5:
        ctx.page_route()  # declares utf-8 in header and meta, sends windows-1252
    else:
        ctx.page["declared_charset"] = None
        ctx.page_route(content_type="text/html")
    return ctx.landing


def _slow(ctx):
    ctx.page_route(delay_ms=SLOW_MS)
    return ctx.landing


def _cookie_wall(ctx):
    path = urlsplit(ctx.landing)
    target = path.path + (("?" + path.query) if path.query else "")
    session = f"/action/getSharedSiteSession?redirect={quote(target, safe='')}&rc=0"
    ctx.page_route(
        require_cookie=SESSION_COOKIE.split("=")[0],
        without_cookie={"status": 302, "location": session, "set_cookie": SESSION_COOKIE + "; Path=/"},
    )
    return ctx.landing


def _challenge(ctx):
    challenge = {
        "status": 403,
        "role": "challenge",
        "headers": {"cf-mitigated": "challenge"},
        "page": {"title": "Just a moment...", "challenge": CLEARANCE_COOKIE, "seed": 0},
    }
    ctx.page_route(require_cookie=CLEARANCE_COOKIE.split("=")[0], without_cookie=challenge)
    return ctx.landing


def _page_change(change):
    def build_(ctx):
        change(ctx.page, ctx)
        return _direct(ctx)

    return build_


def _conflict(page, ctx):
    other = f"{ctx.doi.split('/')[0]}/related.{ctx.number}"
    page["meta"] = page["meta"] + [["citation_doi", other]]


def _missing(page, ctx):
    page["meta"] = []


def _absent(page, ctx):
    # Many real pages never state their own DOI, though their reference lists are full of others'.
    page.update(meta=[], text=[], links=[], refs={"count": max(10, page.get("refs", {}).get("count", 0))})


def _link_only(page, ctx):
    page.update(meta=[], text=[], links=[[doi_value(ctx.doi, "https-doi"), "Permanent link"]])


def _text_only(page, ctx):
    page.update(meta=[], links=[], text=[f"DOI: {ctx.doi}"])


def _reference_trap(page, ctx):
    # The page's DOI is only in its meta tags; its references extend it (10.5555/1234 -> 10.5555/12345).
    page.update(links=[], text=[], refs={"count": max(50, page.get("refs", {}).get("count", 0)), "near": ctx.doi})


def _placeholder(page, ctx):
    page["meta"] = [[m[0], PLACEHOLDER_DOI, *m[2:]] for m in page["meta"]] or [["citation_doi", PLACEHOLDER_DOI]]


def _robots(ctx):
    return _direct(ctx)  # the host's robots.txt does the work (see generator.site_routes)


_BUILDERS = {
    "direct": _direct,
    "http-to-https": _http_to_https,
    "multi-hop": _multi_hop,
    "tracking-params": _tracking,
    "not-found": _not_found,
    "gone": _status(410, title="This article has been withdrawn"),
    "server-error": _status(500, title="Internal server error"),
    "server-error-burst": _burst,
    "rate-limited": _rate_limited,
    "unauthorized-page": _unauthorized,
    "meta-conflict": _page_change(_conflict),
    "meta-missing": _page_change(_missing),
    "doi-absent": _page_change(_absent),
    "link-only": _page_change(_link_only),
    "text-only": _page_change(_text_only),
    "reference-trap": _page_change(_reference_trap),
    "js-redirect": _js_redirect,
    "js-computed": _js_computed,
    "meta-refresh": _meta_refresh,
    "redirect-loop": _loop,
    "long-chain": _long_chain,
    "too-large": _too_large,
    "pdf": _pdf,
    "bad-charset": _bad_charset,
    "slow": _slow,
    "cookie-wall": _cookie_wall,
    "challenge": _challenge,
    "placeholder-doi": _page_change(_placeholder),
    "robots-disallowed": _robots,
}
assert set(_BUILDERS) == set(ALL)
