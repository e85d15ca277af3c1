"""Deterministic world generator: members, clients, DOIs, sites, routes and page specs, then the truth.

Two shapes: `dois=N` (about one owner per 100 DOIs, every owner on its own hosts), or `owners=N`, the
proportions of the real registries (docs/sandbox.md, "Generated worlds").
"""

import json
import os
import random
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from landing_dev.sandbox import scenarios
from landing_dev.sandbox.corpus import corpus_entries, corpus_members, corpus_route
from landing_dev.sandbox.owners import dois_owners, full_owners, more_prefixes, pick_prefix, providers_of
from landing_dev.sandbox.platforms import META_NAMES, PLATFORMS, VALUE_FORMS, doi_value
from landing_dev.sandbox.world import FORMAT, INDEX_NAME, build_index

_WORDS = (
    "adaptive coastal neural soil quantum urban marine cellular thermal genomic seismic lunar "
    "microbial dynamic sparse robust"
).split()
OWN_SCENARIO_SHARE = 0.8
SHORT_DOI_SHARE = 0.05


def _base32(n: int) -> str:
    digits = "abcdefghjkmnpqrstvwxyz0123456789"
    out = ""
    while n:
        n, r = divmod(n, 32)
        out = digits[r] + out
    return out


def _page_spec(rng, owner, doi, number) -> dict:
    platform = PLATFORMS[owner["platform"]]
    meta = [
        [name, doi_value(doi, form), attrs] if attrs else [name, doi_value(doi, form)]
        for name, form, attrs in platform.meta
    ]
    if meta and rng.random() < 0.15:  # real sites drift: another spelling or value form now and then
        meta[0] = [rng.choice(META_NAMES), doi_value(doi, rng.choice(VALUE_FORMS))]
    links = [[doi_value(doi, platform.link)] * 2] if platform.link else []
    text = [platform.text.format(doi)] if platform.text else []
    low, high = platform.refs
    refs = {"count": rng.randrange(low, high + 1)} if high else {}
    if refs and rng.random() < 0.2:
        refs["near"] = doi
    title = " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(4, 9))).capitalize()
    return {
        "title": title,
        "meta": meta,
        "links": links,
        "text": text,
        "refs": refs,
        "refs_in_meta": platform.refs_in_meta,
        "seed": number,
        "paragraphs": rng.randrange(3, 9),
        "canonical": None,
    }


def _host(owner, scenario: str, forced: bool, number: int = 0, sites: int = 1) -> str:
    # Asked-for scenarios get clean hosts: a site-wide habit of the member must not leak into them.
    if scenario in scenarios.SITE_WIDE and (forced or scenario != owner["scenario"]):
        return f"{scenarios.SITE_WIDE[scenario]}.{owner['slug']}.example"
    if "host" in owner:
        return owner["host"]  # a shared platform host (owners= shape)
    label = PLATFORMS[owner["platform"]].hosts[0].format(j=owner["journal"])
    site = number % sites  # `sites` journal sites an owner: its DOIs take them in turn, drawing nothing at random
    return f"{label}{site if site else ''}.{owner['slug']}.example"


def _site_routes(host: str, kinds: set) -> list[dict]:
    disallow = "Disallow: /\n" if "robots-disallowed" in kinds else "Disallow: /search\n"
    routes = [{"url": f"https://{host}/robots.txt", "content_type": "text/plain", "body": f"User-agent: *\n{disallow}"}]
    if "cookie-wall" in kinds:
        routes.append(
            {
                "url": f"https://{host}/action/getSharedSiteSession",
                "handler": "shared-session",
                "cookie": scenarios.SESSION_COOKIE,
                "rounds": 10,
                "absent": "/action/cookieAbsent",
            }
        )
        routes.append(
            {
                "url": f"https://{host}/action/cookieAbsent",
                "role": "cookie-absent",
                "page": {
                    "title": "Cookies disabled",
                    "paragraphs": 1,
                    "seed": 0,
                    "text": ["Your browser must accept cookies to use this site."],
                },
            }
        )
    return routes


