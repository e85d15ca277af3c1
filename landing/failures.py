"""Map the exceptions Scrapy and Twisted raise for a failed visit onto landing.core.failures classes."""
from scrapy.exceptions import (CannotResolveHostError, DownloadCancelledError, DownloadConnectionRefusedError,
                               DownloadFailedError, DownloadTimeoutError, IgnoreRequest, ResponseDataLossError)
from twisted.internet import error as tx
from twisted.web._newclient import ResponseFailed

from .core.failures import redirect_failure
from .guard import ForbiddenAddress

_BY_TYPE = (
    ((DownloadTimeoutError, tx.TimeoutError, tx.TCPTimedOutError), "timeout"),
    ((CannotResolveHostError, tx.DNSLookupError), "dns"),
    ((DownloadConnectionRefusedError, DownloadFailedError, ResponseDataLossError, tx.ConnectError,
      tx.ConnectionLost, tx.ConnectionDone, ResponseFailed), "connection"),
)


def exception_failure(exc: BaseException, visited: list[str]) -> str:
    """The failure class of an exception that ended a visit; `visited` is the chain's URLs, last one included."""
    # First: its message names the host, and a host such as robots.example must not read as a robots refusal.
    if isinstance(exc, ForbiddenAddress):
        return "refused-address"
    if isinstance(exc, IgnoreRequest):
        message = str(exc).lower()
        if "robots" in message:
            return "robots"
        if "redirect" in message:
            return redirect_failure(visited)
    if isinstance(exc, DownloadCancelledError):
        # Scrapy says "larger than download max size" when DOWNLOAD_MAXSIZE cut it; other cancels are not size.
        return "too-large" if "max size" in str(exc) else "connection"
    for types, name in _BY_TYPE:
        if isinstance(exc, types):
            return name
    return "connection"
