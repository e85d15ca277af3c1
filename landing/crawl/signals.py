"""The crawl's own signals."""

# Sent by a spider when a DOI's chain is over (keyword `jar`: its cookiejar key), so the jar can go.
chain_ended = object()

# Sent once when the crawl is asked to stop at once (a first SIGTERM or Ctrl-C: landing.sampler.shutdown): download
# handlers cancel what they have in flight and refuse what comes next.
crawl_stopping = object()