def _choose_scenario(rng, owner, index, forced):
    if forced:
        return forced[index % len(forced)]
    if rng.random() < OWN_SCENARIO_SHARE:
        return owner["scenario"]
    return rng.choices(list(scenarios.PER_DOI), list(scenarios.PER_DOI.values()))[0]


def _add_corpus(corpus, taken, dois_out, routes_out):
    """Add a corpus' real pages to the world being written; returns (members, DOIs added)."""
    entries, added = corpus_entries(corpus), 0
    members = corpus_members(entries, taken)
    by_prefix = {m["prefixes"][0]: m["id"] for m in members}
    for entry in entries:
        pfx = entry["doi"].split("/", 1)[0].lower()
        if pfx not in by_prefix:
            continue  # a generated member already owns this prefix: keep the worlds apart
        dois_out.write(
            json.dumps(
                {
                    "doi": entry["doi"],
                    "ra": "crossref",
                    "member": by_prefix[pfx],
                    "url": entry["url"],
                    "scenario": "corpus",
                    "landing_url": entry["url"],
                    "corpus": entry["manifest"],
                }
            )
            + "\n"
        )
        routes_out.write(json.dumps(corpus_route(entry)) + "\n")
        added += 1
    return members, added


def _pii(rng, number):
    return f"S{rng.randrange(10000000, 99999999)}{rng.randrange(0, 99):02d}{number % 100000:05d}{rng.randrange(10)}"


