"""The sandbox's router: one pure function from a request to a reply, by host, then by route."""

import random
from urllib.parse import quote, urljoin

from landing_dev.sandbox import crossref, datacite, pages, resolver
from landing_dev.sandbox.http import Reply, html_reply, redirect_reply

_HTML = "text/html; charset=utf-8"
REGISTRY_HOSTS = frozenset((*resolver.HOSTS, *crossref.HOSTS, *datacite.HOSTS))


class State:
    """What a serving process remembers between requests: counters for `fail_first`, the sampling rng, and an evolving
    world's state at its clock's time (landing_dev.sandbox.evolving; None: the world as generated)."""

    def __init__(self, seed=None, dry=False, evolution=None):
        self.rng = random.Random(seed)
        self.counts: dict = {}
        self.dry = dry  # skip rendering bodies: the truth walk needs only statuses, headers and routes
        self.evolution = evolution


def respond(world, request, state: State) -> Reply:
    if state.evolution is not None:
        return state.evolution.respond(world, request, state, _respond, REGISTRY_HOSTS)
    return _respond(world, request, state)


def _respond(world, request, state: State) -> Reply:
    host = request.host
    if host in resolver.HOSTS:
        return resolver.respond(world, request)
    if host in crossref.HOSTS:
        return crossref.respond(world, request, state)
    if host in datacite.HOSTS:
        return datacite.respond(world, request, state)
    route = world.route(request.url)
    if route is None:
        return html_reply(404, "Page not found", "The page you requested does not exist.")
    if state.evolution is not None:
        route = state.evolution.route(route)
    return serve_route(world, route, request, state)


def _effective(route: dict, request) -> dict:
    """The route as this request sees it: a `without_cookie` answer replaces it when the cookie is missing."""
    needed = route.get("require_cookie")
    if needed and needed not in request.cookies:
        return {**route.get("without_cookie", {"status": 403}), "url": route["url"]}
    return route


def serve_route(world, route: dict, request, state: State) -> Reply:
    route = _effective(route, request)
    failing = route.get("fail_first")
    if failing:
        seen = state.counts.get(route["url"], 0)
        if seen < failing.get("count", 1):
            state.counts[route["url"]] = seen + 1
            headers = [("Retry-After", str(failing["retry_after"]))] if "retry_after" in failing else []
            status = failing.get("status", 503)
            return html_reply(status, "Service unavailable" if status >= 500 else "Too many requests", headers=headers)
    if route.get("handler") == "shared-session":
        return _shared_session(route, request)
    reply = _reply(world, route, request, state)
    reply.route = route
    return reply


def _reply(world, route, request, state) -> Reply:
    headers = [(k, v) for k, v in route.get("headers", {}).items()]
    if route.get("set_cookie"):
        headers.append(("Set-Cookie", route["set_cookie"]))
    status = route.get("status", 200)
    if "location" in route:
        reply = redirect_reply(status, urljoin(request.url, route["location"]), headers)
    else:
        body = b"" if state.dry else _body(world, route)
        reply = Reply(status, [("Content-Type", _content_type(route)), *headers], body)
    reply.delay_ms = route.get("delay_ms", 0)
    return reply


def _content_type(route: dict) -> str:
    return route.get("content_type", "application/pdf" if route.get("pdf") else _HTML)


def _body(world, route: dict) -> bytes:
    if "page" in route:
        return pages.render(route["page"])
    if route.get("pdf"):
        return pages.pdf_bytes()
    if "body_file" in route:
        return (world.directory / route["body_file"]).read_bytes()  # an absolute path stays absolute
    return route.get("body", "").encode("utf-8")


def _shared_session(route: dict, request) -> Reply:
    """The cookie wall: bounce until the session cookie comes back, else give up on a cookie-absent page."""
    query = request.query
    target = query.get("redirect", "/")
    cookie = route.get("cookie", "SERVER=1")
    if cookie.split("=", 1)[0] in request.cookies:
        return redirect_reply(302, urljoin(request.url, target))
    rounds = int(route.get("rounds", 10))
    try:
        attempt = int(query.get("rc", "0"))
    except ValueError:
        attempt = rounds
    path = request.parts.path
    set_cookie = [("Set-Cookie", cookie + "; Path=/")]
    if attempt < rounds:
        nxt = f"{path}?redirect={quote(target, safe='')}&rc={attempt + 1}"
        return redirect_reply(302, urljoin(request.url, nxt), set_cookie)
    absent = route.get("absent", "/action/cookieAbsent")
    return redirect_reply(302, urljoin(request.url, absent), set_cookie)
