"""One input's answer: the cascade driven with a question-answering function, within the input's deadline.

`scrapy match` (MatcherSpider), the resident matcher and the service all answer through `bounded`: a deadline, a
registry that did not answer, or an odd input each end that input's Result with its reason, never another input's.
"""

import asyncio

from landing.core.cascade import Matching, drive_async
from landing.core.results import LookupFailed, Result


def short(text: str) -> str:
    """An input as a log line names it: a megabyte of junk is not repeated in the log.

    >>> short("x" * 300)[-22:]
    '... (300 characters)'
    """
    return text if len(text) <= 200 else f"{text[:200]}... ({len(text):,} characters)"


async def bounded(matching: Matching, ask, deadline: float, logger, *, inflight: set | None = None) -> Result | None:
    """The input's Result within `deadline` seconds (0: none); None when the cascade's task was cancelled by someone
    else (a stop: the owner of `inflight`, which holds the task while it runs, cancelled it)."""
    work = asyncio.ensure_future(drive_async(matching, ask))
    if inflight is not None:
        inflight.add(work)
    try:
        return await asyncio.wait_for(work, deadline or None)
    except TimeoutError:
        return matching.stopped("deadline", f"no answer within {deadline:g} s")
    except asyncio.CancelledError:
        if work.cancelled() and not asyncio.current_task().cancelling():
            return None  # the work was stopped, not its caller: the input is dropped, the caller goes on
        raise
    except LookupFailed as error:  # a registry that did not answer is no "not found": say which it was
        logger.warning("matching %r: %s", short(matching.text), error)
        return matching.stopped("lookup-failed", str(error))
    except Exception as error:  # one odd input must cost its own answer, never the others' or a silent gap
        # The user's terminal gets one line; the traceback is for whoever runs with -L DEBUG.
        logger.error("matching %r failed: %s: %s", short(matching.text), type(error).__name__, error)
        logger.debug("matching %r failed", short(matching.text), exc_info=True)
        return matching.stopped("error", f"{type(error).__name__}: {error}")
    finally:
        if inflight is not None:
            inflight.discard(work)
