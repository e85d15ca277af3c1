"""Small readings of Scrapy responses shared by the sampler and the matcher."""


def headers(response) -> dict:
    """The first value of each header, names lower-cased, as the pure rules in landing.core take them."""
    return {k.decode("latin-1").lower(): v[0].decode("latin-1") for k, v in response.headers.items() if v}
