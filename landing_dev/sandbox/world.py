"""A world on disk (world.json, dois.jsonl, routes.jsonl, timeline.jsonl) and the SQLite index it is read through.

The index keeps the server's memory flat whatever the world's size: nothing is expanded in memory,
every lookup is one indexed query (docs/sandbox.md explains the format). An evolving world's owners, prefixes and
DOIs that appear later (timeline.jsonl's new-owner and new-prefix events) are hidden until the world's `now`.
"""

import json
import math
import os
import re
import sqlite3
from bisect import bisect_right
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from landing_dev.sandbox import deposits
from landing_dev.sandbox.evolving import problem

FORMAT = "landing-sandbox/1"
INDEX_NAME = ".index.sqlite"
INDEX_VERSION = "7"
RAS = ("crossref", "datacite")
DOI_PATTERN = re.compile(r"^10\.\d{4,9}/\S+$")
# Sites serve a page whatever tracking parameters a link added to its URL.
TRACKING_PARAMS = ("utm_", "fbclid=", "gclid=", "mc_cid=", "mc_eid=")
TIMELINE = "timeline.jsonl"
STAMP = "%Y-%m-%dT%H:%M:%SZ"


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
    sources = [directory / n for n in ("world.json", "dois.jsonl", "routes.jsonl", TIMELINE)]
    if any(p.exists() and p.stat().st_mtime > built for p in sources):
        return False
    try:
        with sqlite3.connect(index) as db:
            return db.execute("select value from meta where key='version'").fetchone() == (INDEX_VERSION,)
    except sqlite3.DatabaseError:
        return False


def _timeline(directory: Path, db) -> tuple[dict, dict]:
    """Store timeline.jsonl's events in the index, in order; ({(ra, owner): since}, {prefix: since}) of what appears."""
    path, rows, last = directory / TIMELINE, [], -math.inf
    for number, event in _jsonl(path) if path.is_file() else ():
        try:
            at = datetime.strptime(str(event.get("at")), STAMP).replace(tzinfo=UTC).timestamp()
        except ValueError:
            raise WorldError(f"{path}:{number}: 'at' must be a UTC stamp such as 2030-01-01T00:00:00Z") from None
        if at < last:
            raise WorldError(f"{path}:{number}: events must be in order of 'at'; this one comes before the line above")
        if found := problem(event):
            raise WorldError(f"{path}:{number}: {found}")
        last, prefix = at, str(event.get("prefix", "")).lower()
        rows.append((at, event.get("kind"), event.get("ra"), str(event.get("owner")), prefix, json.dumps(event)))
    db.executemany("insert into event values (?, ?, ?, ?, ?, ?)", rows)
    owners = {(ra, owner): at for at, kind, ra, owner, _, _ in rows if kind == "new-owner"}
    return owners, {prefix: at for at, kind, _, _, prefix, _ in rows if kind == "new-prefix"}


