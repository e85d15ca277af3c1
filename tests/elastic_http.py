"""The Elasticsearch stand-in's HTTP side (tests/elastic_standin.py): a request as its endpoints read it, and the
handler that answers each with StandIn.answer."""

import gzip
import json
import re
import traceback
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qsl, unquote, urlsplit

from tests.elastic_index import EsError


class Request:
    def __init__(self, method, target, headers, raw):
        url = urlsplit(target)
        self.method, self.path, self.headers, self.raw = method, url.path, headers, raw
        self.segments = [unquote(s) for s in url.path.split("/") if s]  # split first: ids may hold "%2F"
        self.query = dict(parse_qsl(url.query, keep_blank_values=True))

    def json(self):
        try:
            return json.loads(self.raw) if self.raw else None
        except ValueError as e:
            raise EsError(400, "x_content_parse_exception", f"[1:1] {e}") from None

    def flag(self, name):
        return self.query.get(name, "false") in ("true", "")  # ES reads a bare ?flag as true

    def check_media_types(self):
        """ES 8 serves compatible-with=7 or 8, and Accept must agree with the Content-Type of a body."""
        headers = ["accept", "content-type"] if self.raw else ["accept"]
        found = [re.search(r"compatible-with=(\d+)", self.headers.get(h, "")) for h in headers]
        versions = {m.group(1) if m else None for m in found}
        if versions - {None, "7", "8"} or len(versions) > 1:
            raise EsError(
                400,
                "media_type_header_exception",
                f"Invalid media-type value on headers [{', '.join(h.title() for h in headers)}]",
                caused_by={
                    "type": "status_exception",
                    "reason": "A compatible version is required on both Content-Type and Accept headers if "
                    "either one has requested a compatible version and the compatible versions must match. "
                    + ", ".join(f"{h.title()}={self.headers.get(h)}" for h in headers),
                },
            )


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so the client's connection pool is exercised too
    disable_nagle_algorithm = True  # headers and body are two writes: don't stall on delayed ACKs

    def _handle(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip":  # the client's http_compress=True
            raw = gzip.decompress(raw)
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.server.standin.requests.append((self.command, self.path, headers))
        try:
            status, body, extra = self.server.standin.answer(Request(self.command, self.path, headers, raw))
        except Exception:  # a stand-in bug: answer like ES's generic 500, and leave a trace in the test log
            traceback.print_exc()
            status, body, extra = 500, EsError(500, "exception", "stand-in failure").body(), {}
        data = b"" if body is None or self.command == "HEAD" else json.dumps(body, ensure_ascii=False).encode()
        version = re.search(r"compatible-with=([78])\b", headers.get("accept", ""))
        self.send_response(status)
        self.send_header("X-Elastic-Product", "Elasticsearch")  # on every response, errors too, as ES does
        # ES answers in the compatible media type the client asked for (if it serves it), else in plain JSON.
        self.send_header(
            "Content-Type",
            f"application/vnd.elasticsearch+json;compatible-with={version[1]}" if version else "application/json",
        )
        for header, value in extra.items():
            self.send_header(header, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = _handle

    def log_message(self, *args):
        pass  # tests assert on StandIn.requests; stderr noise would only bury real failures
