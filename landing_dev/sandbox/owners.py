"""The owners of a generated world, Crossref members and DataCite clients: their names, prefixes, platforms and
habits, and how many DOIs each holds, in the `dois=N` shape or the real registries' (`owners=N`)."""

import math

from landing_dev.sandbox.platforms import CROSSREF_HABITS, DATACITE_HABITS

_NAMES = (
    "Aurora Boreal Cedar Delta Ember Fjord Granite Harbor Iris Juniper Kestrel Lumen Meridian Nimbus "
    "Orchid Prairie Quartz Riverside Summit Tundra Umber Vertex Willow Xylem Yarrow Zephyr"
).split()
_KINDS = ("Press", "Society", "Publishing", "Academic", "University Press", "Institute")
DATACITE_SHARE = 0.15
DOIS_PER_OWNER = 100
# Prefixes: a large real member holds dozens (journals that came with their own, imprints, acquisitions), most
# of its DOIs under its first and a handful under its last, so a member-wide sample misses those. An owner gets
# one more prefix per PREFIX_EVERY DOIs, up to PREFIX_MOST in all; a DOI takes its owner's k-th added prefix with
# weight 1/(k+2)**PREFIX_TAIL against its own prefix's 1. Drawn from their own random stream (seed + 1), so a
# seed's world keeps the owners, hosts and pages it had before: only the DOIs that moved to added prefixes change.
PREFIX_EVERY, PREFIX_MOST, PREFIX_TAIL = 150, 48, 2.0

# The owners= shape. Real registries: ~20,000 Crossref members and ~3,000 DataCite clients, each sampled at
# least LANDING_SAMPLE_MIN (10) times, so a real full run samples ~230,000 DOIs; the default here has more
# members so that a full run samples 500,000 (sum of sample_size at 10/100), while DataCite keeps ~3,000.
FULL_OWNERS = 56_000
FULL_DATACITE_SHARE = 0.055
# Owner sizes: a log-normal body (floor + lognormal(median, sigma): a handful to a few hundred DOIs) under a
# Zipf head (rank r holds largest / r**1.1). The real largest hold millions (Elsevier ~20M): scaled down to
# these, which keeps every share of the largest above 5% (the owners sampled above the minimum) as it is.
FULL_BODY = (4, 7, 0.8)
FULL_HEAD_EXPONENT = 1.1
FULL_LARGEST = {"crossref": 10_000, "datacite": 5_000}
# Shared platform hosts (platform, habit, host, share of the agency's owners): one host serving many owners,
# like a national journal portal (DergiPark, J-STAGE, SciELO), Atypon or HighWire serving hundreds of
# societies, or a data repository hosting institutions' clients. Everyone else has hosts of their own.
FULL_SHARED_HOSTS = {
    "crossref": (
        ("ojs", "direct", "journals.national-portal.example", 0.05),
        ("ojs", "direct", "revistas.regional-portal.example", 0.03),
        ("ojs", "placeholder-doi", "ojs.journal-hosting.example", 0.01),
        ("atypon", "cookie-wall", "www.society-platform.example", 0.02),
        ("atypon", "direct", "pubs.press-platform.example", 0.015),
        ("highwire", "http-to-https", "content.hosted-journals.example", 0.01),
        ("elsevier", "multi-hop", "www.science-library.example", 0.005),
        ("springer", "direct", "link.big-publisher.example", 0.01),
    ),
    "datacite": (
        ("repository", "direct", "data.repository-hub.example", 0.1),
        ("dataverse", "http-to-https", "dataverse.university-consortium.example", 0.05),
    ),
}


def allocate(total: int, owners: int, rng) -> list[int]:
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


def make_owners(rng, ra: str, count: int, habits, taken: set, prefix_top: int = 99999) -> list[dict]:
    owners = []
    choices, weights = [h[:2] for h in habits], [h[2] for h in habits]
    for i in range(count):
        name = f"{rng.choice(_NAMES)} {rng.choice(_NAMES)} {rng.choice(_KINDS)}"
        slug = "-".join(name.lower().split()[:2]) + f"-{i}"
        prefixes = []
        while len(prefixes) < (2 if rng.random() < 0.2 else 1):
            candidate = f"10.{rng.randrange(1000, prefix_top)}"
            if candidate not in taken and candidate != "10.5555":
                taken.add(candidate)
                prefixes.append(candidate)
        platform, default = rng.choices(choices, weights)[0]
        journal = "".join(w[0] for w in name.lower().split()) + _NAMES[i % len(_NAMES)][:2].lower()
        owner = {
            "ra": ra,
            "name": name,
            "slug": slug,
            "prefixes": prefixes,
            "platform": platform,
            "scenario": default,
            "journal": journal,
        }
        if ra == "crossref":
            owner["id"] = str(rng.randrange(100, 50000) * 7 + i % 7)
        else:
            owner["id"] = f"{slug.split('-')[0]}.{slug.split('-')[1]}{i}"
        owners.append(owner)
    return owners


