#!/usr/bin/env python3
"""Each invariant of fault_checks.py shown red on a hand-made history, and green on a good one:
`python3 scripts/fault_checks_test.py` (in `make test`, before scripts/faults itself)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ left in the repository
import fault_checks as checks  # noqa: E402

R, T = "rainier", "turtle"


def change(rid, kind, version, command="c"):
    return checks.change_key({"reservationId": rid.upper(), "change": kind, "after": {"version": version},
                              "command": command})


A1, A2, B1, A3, C1 = (change("a", "created", 1, "1"), change("a", "modified", 2, "2"), change("b", "created", 1, "3"),
                      change("a", "cancelled", 3, "4"), change("c", "created", 1, "5"))
FINAL = [A1, A2, B1, A3, C1]


class Bookings(unittest.TestCase):
    def test_an_acknowledged_booking_not_read_back_is_lost(self):
        failures = checks.lost_bookings({"a", "b", "c"}, {"a": {}, "c": {}})
        self.assertEqual(len(failures), 1)
        self.assertTrue(failures[0].startswith("acknowledged bookings lost: 1 of 3 not read back: b"), failures)

    def test_every_acknowledged_booking_read_back_whatever_its_status_holds(self):
        self.assertEqual(checks.lost_bookings({"a", "b"}, {"a": {"status": "cancelled"}, "b": {}, "x": {}}), [])

    def test_an_indeterminate_booking_is_resolved_never_lost_or_failed(self):
        # made: read back (a), or settled as made (b); not made: settled so (c), or no one knows (d).
        self.assertEqual(checks.resolve({"a", "b", "c", "d"}, {"a": {}}, {"b": True, "c": False}), (2, 2))
        self.assertEqual(checks.lost_bookings(set(), {"a": {}}), [])
        self.assertEqual(checks.untold_bookings({"a": {}}, set(), {"a", "b"}), [])

    def test_a_stored_booking_no_client_was_told_about_fails(self):
        failures = checks.untold_bookings({"a": {}, "z": {}}, {"a"}, {"b"})
        self.assertEqual(failures, ["bookings no client was told about: 1 stored: z"])


class Capacity(unittest.TestCase):
    def test_a_day_over_its_capacity_in_the_records_fails(self):
        records = [(R, "2026-12-01", 8, "confirmed"), (R, "2026-12-01", 3, "held"), (R, "2026-12-02", 8, "confirmed")]
        failures = checks.over_capacity(records, {R: 10})
        self.assertEqual(failures, ["capacity: day over capacity: rainier on 2026-12-01: 11 of 10 (the records)"])

    def test_one_over_capacity_in_the_servers_availability_fails(self):
        failures = checks.over_capacity([], {R: 10}, [(R, "2026-12-01", 11, 10), (T, "2026-12-01", 10, 10)])
        self.assertEqual(failures, ["capacity: day over capacity: rainier on 2026-12-01: 11 of 10 (availability)"])

    def test_what_takes_no_places_is_not_counted(self):
        records = [(R, "2026-12-01", 10, "confirmed")] + [(R, "2026-12-01", 8, s) for s in
                                                          ("cancelled", "waitlisted", "expired")]
        self.assertEqual(checks.over_capacity(records, {R: 10}, [(R, "2026-12-01", 10, 10)]), [])


class Feed(unittest.TestCase):
    def test_a_watcher_that_skipped_a_change_has_a_gap(self):
        failures = checks.feed_list("w", [A1, A2, A3, C1], FINAL)
        self.assertEqual(len(failures), 1)
        self.assertTrue(failures[0].startswith("feed: gap: w never got 1 of 5 changes"), failures)

    def test_a_change_got_twice_fails(self):
        failures = checks.feed_list("w", [A1, A2, B1, B1, A3, C1], FINAL)
        self.assertEqual(len(failures), 1)
        self.assertTrue(failures[0].startswith("feed: change twice: w got 1 change(s)"), failures)

    def test_changes_in_another_order_than_the_final_read_fail(self):
        failures = checks.feed_list("w", [A1, B1, A2, A3, C1], FINAL)
        self.assertEqual(failures, ["feed: order: w got changes in another order than the final read"])

    def test_the_whole_feed_in_order_holds(self):
        self.assertEqual(checks.feed_list("w", list(FINAL), FINAL), [])

    def test_two_watchers_with_a_pair_in_opposite_orders_fail(self):
        failures = checks.pair_orders({"w1": [A1, A2, B1], "w2": [A1, B1, A2], "w3": [A1, A2]})
        self.assertEqual(failures, ["feed: order: w1 and w2 saw two changes in opposite orders"])

    def test_watchers_that_agree_on_every_pair_hold_even_with_different_parts(self):
        self.assertEqual(checks.pair_orders({"w1": [A1, A2, B1], "w2": [A2, B1, A3], "w3": [A1, C1]}), [])

    def test_a_read_that_is_not_a_prefix_of_the_final_one_fails(self):
        # a change read and later gone; two changes read in another order; a change inserted before one read
        for read in ([A1, C1], [A2, A1], [A1, B1]):
            failures = checks.append_only([("r", read)], FINAL)
            self.assertEqual(len(failures), 1, read)
            self.assertTrue(failures[0].startswith("feed: not append-only: r"), failures)

    def test_prefixes_hold(self):
        self.assertEqual(checks.append_only([("r1", []), ("r2", [A1, A2]), ("r3", list(FINAL))], FINAL), [])

    def test_a_read_begun_after_an_acknowledged_write_that_lacks_it_fails(self):
        writes = [(1.0, [("a", 1)]), (2.0, [("b", 1)])]
        failures = checks.stale_reads([("r", 2.5, [A1, A2])], writes)
        self.assertEqual(len(failures), 1)
        self.assertTrue(failures[0].startswith("feed: acknowledged change not seen by a later read: r"), failures)

    def test_a_read_begun_before_the_acknowledgement_may_lack_it(self):
        writes = [(1.0, [("a", 1)]), (2.0, [("b", 1)])]
        self.assertEqual(checks.stale_reads([("r", 1.5, [A1]), ("r2", 2.5, [A1, B1])], writes), [])


class Outage(unittest.TestCase):
    def test_from_the_first_failure_to_the_first_success_after_it(self):
        events = [(8.0, 9.9, False), (9.0, 9.1, True), (10.0, 10.2, True), (10.5, 12.5, False),
                  (11.0, 13.0, False), (12.6, 14.0, True), (13.0, 13.5, True)]
        first, seconds = checks.outage(events, 10.0)
        self.assertAlmostEqual(first, 2.5)
        self.assertAlmostEqual(seconds, 1.0)  # 13.5: sent after the first failure was, answered after it

    def test_a_request_under_way_when_the_fault_began_counts(self):
        self.assertEqual(checks.outage([(9.0, 11.0, False), (11.5, 12.0, True)], 10.0), (1.0, 1.0))

    def test_no_failure_is_no_outage_and_no_success_is_none(self):
        self.assertIsNone(checks.outage([(10.0, 10.1, True)], 10.0))
        self.assertEqual(checks.outage([(10.0, 11.0, False)], 10.0), (1.0, None))


if __name__ == "__main__":
    unittest.main(verbosity=1)
