"""A consumer group lost while its input stream survives (deleted by hand, a failover to a replica that had not
caught up) is made again at the last answered entry, not at the stream's start, where every input would be answered
a second time (docs/service.md "Event streams"). The output stream names the input each of its entries answers: the
group starts before the first input it does not name, and the answered inputs after that point are kept in a set that
the write script reads, so that their second delivery is acknowledged with no second output."""

from redis.exceptions import ResponseError

from landing.core.matching.stream_entries import entry_order, resumed_at

# Output entries read back to find where the group starts: more than the entries every consumer of a group holds at
# once, which are the only ones a lost group leaves unanswered among those answered.
WINDOW = 10_000
# The answered-before-the-loss set outlives the redeliveries it is read for by far.
KEPT_SECONDS = 7 * 86_400


def answered_key(stream_in: str, group: str) -> str:
    """The set of the input ids a re-created group must not answer again."""
    return f"{stream_in}:{group}:answered"


async def start_of(client, stream_in: str, stream_out: str, group: str, logger) -> str | None:
    """The id a missing group is created at ("0": the stream's start); None when the group exists."""
    try:
        groups = await client.xinfo_groups(stream_in)
    except ResponseError:  # no stream yet: it is made with its group
        return "0"
    if any(_text(found["name"]) == group for found in groups):
        return None
    answered = [_text(_field(fields, "input")) for _, fields in await client.xrevrange(stream_out, count=WINDOW)]
    answered = [entry_id for entry_id in answered if entry_id]
    if not answered:
        return "0"
    oldest, newest = min(answered, key=entry_order), max(answered, key=entry_order)
    entries = [_text(entry_id) for entry_id, _ in await client.xrange(stream_in, oldest, newest)]
    point, skipped = resumed_at(answered, entries)
    if skipped:
        key = answered_key(stream_in, group)
        await client.sadd(key, *skipped)
        await client.expire(key, KEPT_SECONDS)
    logger.warning(
        "group %s of %s is missing while %s names answered inputs: created after entry %s (%d answered after it are "
        "acknowledged with no second output)",
        group,
        stream_in,
        stream_out,
        point,
        len(skipped),
    )
    return point


def _field(fields: dict, name: str):
    return fields.get(name.encode(), fields.get(name))


def _text(value):
    return value.decode() if isinstance(value, bytes) else value