def providers_of(clients) -> list[dict]:
    """The DataCite providers of the clients, one for each id before a client id's first dot, named after it (as
    real providers hold many repositories); no random draw, so a seed makes the same world as before.

    >>> providers_of([{"id": "aurora.boreal3"}, {"id": "aurora.cedar7"}, {"id": "delta.iris1"}])
    [{'id': 'aurora', 'name': 'Aurora Data Consortium'}, {'id': 'delta', 'name': 'Delta Data Consortium'}]
    """
    ids = sorted({client["id"].split(".")[0] for client in clients})
    return [{"id": provider, "name": f"{provider.title()} Data Consortium"} for provider in ids]


def more_prefixes(rng, owners, sizes, taken: set) -> None:
    """Give each owner its added prefixes (`more`) and the weights its DOIs choose among its prefixes by."""
    for owner, size in zip(owners, sizes):
        wanted = max(0, min(PREFIX_MOST - len(owner["prefixes"]), size // PREFIX_EVERY))
        more = []
        while len(more) < wanted:
            candidate = f"10.{rng.randrange(200000, 1000000)}"  # 6 digits: never a real prefix of the corpus
            if candidate not in taken:
                taken.add(candidate)
                more.append(candidate)
        owner["more"], owner["weights"] = more, [1.0] + [1 / (k + 2) ** PREFIX_TAIL for k in range(wanted)]


def pick_prefix(rng, prefix_rng, owner) -> str:
    prefix = rng.choice(owner["prefixes"])
    return prefix_rng.choices([prefix, *owner["more"]], owner["weights"])[0] if owner.get("more") else prefix


def long_tail(count: int, largest: int, rng) -> list[int]:
    """Owner sizes, in random order: the log-normal body under the Zipf head (FULL_BODY, FULL_HEAD_EXPONENT)."""
    floor, median, sigma = FULL_BODY
    body = sorted((floor + round(rng.lognormvariate(math.log(median), sigma)) for _ in range(count)), reverse=True)
    sizes = [max(size, round(largest / rank**FULL_HEAD_EXPONENT)) for rank, size in enumerate(body, 1)]
    rng.shuffle(sizes)
    return sizes


def share_hosts(rng, owners, shared):
    """Move each owner onto a shared host with that host's probability, taking its platform and habit."""
    for owner in owners:
        draw = rng.random()
        for platform, habit, host, share in shared:
            if draw < share:
                owner.update(platform=platform, scenario=habit, host=host)
                break
            draw -= share


def dois_owners(rng, dois: int, taken: set):
    """(members, clients, sizes) of the dois= shape: about one owner per DOIS_PER_OWNER DOIs, Zipf-like sizes."""
    n_dc = round(dois * DATACITE_SHARE) if dois > 1 else 0
    n_cr = dois - n_dc
    members = make_owners(rng, "crossref", max(min(3, n_cr), math.ceil(n_cr / DOIS_PER_OWNER)), CROSSREF_HABITS, taken)
    clients = make_owners(rng, "datacite", max(min(2, n_dc), math.ceil(n_dc / DOIS_PER_OWNER)), DATACITE_HABITS, taken)
    return members, clients, allocate(n_cr, len(members), rng) + allocate(n_dc, len(clients), rng)


def full_owners(rng, owners: int, taken: set):
    """(members, clients, sizes) of the owners= shape."""
    n_dc = round(owners * FULL_DATACITE_SHARE) if owners > 1 else 0
    # 10.1000-10.999999: the 5-digit range alone is too small for tens of thousands of owners.
    members = make_owners(rng, "crossref", owners - n_dc, CROSSREF_HABITS, taken, prefix_top=999999)
    clients = make_owners(rng, "datacite", n_dc, DATACITE_HABITS, taken, prefix_top=999999)
    for member, number in zip(members, rng.sample(range(100, 10 * len(members) + 1000), len(members))):
        member["id"] = str(number)  # _owners' ids collide by the tens of thousands
    share_hosts(rng, members, FULL_SHARED_HOSTS["crossref"])
    share_hosts(rng, clients, FULL_SHARED_HOSTS["datacite"])
    sizes = long_tail(len(members), FULL_LARGEST["crossref"], rng) + long_tail(
        len(clients), FULL_LARGEST["datacite"], rng
    )
    return members, clients, sizes