def build_index(directory: Path, index: Path | None = None) -> Path:
    """Build the SQLite index of a world from its JSON files; returns the index path."""
    directory = Path(directory)
    world = read_world_json(directory)
    index = index or directory / INDEX_NAME
    # One partial file per process: two servers started on one world build it side by side, the last rename wins.
    partial = index.with_suffix(f".{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    db = sqlite3.connect(partial)
    db.executescript(
        """
        pragma journal_mode=off; pragma synchronous=off;
        create table meta (key text primary key, value text);
        create table doi (rid integer primary key, key text unique, doi text, ra text, owner text,
                          prefix text, url text, pii text, pii_key text, short text, title text,
                          ra_seq int, owner_seq int, prefix_seq int, since real);
        create table route (key text primary key, spec text) without rowid;
        create table event (at real, kind text, ra text, owner text, prefix text, body text);
        """
    )
    owner_since, prefix_since = _timeline(directory, db)
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
                max(owner_since.get((ra, owner), 0), prefix_since.get(pfx, 0)),
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
    if owner_since or prefix_since:
        # A sample draws sequence numbers: those that appear later take the last ones, so that what is visible at any
        # moment is a selection's first `count` numbers.
        db.executescript(
            """
            create temp table seqs as select rid,
              row_number() over (partition by ra order by since, rid) - 1 as a,
              row_number() over (partition by ra, owner order by since, rid) - 1 as b,
              row_number() over (partition by ra, prefix order by since, rid) - 1 as c from doi;
            update doi set ra_seq = seqs.a, owner_seq = seqs.b, prefix_seq = seqs.c from seqs where seqs.rid = doi.rid;
            drop table seqs;
            """
        )
    db.executescript(
        """
        create index doi_owner on doi (ra, owner, owner_seq);
        create index doi_prefix on doi (ra, prefix, prefix_seq);
        create index doi_ra on doi (ra, ra_seq);
        create index doi_pii on doi (pii_key) where pii_key is not null;
        create index doi_short on doi (short) where short is not null;
        """
    )
    deposits.build(db)
    db.execute("insert into meta values ('version', ?)", (INDEX_VERSION,))
    db.commit()
    db.close()
    os.replace(partial, index)
    return index


def _insert_dois(db, rows, path):
    try:
        db.executemany(
            "insert into doi (key, doi, ra, owner, prefix, url, pii, pii_key, short, title, ra_seq,"
            " owner_seq, prefix_seq, since) values (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
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
    """Read-only view of a world directory, through its index. `now` (a callable giving the simulated Unix time; the
    server sets it) decides what an evolving world shows: by default, everything that ever appears."""

    def __init__(self, directory):
        self.directory = Path(directory)
        self.meta = read_world_json(self.directory)
        index = self.directory / INDEX_NAME
        if not _index_is_fresh(self.directory, index):
            build_index(self.directory, index)
        self.db = sqlite3.connect(f"file:{index}?mode=ro", uri=True, check_same_thread=False)
        self.now = lambda: math.inf
        self.registered: dict[str, str] = {}  # base host -> the domain its DOIs' registered URLs name now
        self.members = {str(m["id"]): m for m in self.meta.get("members", [])}
        self.clients = {str(c["id"]): c for c in self.meta.get("clients", [])}
        grouped = "select {0}, count(*) from doi where since = 0 group by {0}"
        self._counts = {(ra, owner): n for ra, owner, n in self.db.execute(grouped.format("ra, owner"))}
        self._prefix_counts = dict(self.db.execute(grouped.format("prefix")))
        self._later: dict = {}  # (ra, owner) or prefix -> the times its DOIs appear at, in order
        later = "select ra, owner, prefix, since from doi where since > 0 order by since"
        for ra, owner, prefix, since in self.db.execute(later):
            self._later.setdefault((ra, owner), []).append(since)
            self._later.setdefault(prefix, []).append(since)
        self.hiding = bool(self._later)  # some DOIs appear later: queries ask for those visible now
        self.evolving = self.db.execute("select 1 from event limit 1").fetchone() is not None
        events = "select {}, at from event where kind = ?"
        self.owner_since = {(ra, o): at for ra, o, at in self.db.execute(events.format("ra, owner"), ("new-owner",))}
        self.prefix_since = dict(self.db.execute(events.format("prefix"), ("new-prefix",)))

    def close(self):
        self.db.close()

    def _appeared(self, key) -> int:
        return bisect_right(self._later[key], self.now()) if self.hiding and key in self._later else 0

    def count(self, ra, owner=None, prefix=None) -> int:
        if owner is not None and prefix is None:
            return self._counts.get((ra, str(owner)), 0) + self._appeared((ra, str(owner)))
        where, args = self._where(ra, owner, prefix)
        return self.db.execute(f"select count(*) from doi where {where}", args).fetchone()[0]

    def prefix_count(self, prefix: str) -> int:
        return self._prefix_counts.get(prefix.lower(), 0) + self._appeared(prefix.lower())

    def listed(self, ra: str) -> list[dict]:
        """The members (ra crossref) or clients (datacite) the registry lists now, each with the prefixes it holds."""
        owners = (self.members if ra == "crossref" else self.clients).values()
        if not (self.owner_since or self.prefix_since):
            return list(owners)
        return [found for owner in owners if (found := self.owner(ra, owner["id"])) is not None]

    def owner(self, ra: str, owner_id: str) -> dict | None:
        """A member or client as the registry shows it now: None before it appears, only the prefixes it holds."""
        owner = (self.members if ra == "crossref" else self.clients).get(str(owner_id))
        if owner is None or not (self.owner_since or self.prefix_since):
            return owner
        now = self.now()
        if self.owner_since.get((ra, str(owner["id"])), 0) > now:
            return None
        prefixes = [p for p in owner.get("prefixes", []) if self.prefix_since.get(p.lower(), 0) <= now]
        return owner if len(prefixes) == len(owner.get("prefixes", [])) else {**owner, "prefixes": prefixes}

    def _where(self, ra, owner, prefix):
        clauses, args = ["ra = ?"], [ra]
        if owner is not None:
            clauses, args = [*clauses, "owner = ?"], [*args, str(owner)]
        if prefix is not None:
            clauses, args = [*clauses, "prefix = ?"], [*args, prefix.lower()]
        if self.hiding:  # DOIs that appear later: only those visible now
            clauses, args = [*clauses, "since <= ?"], [*args, self.now()]
        return " and ".join(clauses), args

    def _one(self, query: str, value) -> dict | None:
        visible = (query + " and since <= ?", (value, self.now())) if self.hiding else (query, (value,))
        return _record(self.db.execute(*visible).fetchone())

    def doi(self, doi: str):
        return self._one(f"select {_COLUMNS} from doi where key = ?", doi_key(doi))

    def short(self, code: str):
        return self._one(f"select {_COLUMNS} from doi where short = ?", code.lower())

    def by_pii(self, pii: str):
        rows = self.db.execute(f"select {_COLUMNS}, since from doi where pii_key = ?", (pii_key(pii),))
        return [_record(r[:-1]) for r in rows if r[-1] <= self.now()]

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
