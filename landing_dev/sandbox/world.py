"""A world on disk (world.json, dois.jsonl, routes.jsonl) and the SQLite index the server reads it through.

The index keeps the server's memory flat whatever the world's size: nothing is expanded in memory,
every lookup is one indexed query (docs/sandbox.md explains the format).
"""

import json
import os
import re
import sqlite3
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit, urlunsplit

FORMAT = "landing-sandbox/1"
INDEX_NAME = ".index.sqlite"
INDEX_VERSION = "5"
RAS = ("crossref", "datacite")
DOI_PATTERN = re.compile(r"^10\.\d{4,9}/\S+$")
# Sites serve a page whatever tracking parameters a link added to its URL.
TRACKING_PARAMS = ("utm_", "fbclid=", "gclid=", "mc_cid=", "mc_eid=")


class WorldError(Exception):
    """A world that cannot be read, with the file and line that is wrong."""


_SAFE = "/:;()@!$'*+,-._~"


def _requote(part: str) -> str:
    # Clients differ in what they percent-encode (`<` in SICI DOIs, `/` in query values): compare decoded.
    return quote(unquote(part), safe=_SAFE)


def url_key(url: str) -> str:
    """Routing key of a URL: scheme and host lower-cased, escapes normalised, port 80/443 and fragment dropped."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port
    if port and (scheme, port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    query = (
        "&".join("=".join(_requote(x) for x in pair.split("=", 1)) for pair in parts.query.split("&"))
        if parts.query
        else ""
    )
    return urlunsplit((scheme, host, _requote(parts.path) or "/", query, ""))


def doi_key(doi: str) -> str:
    """Lookup key of a DOI: the resolver and the APIs treat DOIs case-insensitively."""
    return doi.strip().lower()


def pii_key(pii: str) -> str:
    """Lookup key of a PII: `S0169-5347(01)02380-1` and `S0169534701023801` are the same item."""
    return "".join(ch for ch in pii.upper() if ch.isalnum())


def _jsonl(path: Path):
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as error:
                raise WorldError(f"{path}:{number}: not JSON ({error.msg})") from None
            if not isinstance(value, dict):
                raise WorldError(f"{path}:{number}: expected a JSON object")
            yield number, value


def read_world_json(directory: Path) -> dict:
    path = directory / "world.json"
    if not path.is_file():
        raise WorldError(f"{directory}: no world.json here; is this a world directory?")
    try:
        world = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise WorldError(f"{path}: not JSON ({error.msg} at line {error.lineno})") from None
    if world.get("format") != FORMAT:
        raise WorldError(f"{path}: format must be {FORMAT!r}, found {world.get('format')!r}")
    for member in world.get("members", []):
        if "id" not in member or "primary-name" not in member:
            raise WorldError(f"{path}: every member needs 'id' and 'primary-name': {member}")
    for client in world.get("clients", []):
        if "id" not in client:
            raise WorldError(f"{path}: every client needs 'id': {client}")
    return world


def _index_is_fresh(directory: Path, index: Path) -> bool:
    if not index.exists():
        return False
    built = index.stat().st_mtime
    sources = [directory / n for n in ("world.json", "dois.jsonl", "routes.jsonl")]
    if any(p.exists() and p.stat().st_mtime > built for p in sources):
        return False
    try:
        with sqlite3.connect(index) as db:
            return db.execute("select value from meta where key='version'").fetchone() == (INDEX_VERSION,)
    except sqlite3.DatabaseError:
        return False


def build_index(directory: Path, index: Path | None = None) -> Path:
    """Build the SQLite index of a world from its JSON files; returns the index path."""
    directory = Path(directory)
    world = read_world_json(directory)
    index = index or directory / INDEX_NAME
    partial = index.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    db = sqlite3.connect(partial)
    db.executescript(
        """
        pragma journal_mode=off; pragma synchronous=off;
        create table meta (key text primary key, value text);
        create table doi (rid integer primary key, key text unique, doi text, ra text, owner text,
                          prefix text, url text, pii text, pii_key text, short text, title text,
                          ra_seq int, owner_seq int, prefix_seq int);
        create table route (key text primary key, spec text) without rowid;
        """
    )
    owners = {str(m["id"]): "crossref" for m in world.get("members", [])}
    owners.update({str(c["id"]): "datacite" for c in world.get("clients", [])})
    seq: dict = {}

    def next_seq(key):
        seq[key] = seq.get(key, -1) + 1
        return seq[key]

    rows = []
    dois_path = directory / "dois.jsonl"
    if not dois_path.is_file():
        raise WorldError(f"{directory}: no dois.jsonl here")
    for number, rec in _jsonl(dois_path):
        where = f"{dois_path}:{number}"
        doi, ra = rec.get("doi"), rec.get("ra")
        if not isinstance(doi, str) or not DOI_PATTERN.match(doi):
            raise WorldError(f"{where}: 'doi' must look like 10.NNNN/suffix, found {doi!r}")
        if ra not in RAS:
            raise WorldError(f"{where}: 'ra' must be one of {RAS}, found {ra!r}")
        owner = str(rec.get("member") if ra == "crossref" else rec.get("client"))
        if owners.get(owner) != ra:
            kind = "member" if ra == "crossref" else "client"
            raise WorldError(f"{where}: {kind} {owner!r} is not declared in world.json")
        if not isinstance(rec.get("url"), str):
            raise WorldError(f"{where}: 'url' (the registered resource URL) is required")
        pfx = doi.split("/", 1)[0].lower()
        rows.append(
            (
                doi_key(doi),
                doi,
                ra,
                owner,
                pfx,
                rec["url"],
                rec.get("pii"),
                pii_key(rec["pii"]) if rec.get("pii") else None,
                rec["short"].lower() if rec.get("short") else None,
                rec.get("title"),
                next_seq(ra),
                next_seq((ra, owner)),
                next_seq((ra, "prefix", pfx)),
            )
        )
        if len(rows) >= 50_000:
            _insert_dois(db, rows, dois_path)
    _insert_dois(db, rows, dois_path)
    routes_path = directory / "routes.jsonl"
    batch = []
    if routes_path.is_file():
        for number, rec in _jsonl(routes_path):
            if not isinstance(rec.get("url"), str) or "://" not in rec["url"]:
                raise WorldError(f"{routes_path}:{number}: 'url' must be an absolute URL")
            body_file = rec.get("body_file")
            if body_file and not (directory / body_file).is_file():  # an absolute path stays absolute
                raise WorldError(f"{routes_path}:{number}: body_file {body_file!r} does not exist")
            batch.append((url_key(rec["url"]), json.dumps(rec, separators=(",", ":"))))
            if len(batch) >= 50_000:
                db.executemany("insert or replace into route values (?, ?)", batch)
                batch.clear()
        db.executemany("insert or replace into route values (?, ?)", batch)
    db.executescript(
        """
        create index doi_owner on doi (ra, owner, owner_seq);
        create index doi_prefix on doi (ra, prefix, prefix_seq);
        create index doi_ra on doi (ra, ra_seq);
        create index doi_pii on doi (pii_key) where pii_key is not null;
        create index doi_short on doi (short) where short is not null;
        """
    )
    db.execute("insert into meta values ('version', ?)", (INDEX_VERSION,))
    db.commit()
    db.close()
    os.replace(partial, index)
    return index


def _insert_dois(db, rows, path):
    try:
        db.executemany(
            "insert into doi (key, doi, ra, owner, prefix, url, pii, pii_key, short, title, ra_seq,"
            " owner_seq, prefix_seq) values (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
    except sqlite3.IntegrityError:
        raise WorldError(_repeated_doi(path)) from None
    rows.clear()


def _repeated_doi(path: Path) -> str:
    """Where dois.jsonl first lists a DOI again: looked for only once the index has refused one."""
    seen: dict = {}
    for number, rec in _jsonl(path):
        key = doi_key(str(rec.get("doi")))
        if key in seen:
            return (
                f"{path}:{number}: DOI {rec['doi']!r} is listed twice, first at line {seen[key]}"
                " (DOIs are case-insensitive)"
            )
        seen[key] = number
    return f"{path}: a DOI is listed twice (DOIs are case-insensitive)"


_COLUMNS = "doi, ra, owner, prefix, url, pii, short, title"


def _record(row):
    return dict(zip(("doi", "ra", "owner", "prefix", "url", "pii", "short", "title"), row)) if row else None


class World:
    """Read-only view of a world directory, through its index."""

    def __init__(self, directory):
        self.directory = Path(directory)
        self.meta = read_world_json(self.directory)
        index = self.directory / INDEX_NAME
        if not _index_is_fresh(self.directory, index):
            build_index(self.directory, index)
        self.db = sqlite3.connect(f"file:{index}?mode=ro", uri=True, check_same_thread=False)
        self.members = {str(m["id"]): m for m in self.meta.get("members", [])}
        self.clients = {str(c["id"]): c for c in self.meta.get("clients", [])}
        self._counts = {
            (ra, owner): n for ra, owner, n in self.db.execute("select ra, owner, count(*) from doi group by ra, owner")
        }
        self._prefix_counts = dict(self.db.execute("select prefix, count(*) from doi group by prefix"))

    def close(self):
        self.db.close()

    def count(self, ra, owner=None, prefix=None) -> int:
        if owner is not None and prefix is None:
            return self._counts.get((ra, str(owner)), 0)
        where, args = self._where(ra, owner, prefix)
        return self.db.execute(f"select count(*) from doi where {where}", args).fetchone()[0]

    def prefix_count(self, prefix: str) -> int:
        return self._prefix_counts.get(prefix.lower(), 0)

    @staticmethod
    def _where(ra, owner, prefix):
        clauses, args = ["ra = ?"], [ra]
        if owner is not None:
            clauses.append("owner = ?")
            args.append(str(owner))
        if prefix is not None:
            clauses.append("prefix = ?")
            args.append(prefix.lower())
        return " and ".join(clauses), args

    def doi(self, doi: str):
        return _record(self.db.execute(f"select {_COLUMNS} from doi where key = ?", (doi_key(doi),)).fetchone())

    def short(self, code: str):
        return _record(self.db.execute(f"select {_COLUMNS} from doi where short = ?", (code.lower(),)).fetchone())

    def by_pii(self, pii: str):
        rows = self.db.execute(f"select {_COLUMNS} from doi where pii_key = ?", (pii_key(pii),))
        return [_record(r) for r in rows]

    def page(self, ra, owner=None, prefix=None, offset=0, rows=20):
        where, args = self._where(ra, owner, prefix)
        query = f"select {_COLUMNS} from doi where {where} order by rid limit ? offset ?"
        return [_record(r) for r in self.db.execute(query, args + [rows, offset])]

    def sample(self, rng, ra, owner=None, prefix=None, n=20):
        """n records drawn at random without replacement from the selection (all if fewer)."""
        total = self.count(ra, owner, prefix)
        picks = rng.sample(range(total), min(n, total))
        if owner is not None and prefix is None:
            sql, args = "ra = ? and owner = ? and owner_seq = ?", [ra, str(owner)]
        elif prefix is not None and owner is None:
            sql, args = "ra = ? and prefix = ? and prefix_seq = ?", [ra, prefix.lower()]
        elif owner is None and prefix is None:
            sql, args = "ra = ? and ra_seq = ?", [ra]
        else:  # both filters: rare, and small enough to page through
            everything = self.page(ra, owner, prefix, 0, total)
            return [everything[i] for i in picks]
        query = f"select {_COLUMNS} from doi where {sql}"
        return [_record(self.db.execute(query, args + [i]).fetchone()) for i in picks]

    def route(self, url: str):
        """The route for a URL: matched exactly, then without tracking parameters, then without a query."""
        key = url_key(url)
        candidates = [key]
        if "?" in key:
            base, query = key.split("?", 1)
            kept = "&".join(p for p in query.split("&") if not p.lower().startswith(TRACKING_PARAMS))
            candidates += [base + "?" + kept if kept else base, base]
        for candidate in candidates:
            found = self.db.execute("select spec from route where key = ?", (candidate,)).fetchone()
            if found:
                return json.loads(found[0])
        return None
