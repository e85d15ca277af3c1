"""Listing, the first step of a run: every owner of each source with its DOI count, before any sample (sample
sizes depend on the largest owner)."""

import asyncio

from landing.core.registries import crossref, datacite
from landing.core.registries.names import Names


class Listing:
    """The owners listed so far, and how many listing requests of each source are still out.

    api: the sampler's landing.sampler.answers.Api; cfg: the crawl's landing.config.Config; callbacks: the spider, whose parse_members, parse_clients and
    parse_count answer the requests made here.
    """

    def __init__(self, api, callbacks, cfg, crawler, logger):
        self.api = api
        self.callbacks = callbacks
        self.crawler = crawler
        self.logger = logger
        self.sources = cfg.sources
        self.mailto = cfg.mailto
        self.crossref_api = cfg.crossref_api
        self.datacite_api = cfg.datacite_api
        self.counts = {}  # source -> listing requests still out; "<source>-failed" once one of them failed
        self.members = []  # Crossref's members, as listed
        self.clients = {}  # DataCite's clients -> their DOI count (None until it answers)
        self.cursors = set()  # the Crossref cursors asked for already
        self.prefixes_of = {}  # (ra, owner) -> the prefixes its listing names, kept on its sample document
        self.names_of: dict[tuple[str, str], Names] = {}  # (ra, owner) -> its names, kept on its sample document
        self.over = asyncio.Event()

    def forget(self):
        """Drop what was listed, once the plan holds it."""
        self.members = []
        self.clients = {}
        self.prefixes_of = {}
        self.names_of = {}

    def requests(self):
        if "crossref" in self.sources:
            self.counts["crossref"] = 1
            yield self.api.request(
                crossref.members_url(self.crossref_api, self.mailto), self.callbacks.parse_members, listing="crossref"
            )
        if "datacite" in self.sources:
            self.counts["datacite"] = 1
            yield self.api.request(
                datacite.clients_url(self.datacite_api), self.callbacks.parse_clients, listing="datacite"
            )

    def answered(self, source, failed=False, more=0):
        """One listing request of `source` answered (or failed), `more` of them asked for in its place."""
        self.counts[source] += more - 1
        if failed:
            self.counts[f"{source}-failed"] = True
        if not any(n for key, n in self.counts.items() if not key.endswith("-failed")):
            self.over.set()

    def owners(self):
        """([(ra, owner, DOI count)], whether every listing request was answered) once listing is over, or None
        (logged) when it found nobody. A failed request costs only the owners it would have listed: those listed
        are sampled now, and the next crawl lists again for the rest."""
        complete = not any(key.endswith("-failed") for key in self.counts)
        owners = [("crossref", m["id"], m["total"]) for m in self.members]
        owners += [("datacite", client, total) for client, total in self.clients.items() if total is not None]
        if not complete:
            self.logger.error(
                "The owners could not all be listed: the %d listed are planned, and the same command "
                "lists again and samples those missing",
                len(owners),
            )
            return (owners, False) if owners else None
        if not owners:
            self.crawler.stats.set_value("landing/run/sampled_nothing", 1)
            self.logger.error("The APIs list no member or client: there is nothing to sample")
            return None
        self.logger.info("Listed %d Crossref members and %d DataCite clients", len(self.members), len(self.clients))
        return owners, True

    # Each listing callback counts the requests it asks for before yielding them: an answer to one of them may
    # arrive while this callback's output is still being consumed.
    def parse_members(self, response):
        answered = self.api.answer(response, crossref.parse_members)
        if answered is None:
            return
        members, cursor, total = answered
        if cursor and cursor in self.cursors:  # asked again, the same page would come back for ever
            self.api.refused(response.request, f"the API repeated its cursor {cursor!r}")
            return
        known = {m["id"] for m in self.members}
        if members and all(m["id"] in known for m in members):  # paged by offset, the API answered a page again
            self.api.refused(response.request, f"the API repeated members {members[0]['id']!r}...")
            return
        self.cursors.add(cursor)
        self.members += members
        self.prefixes_of.update({("crossref", m["id"]): m["prefixes"] for m in members})
        self.names_of.update({("crossref", m["id"]): Names(m["name"]) for m in members})
        if cursor:
            url = crossref.members_url(self.crossref_api, self.mailto, cursor)
        elif members and len(self.members) < total:
            # The route answered without a next-cursor (member cursors are not everywhere): page by offset.
            url = crossref.members_url(self.crossref_api, self.mailto, offset=len(self.members))
        else:
            url = None
        self.answered("crossref", more=1 if url else 0)
        if url:
            yield self.api.request(url, self.callbacks.parse_members, listing="crossref")

    def parse_clients(self, response):
        answered = self.api.answer(
            response,
            lambda page: (*datacite.parse_clients(page), datacite.client_prefixes(page), datacite.client_names(page)),
        )
        if answered is None:
            return
        clients, following, prefixes, names = answered
        self.prefixes_of.update({("datacite", client): found for client, found in prefixes.items()})
        self.names_of.update({("datacite", client): found for client, found in names.items()})
        self.answered("datacite", more=len(clients) + (1 if following else 0))
        for client in clients:
            self.clients[client] = None  # until its count answers: a client whose count failed is not planned
            yield self.api.request(
                datacite.count_url(self.datacite_api, client),
                self.callbacks.parse_count,
                owner=client,
                listing="datacite",
            )
        if following:
            yield self.api.request(following, self.callbacks.parse_clients, listing="datacite")

    def parse_count(self, response):
        total = self.api.answer(response, datacite.parse_total)
        if total is not None:
            self.clients[response.meta["owner"]] = total
            self.answered("datacite")
