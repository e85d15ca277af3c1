"""The sandbox's request and reply values: what the router takes and gives, free of any server."""

import json
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, urlsplit


@dataclass
class Request:
    method: str
    url: str  # absolute: the sandbox is reached as a proxy, or routes by Host header
    headers: dict = field(default_factory=dict)  # lower-case names

    @property
    def parts(self):
        return urlsplit(self.url)

    @property
    def host(self) -> str:
        return (self.parts.hostname or "").lower()

    @property
    def query(self) -> dict:
        return dict(parse_qsl(self.parts.query, keep_blank_values=True))

    @property
    def cookies(self) -> dict:
        jar = SimpleCookie()
        try:
            jar.load(self.headers.get("cookie", ""))
        except Exception:  # a malformed Cookie header is no cookie, as on most servers
            return {}
        return {name: morsel.value for name, morsel in jar.items()}


@dataclass
class Reply:
    status: int
    headers: list = field(default_factory=list)  # [(name, value)], order kept
    body: bytes = b""
    delay_ms: int = 0
    route: dict | None = None  # the route that answered, for the truth walk

    def header(self, name: str):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None


def json_reply(status: int, value, content_type="application/json;charset=utf-8", headers=()) -> Reply:
    body = json.dumps(value, separators=(",", ":")).encode()
    return Reply(status, [("Content-Type", content_type), *headers], body)


def html_reply(status: int, title: str, text: str = "", headers=()) -> Reply:
    from html import escape

    body = (
        f"<!DOCTYPE html><html><head><title>{escape(title)}</title></head>"
        f"<body><h1>{escape(title)}</h1><p>{escape(text)}</p></body></html>\n"
    ).encode()
    return Reply(status, [("Content-Type", "text/html; charset=utf-8"), *headers], body)


def redirect_reply(status: int, location: str, headers=()) -> Reply:
    from html import escape

    body = f'<html><head><title>Redirect</title></head><body><a href="{escape(location)}">here</a></body></html>'
    return Reply(status, [("Location", location), ("Content-Type", "text/html;charset=utf-8"), *headers], body.encode())
