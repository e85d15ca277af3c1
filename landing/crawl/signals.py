"""The crawl's own signals."""

# Sent by a spider when a DOI's chain is over (keyword `jar`: its cookiejar key), so the jar can go.
chain_ended = object()
