"""How the crawler treats the web: addresses it must not reach, hostnames, pace, backoff, robots, failures."""
