"""An evolving world as served: timeline.jsonl's events applied as the world's clock passes them.

The events stay in the index (table `event`); the server keeps only what has happened so far: the sites moved (and,
for a registry-visible move, the domain its DOIs' registered URLs name: `World.registered`), the sites whose pages
lost their DOI meta tags, the sites down. A registry-silent move leaves the registered URLs alone: the resolver and
the APIs keep naming the old domain, which redirects. Owners and prefixes that appear later are the World's
business (it hides their DOIs until then). Every effect is keyed by a site's first host (its *base*): a site that
moved and then goes down is down on its new domain.
"""

import json
import re
from urllib.parse import urlsplit, urlunsplit

from landing_dev.sandbox.analysis_truth import DOI_META_NAMES
from landing_dev.sandbox.http import Reply, Request, html_reply, redirect_reply

# The fields the server reads of each kind of event (landing_dev.sandbox.evolution writes more).
NEEDS = {
    "move": ("host", "to"),
    "new-owner": ("ra", "owner"),
    "new-prefix": ("prefix",),
    "meta-tags-lost": ("host",),
    "meta-tags-gained": ("host",),
    "down": ("host",),
    "up": ("host",),
    "background-updates": (),
}
# Down as a proxy says it: the origin refused the connection, or a moved site's old name no longer resolves.
REFUSED = Reply(502, [("Content-Type", "text/plain")], b"sandbox: the site does not answer\n")


def problem(event: dict) -> str | None:
    """What makes a timeline event unusable, or None.

    >>> problem({"kind": "move", "host": "a.example"}), problem({"kind": "moved"}) is not None
    ("a 'move' event needs 'to'", True)
    """
    if event.get("kind") not in NEEDS:
        return f"'kind' must be one of {', '.join(NEEDS)}, found {event.get('kind')!r}"
    missing = [name for name in NEEDS[event["kind"]] if not isinstance(event.get(name), str) or not event[name]]
    return f"a {event['kind']!r} event needs {', '.join(repr(m) for m in missing)}" if missing else None


def with_host(url: str, host: str) -> str:
    """The URL on another host, port and the rest kept.

    >>> with_host("https://www.old.example:8443/a?b=1", "www.new.example")
    'https://www.new.example:8443/a?b=1'
    """
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=host + port))


class Evolution:
    """The world's state at its clock's time, caught up on each request (one comparison while nothing is due)."""

    def __init__(self, world):
        self.world = world
        self.moved: dict[str, str] = {}  # base host -> the domain it serves from now
        self.base: dict[str, str] = {}  # that domain -> its base host
        self.retired: dict[str, str] = {}  # a domain a site left -> its base host
        self.gone: set[str] = set()  # retired domains that stopped answering (the others redirect)
        self.stripped: set[str] = set()  # base hosts whose pages lost their DOI meta tags
        self.down: dict[str, str] = {}  # base host -> how it is down: "503" or "refused"
        self.applied = 0  # rowid of the last event applied
        self.next_at = self._next()
        self._text = self._bytes = None

    def _next(self) -> float:
        found = self.world.db.execute("select min(at) from event where rowid > ?", (self.applied,)).fetchone()[0]
        return float("inf") if found is None else found

    def catch_up(self) -> None:
        """Apply every event whose time has come."""
        now = self.world.now()
        if now < self.next_at:
            return
        due = self.world.db.execute(
            "select rowid, body from event where rowid > ? and at <= ? order by rowid", (self.applied, now)
        )
        for rowid, body in due.fetchall():
            self.apply(json.loads(body))
            self.applied = rowid
        self.next_at = self._next()

    def apply(self, event: dict) -> None:
        kind, host = event["kind"], event.get("host")
        if kind == "move":
            old = self.moved.get(host, host)
            self.base.pop(old, None)
            self.moved[host], self.base[event["to"]], self.retired[old] = event["to"], host, host
            if event.get("old") == "gone":
                self.gone.add(old)
            if event.get("registry", True):  # the owner re-registers its DOIs' URLs on the new domain
                self.world.registered[host] = event["to"]
            names = "|".join(re.escape(name) for name in sorted(self.retired, key=len, reverse=True))
            self._text = re.compile(r"(?<=://)(" + names + r")(?=[/:?#\"'<\s]|$)")
            self._bytes = re.compile(self._text.pattern.encode())
        elif kind == "meta-tags-lost":
            self.stripped.add(host)
        elif kind == "meta-tags-gained":
            self.stripped.discard(host)
        elif kind == "down":
            self.down[host] = event.get("how", "503")
        elif kind == "up":
            self.down.pop(host, None)

    def refuses(self, host: str) -> bool:
        """Whether a connection to this host fails (the proxy answers CONNECT with 502)."""
        self.catch_up()
        host = host.lower()
        return host in self.gone or self.down.get(self.base.get(host, host)) == "refused"

    def respond(self, world, request: Request, state, route_request, registries=frozenset()) -> Reply:
        """The reply to a request as the world stands now; `route_request` answers for the world as generated, and
        the `registries`' hosts answer from the registered URLs (never rewritten)."""
        self.catch_up()
        host = request.host
        if host in self.gone:
            return REFUSED
        if host in self.retired:  # a site's old name: it redirects to the new one
            return redirect_reply(301, with_host(request.url, self.moved[self.retired[host]]))
        base = self.base.get(host, host)
        how = self.down.get(base)
        if how == "refused":
            return REFUSED
        if how:
            return html_reply(503, "Service unavailable", "The site is down for maintenance.")
        if base != host:
            request = Request(request.method, with_host(request.url, base), request.headers)
        reply = route_request(world, request, state)
        if self._text is not None and host not in registries:
            self._rewrite(reply)
        return reply

    def route(self, route: dict) -> dict:
        """A site's route as the world stands now: without DOI meta tags if its site lost them."""
        if not self.stripped or "page" not in route or urlsplit(route["url"]).hostname not in self.stripped:
            return route
        meta = [tag for tag in route["page"].get("meta", []) if not _names_doi(tag)]
        return {**route, "page": {**route["page"], "meta": meta}}

    def _rewrite(self, reply: Reply) -> None:
        """Links on the sites to a moved site name its new domain: redirects and page bodies (the registries' answers
        name the registered URLs)."""
        moved, retired = self.moved, self.retired
        reply.headers = [
            (k, self._text.sub(lambda f: moved[retired[f.group(1)]], v) if k.lower() == "location" else v)
            for k, v in reply.headers
        ]
        if reply.body:
            reply.body = self._bytes.sub(lambda f: moved[retired[f.group(1).decode()]].encode(), reply.body)


def _names_doi(tag) -> bool:
    return isinstance(tag, (list, tuple)) and bool(tag) and str(tag[0]).lower() in DOI_META_NAMES