def _truth_in_shards(out: Path, workers: int) -> dict:
    """write_truth over `workers` slices of dois.jsonl at once, joined in order: the same truth.jsonl, sooner."""
    from landing_dev.sandbox.truth import write_truth

    with open(out / "dois.jsonl", "rb") as lines:
        total = sum(1 for _ in lines)
    shards = [out / f".truth-shard-{i}" for i in range(workers)]
    built = (out / INDEX_NAME).stat().st_mtime
    with open(out / "dois.jsonl", "rb") as lines:
        for i, shard in enumerate(shards):
            shutil.rmtree(shard, ignore_errors=True)
            shard.mkdir()
            with open(shard / "dois.jsonl", "wb") as part:
                for _ in range(total * (i + 1) // workers - total * i // workers):
                    part.write(next(lines))
            for name in ("world.json", "routes.jsonl", INDEX_NAME):
                (shard / name).symlink_to((out / name).resolve())
            os.utime(shard / "dois.jsonl", (built, built))  # no newer than the shared index, or World rebuilds it
    with ProcessPoolExecutor(workers) as pool:
        counts = list(pool.map(write_truth, shards))
    errors: dict = {}
    with open(out / "truth.jsonl", "wb") as joined:
        for shard, count in zip(shards, counts):
            with open(shard / "truth.jsonl", "rb") as part:
                shutil.copyfileobj(part, joined)
            for error, n in count["errors"].items():
                errors[error] = errors.get(error, 0) + n
            shutil.rmtree(shard)
    return {"errors": dict(sorted(errors.items()))}


def _write_dois(rng, prefix_rng, owners, sizes, only, dois_out, routes_out, hosts, progress, sites=1) -> int:
    """Write every owner's DOIs and their routes; returns how many."""
    index, total = 0, sum(sizes)
    for owner, size in zip(owners, sizes):
        for _k in range(size):
            number = index + 1
            platform = PLATFORMS[owner["platform"]]
            doi = f"{pick_prefix(rng, prefix_rng, owner)}/{platform.suffix(rng, owner['journal'], number)}"
            scenario = _choose_scenario(rng, owner, index, only)
            host = _host(owner, scenario, bool(only), number, sites)
            hosts.setdefault(host, set()).add(scenario)
            pii = _pii(rng, number) if owner["platform"] == "elsevier" else None
            landing = platform.landing_url(host, doi, owner["journal"], number, pii)
            page = _page_spec(rng, owner, doi, number)
            if platform.canonical:
                page["canonical"] = landing
            ctx = scenarios.Context(doi, host, owner["slug"], number, landing, page, rng)
            resource = scenarios.build(scenario, ctx)
            record = {
                "doi": doi,
                "ra": owner["ra"],
                ("member" if owner["ra"] == "crossref" else "client"): owner["id"],
                "url": resource,
                "scenario": scenario,
                "landing_url": landing,
            }
            if pii:
                record["pii"] = pii
            if rng.random() < SHORT_DOI_SHARE:
                record["short"] = "10/" + _base32(number * 7 + 100000)
            dois_out.write(json.dumps(record) + "\n")
            for route in ctx.routes:
                routes_out.write(json.dumps(route, separators=(",", ":")) + "\n")
            index += 1
            if progress and index % 10000 == 0:
                progress(f"generated {index:,}/{total:,} DOIs")
    return index


def generate(
    outdir,
    dois: int | None = None,
    seed: int = 0,
    only=None,
    progress=None,
    corpus=None,
    owners: int | None = None,
    sites: int = 1,
) -> dict:
    """Write a world to outdir (world.json, dois.jsonl, routes.jsonl, truth.jsonl): `dois` DOIs, or `owners`.

    `owners`: instead of `dois`, the real registries' shape: that many owners (owners.FULL_DATACITE_SHARE of
    them DataCite clients) with long-tailed sizes, some on shared platform hosts (owners.FULL_*); the DOI count follows.
    `corpus`: a landing-page corpus folder whose real pages join the world, served from where they lie.
    `sites`: each owner's pages spread over this many journal sites of its own (`www.`, `www1.`, ...), in turn.
    """
    if sites < 1:
        raise ValueError(f"sites={sites}: an owner needs at least one site")
    if (dois is None) == (owners is None):
        raise ValueError("give a number of DOIs or a number of owners, not both")
    if (dois if owners is None else owners) < 1:
        raise ValueError("a world needs at least one DOI" if owners is None else "a world needs at least one owner")
    unknown = set(only or ()) - set(scenarios.ALL)
    if unknown:
        raise ValueError(f"unknown scenario(s): {', '.join(sorted(unknown))}; known: {', '.join(scenarios.ALL)}")
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    taken: set = set()
    members, clients, sizes = dois_owners(rng, dois, taken) if owners is None else full_owners(rng, owners, taken)
    prefix_rng = random.Random(seed + 1)
    more_prefixes(prefix_rng, members + clients, sizes, taken)
    hosts: dict = {}
    with (out / "dois.jsonl").open("w") as dois_out, (out / "routes.jsonl").open("w") as routes_out:
        owners_all = members + clients
        index = _write_dois(rng, prefix_rng, owners_all, sizes, only, dois_out, routes_out, hosts, progress, sites)
        for host, kinds in hosts.items():
            for route in _site_routes(host, kinds):
                routes_out.write(json.dumps(route, separators=(",", ":")) + "\n")
        extra_members, added = _add_corpus(corpus, taken, dois_out, routes_out) if corpus else ([], 0)
    total = index + added
    world = {
        "format": FORMAT,
        "seed": seed,
        "dois": total,
        "scenarios": list(only) if only else "mixed",
        "members": [
            {
                "id": m["id"],
                "primary-name": m["name"],
                "prefixes": m["prefixes"] + m["more"],
                "location": "Example City",
                "platform": m["platform"],
            }
            for m in members
        ]
        + extra_members,
        "clients": [
            {"id": c["id"], "name": c["name"], "prefixes": c["prefixes"] + c["more"], "platform": c["platform"]}
            for c in clients
        ],
        "providers": providers_of(clients),
    }
    if owners is not None:
        world["owners"] = owners
    if sites > 1:
        world["sites"] = sites
    (out / "world.json").write_text(json.dumps(world, indent=1) + "\n")
    build_index(out)
    from landing_dev.sandbox.truth import write_truth

    workers = min(os.cpu_count() or 1, 4)
    if owners is not None and workers > 1:  # the walk is most of the time: every core takes a share of it
        if progress:
            progress(f"truth for {total:,} DOIs in {workers} processes")
        counts = _truth_in_shards(out, workers)
    else:
        counts = write_truth(out, progress=progress)
    return {"dois": total, "members": len(members), "clients": len(clients), "hosts": len(hosts), **counts}
