"""Deterministic world generator: members, clients, DOIs, sites, routes and page specs, then the truth."""
import json
import math
import random
from pathlib import Path

from . import scenarios
from .corpus import corpus_entries, corpus_members, corpus_route
from .platforms import CROSSREF_HABITS, DATACITE_HABITS, META_NAMES, PLATFORMS, VALUE_FORMS, doi_value
from .world import FORMAT, build_index

_NAMES = ("Aurora Boreal Cedar Delta Ember Fjord Granite Harbor Iris Juniper Kestrel Lumen Meridian Nimbus "
          "Orchid Prairie Quartz Riverside Summit Tundra Umber Vertex Willow Xylem Yarrow Zephyr").split()
_KINDS = ("Press", "Society", "Publishing", "Academic", "University Press", "Institute")
_WORDS = ("adaptive coastal neural soil quantum urban marine cellular thermal genomic seismic lunar "
          "microbial dynamic sparse robust").split()
DATACITE_SHARE = 0.15
DOIS_PER_OWNER = 100
OWN_SCENARIO_SHARE = 0.8
SHORT_DOI_SHARE = 0.05


def _base32(n: int) -> str:
    digits = "abcdefghjkmnpqrstvwxyz0123456789"
    out = ""
    while n:
        n, r = divmod(n, 32)
        out = digits[r] + out
    return out


def _allocate(total: int, owners: int, rng) -> list[int]:
    """Zipf-like sizes summing to total, each at least 1: a few large owners, a long tail of small ones."""
    if owners == 0:
        return []
    weights = [1 / (i + 1) ** 1.1 for i in range(owners)]
    rng.shuffle(weights)
    spare = total - owners
    raw = [w / sum(weights) * spare for w in weights]
    sizes = [1 + int(r) for r in raw]
    for i in sorted(range(owners), key=lambda i: raw[i] - int(raw[i]), reverse=True)[: total - sum(sizes)]:
        sizes[i] += 1
    return sizes


def _owners(rng, ra: str, count: int, habits, taken: set) -> list[dict]:
    owners = []
    choices, weights = [h[:2] for h in habits], [h[2] for h in habits]
    for i in range(count):
        name = f"{rng.choice(_NAMES)} {rng.choice(_NAMES)} {rng.choice(_KINDS)}"
        slug = "-".join(name.lower().split()[:2]) + f"-{i}"
        prefixes = []
        while len(prefixes) < (2 if rng.random() < 0.2 else 1):
            candidate = f"10.{rng.randrange(1000, 99999)}"
            if candidate not in taken and candidate != "10.5555":
                taken.add(candidate)
                prefixes.append(candidate)
        platform, default = rng.choices(choices, weights)[0]
        journal = "".join(w[0] for w in name.lower().split()) + _NAMES[i % len(_NAMES)][:2].lower()
        owner = {"ra": ra, "name": name, "slug": slug, "prefixes": prefixes, "platform": platform,
                 "scenario": default, "journal": journal}
        if ra == "crossref":
            owner["id"] = str(rng.randrange(100, 50000) * 7 + i % 7)
        else:
            owner["id"] = f"{slug.split('-')[0]}.{slug.split('-')[1]}{i}"
        owners.append(owner)
    return owners


def _page_spec(rng, owner, doi, number) -> dict:
    platform = PLATFORMS[owner["platform"]]
    meta = [[name, doi_value(doi, form), attrs] if attrs else [name, doi_value(doi, form)]
            for name, form, attrs in platform.meta]
    if meta and rng.random() < 0.15:  # real sites drift: another spelling or value form now and then
        meta[0] = [rng.choice(META_NAMES), doi_value(doi, rng.choice(VALUE_FORMS))]
    links = [[doi_value(doi, platform.link)] * 2] if platform.link else []
    text = [platform.text.format(doi)] if platform.text else []
    low, high = platform.refs
    refs = {"count": rng.randrange(low, high + 1)} if high else {}
    if refs and rng.random() < 0.2:
        refs["near"] = doi
    title = " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(4, 9))).capitalize()
    return {"title": title, "meta": meta, "links": links, "text": text, "refs": refs,
            "refs_in_meta": platform.refs_in_meta, "seed": number, "paragraphs": rng.randrange(3, 9),
            "canonical": None}


def _host(owner, scenario: str, forced: bool) -> str:
    # Asked-for scenarios get clean hosts: a site-wide habit of the member must not leak into them.
    if scenario in scenarios.SITE_WIDE and (forced or scenario != owner["scenario"]):
        return f"{scenarios.SITE_WIDE[scenario]}.{owner['slug']}.example"
    pattern = PLATFORMS[owner["platform"]].hosts[0]
    return f"{pattern.format(j=owner['journal'])}.{owner['slug']}.example"


