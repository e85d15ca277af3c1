"""Map the exceptions Scrapy and Twisted raise for a failed visit onto landing.core.web.failures classes."""

from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadFailedError,
    DownloadTimeoutError,
    IgnoreRequest,
    NotSupported,
    ResponseDataLossError,
)
from twisted.internet import error as tx
from twisted.web._newclient import ResponseFailed

from landing.core.web.failures import redirect_failure
from landing.crawl.guard import ForbiddenAddress
from landing.crawl.hosts import InvalidHost

_BY_TYPE = (
    ((DownloadTimeoutError, tx.TimeoutError, tx.TCPTimedOutError), "timeout"),
    ((CannotResolveHostError, tx.DNSLookupError), "dns"),
    (
        (
            DownloadConnectionRefusedError,
            DownloadFailedError,
            ResponseDataLossError,
            tx.ConnectError,
            tx.ConnectionLost,
            tx.ConnectionDone,
            ResponseFailed,
        ),
        "connection",
    ),
)


def exception_failure(exc: BaseException, visited: list[str]) -> str:
    """The failure class of an exception that ended a visit; `visited` is the chain's URLs, last one included."""
    # First: its message names the host, and a host such as robots.example must not read as a robots refusal.
    if isinstance(exc, InvalidHost):
        return "invalid-host"
    if isinstance(exc, (ForbiddenAddress, NotSupported)):  # NotSupported: a scheme whose handler is off
        return "refused-address"
    if isinstance(exc, IgnoreRequest):
        message = str(exc).lower()
        if "download_maxsize" in message:  # HttpCompressionMiddleware stopping a body that decompresses too far
            return "too-large"
        if "robots" in message:
            return "robots"
        if "redirect" in message:
            return redirect_failure(visited)
    if isinstance(exc, DownloadCancelledError):
        # Scrapy says "larger than download max size" when DOWNLOAD_MAXSIZE cut it; other cancels are not size.
        return "too-large" if "max size" in str(exc) else "connection"
    if type(exc).__module__.startswith("playwright"):
        return _browser_failure(exc, visited)
    for types, name in _BY_TYPE:
        if isinstance(exc, types):
            return name
    return "connection"


def _browser_failure(exc: BaseException, visited: list[str]) -> str:
    # Chromium names network errors net::ERR_*; Playwright's own timeouts are TimeoutError.
    message = str(exc)
    if type(exc).__name__ == "TimeoutError" or "net::ERR_TIMED_OUT" in message:
        return "timeout"
    if "net::ERR_TOO_MANY_REDIRECTS" in message:
        return redirect_failure(visited)
    if "net::ERR_NAME_NOT_RESOLVED" in message:
        return "dns"
    return "connection"
