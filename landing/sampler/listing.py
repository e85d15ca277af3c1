"""Listing, the first step of a run: every owner of each source with its DOI count, before any sample (sample
sizes depend on the largest owner). A mixin of the doi_sampler spider, which provides `_api`, `_answer` and
`_api_failed`, the endpoints, and the `listing` counts, `members`, `clients`, `prefixes_of`, `cursors` and
`listed` state.
"""

from landing.core.sources import crossref, datacite


class OwnerListing:
    def _listing_requests(self):
        if "crossref" in self.sources:
            self.listing["crossref"] = 1
            yield self._api(
                crossref.members_url(self.crossref_api, self.mailto), self.parse_members, listing="crossref"
            )
        if "datacite" in self.sources:
            self.listing["datacite"] = 1
            yield self._api(datacite.clients_url(self.datacite_api), self.parse_clients, listing="datacite")

    def _listed(self, source, failed=False, more=0):
        """One listing request of `source` answered (or failed), `more` of them asked for in its place."""
        self.listing[source] += more - 1
        if failed:
            self.listing[f"{source}-failed"] = True
        if not any(n for key, n in self.listing.items() if not key.endswith("-failed")):
            self.listed.set()

    def _owners(self):
        """([(ra, owner, DOI count)], whether every listing request was answered) once listing is over, or None
        (logged) when it found nobody. A failed request costs only the owners it would have listed: those listed
        are sampled now, and the next crawl lists again for the rest."""
        complete = not any(key.endswith("-failed") for key in self.listing)
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
        answered = self._answer(response, crossref.parse_members)
        if answered is None:
            return
        members, cursor, total = answered
        if cursor and cursor in self.cursors:  # asked again, the same page would come back for ever
            self._api_failed(response.request, f"the API repeated its cursor {cursor!r}")
            return
        known = {m["id"] for m in self.members}
        if members and all(m["id"] in known for m in members):  # paged by offset, the API answered a page again
            self._api_failed(response.request, f"the API repeated members {members[0]['id']!r}...")
            return
        self.cursors.add(cursor)
        self.members += members
        self.prefixes_of.update({("crossref", m["id"]): m["prefixes"] for m in members})
        if cursor:
            url = crossref.members_url(self.crossref_api, self.mailto, cursor)
        elif members and len(self.members) < total:
            # The route answered without a next-cursor (member cursors are not everywhere): page by offset.
            url = crossref.members_url(self.crossref_api, self.mailto, offset=len(self.members))
        else:
            url = None
        self._listed("crossref", more=1 if url else 0)
        if url:
            yield self._api(url, self.parse_members, listing="crossref")

    def parse_clients(self, response):
        answered = self._answer(response, lambda page: (*datacite.parse_clients(page), datacite.client_prefixes(page)))
        if answered is None:
            return
        clients, following, prefixes = answered
        self.prefixes_of.update({("datacite", client): found for client, found in prefixes.items()})
        self._listed("datacite", more=len(clients) + (1 if following else 0))
        for client in clients:
            self.clients[client] = None  # until its count answers: a client whose count failed is not planned
            yield self._api(
                datacite.count_url(self.datacite_api, client), self.parse_count, owner=client, listing="datacite"
            )
        if following:
            yield self._api(following, self.parse_clients, listing="datacite")

    def parse_count(self, response):
        total = self._answer(response, datacite.parse_total)
        if total is not None:
            self.clients[response.meta["owner"]] = total
            self._listed("datacite")