def _site_routes(host: str, kinds: set) -> list[dict]:
    disallow = "Disallow: /\n" if "robots-disallowed" in kinds else "Disallow: /search\n"
    routes = [{"url": f"https://{host}/robots.txt", "content_type": "text/plain",
               "body": f"User-agent: *\n{disallow}"}]
    if "cookie-wall" in kinds:
        routes.append({"url": f"https://{host}/action/getSharedSiteSession", "handler": "shared-session",
                       "cookie": scenarios.SESSION_COOKIE, "rounds": 10, "absent": "/action/cookieAbsent"})
        routes.append({"url": f"https://{host}/action/cookieAbsent", "role": "cookie-absent",
                       "page": {"title": "Cookies disabled", "paragraphs": 1, "seed": 0,
                                "text": ["Your browser must accept cookies to use this site."]}})
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
        dois_out.write(json.dumps({"doi": entry["doi"], "ra": "crossref", "member": by_prefix[pfx],
                                   "url": entry["url"], "scenario": "corpus", "landing_url": entry["url"],
                                   "corpus": entry["manifest"]}) + "\n")
        routes_out.write(json.dumps(corpus_route(entry)) + "\n")
        added += 1
    return members, added


def _pii(rng, number):
    return f"S{rng.randrange(10000000, 99999999)}{rng.randrange(0, 99):02d}{number % 100000:05d}{rng.randrange(10)}"


def generate(outdir, dois: int, seed: int = 0, only=None, progress=None, corpus=None) -> dict:
    """Write a world of `dois` DOIs to outdir (world.json, dois.jsonl, routes.jsonl, truth.jsonl).

    `corpus`: a landing-page corpus folder whose real pages join the world, served from where they lie.
    """
    if dois < 1:
        raise ValueError("a world needs at least one DOI")
    unknown = set(only or ()) - set(scenarios.ALL)
    if unknown:
        raise ValueError(f"unknown scenario(s): {', '.join(sorted(unknown))}; known: {', '.join(scenarios.ALL)}")
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    n_dc = round(dois * DATACITE_SHARE) if dois > 1 else 0
    n_cr = dois - n_dc
    taken: set = set()
    members = _owners(rng, "crossref", max(min(3, n_cr), math.ceil(n_cr / DOIS_PER_OWNER)), CROSSREF_HABITS, taken)
    clients = _owners(rng, "datacite", max(min(2, n_dc), math.ceil(n_dc / DOIS_PER_OWNER)), DATACITE_HABITS, taken)
    sizes = _allocate(n_cr, len(members), rng) + _allocate(n_dc, len(clients), rng)
    hosts: dict = {}
    index = 0
    with (out / "dois.jsonl").open("w") as dois_out, (out / "routes.jsonl").open("w") as routes_out:
        for owner, size in zip(members + clients, sizes):
            for k in range(size):
                number = index + 1
                doi = f"{rng.choice(owner['prefixes'])}/{PLATFORMS[owner['platform']].suffix(rng, owner['journal'], number)}"
                scenario = _choose_scenario(rng, owner, index, only)
                host = _host(owner, scenario, bool(only))
                hosts.setdefault(host, set()).add(scenario)
                pii = _pii(rng, number) if owner["platform"] == "elsevier" else None
                landing = PLATFORMS[owner["platform"]].landing_url(host, doi, owner["journal"], number, pii)
                page = _page_spec(rng, owner, doi, number)
                if PLATFORMS[owner["platform"]].canonical:
                    page["canonical"] = landing
                ctx = scenarios.Context(doi, host, owner["slug"], number, landing, page, rng)
                resource = scenarios.build(scenario, ctx)
                record = {"doi": doi, "ra": owner["ra"], ("member" if owner["ra"] == "crossref" else "client"):
                          owner["id"], "url": resource, "scenario": scenario, "landing_url": landing}
                if pii:
                    record["pii"] = pii
                if rng.random() < SHORT_DOI_SHARE:
                    record["short"] = "10/" + _base32(number * 7 + 100000)
                dois_out.write(json.dumps(record) + "\n")
                for route in ctx.routes:
                    routes_out.write(json.dumps(route, separators=(",", ":")) + "\n")
                index += 1
                if progress and index % 10000 == 0:
                    progress(f"generated {index:,}/{dois:,} DOIs")
        for host, kinds in hosts.items():
            for route in _site_routes(host, kinds):
                routes_out.write(json.dumps(route, separators=(",", ":")) + "\n")
        extra_members, added = _add_corpus(corpus, taken, dois_out, routes_out) if corpus else ([], 0)
    total = index + added
    world = {"format": FORMAT, "seed": seed, "dois": total, "scenarios": list(only) if only else "mixed",
             "members": [{"id": m["id"], "primary-name": m["name"], "prefixes": m["prefixes"],
                          "location": "Example City", "platform": m["platform"]} for m in members] + extra_members,
             "clients": [{"id": c["id"], "name": c["name"], "prefixes": c["prefixes"], "platform": c["platform"]}
                         for c in clients]}
    (out / "world.json").write_text(json.dumps(world, indent=1) + "\n")
    build_index(out)
    from .truth import write_truth
    counts = write_truth(out, progress=progress)
    return {"dois": total, "members": len(members), "clients": len(clients), "hosts": len(hosts), **counts}
