"""landing.core.sampling.lease_shares: how many of a run's DOIs one worker sharing its frontier may hold leased."""

from landing.core.sampling.lease_shares import lease_room, lease_share


def _lease_all(pushed: int, workers: int) -> int:
    """How many DOIs the first worker leases of `pushed` queued before any other worker joins."""
    held = 0
    while lease_room(pushed - held, held, held, workers) > 0:
        held += 1
    return held


def test_the_first_of_two_workers_leaves_half_a_small_run_queued_for_the_second():
    assert _lease_all(100, 2) == 50


def test_the_second_worker_joining_late_leases_the_other_half():
    assert lease_room(50, 50, 0, 2) == 50


def test_one_worker_alone_leases_the_whole_frontier():
    assert _lease_all(100, 1) == 100


def test_a_worker_holding_none_may_lease_the_last_doi_whatever_the_number_of_workers():
    assert lease_room(1, 0, 0, 8) == 1


def test_a_worker_left_alone_leases_again_as_its_visits_are_stored_until_the_frontier_is_empty():
    pending, held, visited = 100, 0, 0
    while pending or held:
        room = lease_room(pending, held, held, 2)
        assert room or held, "a worker holding nothing found no room while DOIs wait"
        pending, held = pending - room, held + room
        held, visited = held - 1, visited + 1  # one visit stored
    assert visited == 100


def test_the_share_counts_what_other_workers_hold():
    assert lease_share(10, 30, 2) == 20
