#!/usr/bin/env python3
"""Each check of failover_checks.py shown red on a crafted input, and green on a good one:
`python3 scripts/failover_checks_test.py` (in `make test`, before the failover itself)."""
import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ left in the repository
import failover_checks as checks  # noqa: E402

A = "7cd18fcd0d2f93"  # the random part of one process's request ids (not always 16 digits)
B = "fedcba9876543210"  # of the process that replaced it


def begun(prefix, number):
    return f"2026-11-27T21:00:00+0000 info resv-server: hb.request.id={prefix}{number:016x} [ReservationServer] the database cannot be reached\n"


def ended(prefix, number):
    return f"2026-11-27T21:00:00+0000 info resv-server: hb.request.id={prefix}{number:016x} ms=3.05 [ReservationServer] GET /changes 200\n"


LISTENING = "2026-11-27T21:00:00+0000 notice resv-server: [resv_server] listening on http://127.0.0.1:4000\n"


class Answers(unittest.TestCase):
    def test_every_5xx_but_the_outages_503_fails(self):
        for status in (500, 501, 502, 504, 599):
            failure = checks.answer_failure(status, None, 1, "POST /reservations")
            self.assertIsNotNone(failure, status)
            self.assertTrue(failure.startswith("5xx: "), failure)
        self.assertIsNotNone(checks.answer_failure(503, "internal", 0, "GET /changes"))
        self.assertIsNotNone(checks.answer_failure(503, None, 0, "GET /changes"))

    def test_the_outages_answers_and_the_rest_pass(self):
        for status, code in ((503, "databaseUnavailable"), (503, "serverBusy"), (200, None), (201, None),
                             (409, "noCapacity"), (429, None), (None, None)):
            self.assertIsNone(checks.answer_failure(status, code, 0, "POST /reservations"), status)


class Threads(unittest.TestCase):
    def setUp(self):
        self.saved = threading.excepthook

    def tearDown(self):
        threading.excepthook = self.saved

    def test_a_thread_that_dies_is_a_failure_naming_it(self):
        failures = []
        checks.install_thread_guard(failures.append)

        def writer():
            raise KeyError("id")

        thread = threading.Thread(target=writer, name="writer alice 2")
        thread.start()
        thread.join()
        self.assertEqual(failures, ["thread died: writer alice 2: KeyError: 'id'"])

    def test_a_thread_that_returns_is_not(self):
        failures = []
        checks.install_thread_guard(failures.append)
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
        self.assertEqual(failures, [])


class ServerLogs(unittest.TestCase):
    def test_an_error_line_fails(self):
        logs = {0: LISTENING + "2026-11-27T21:00:01+0000 error resv-server: hb.request.id=1 [ReservationServer] request failed [error: x]\n", 1: ""}
        found = checks.error_lines(logs)
        self.assertEqual(len(found), 1)
        self.assertTrue(found[0].startswith("server error line: instance 0: "), found)

    def test_a_request_answered_with_a_5xx_but_503_fails(self):
        for status in ("500", "502", "504"):
            line = ended(A, 1).replace("GET /changes 200", f"POST /reservations {status}")
            self.assertEqual(len(checks.error_lines({0: LISTENING + line})), 1, status)
        line = ended(A, 1).replace("GET /changes 200", "POST /reservations 503")
        self.assertEqual(checks.error_lines({0: LISTENING + line}), [])

    def test_warnings_do_not(self):
        logs = {0: LISTENING + "2026-11-27T21:00:01+0000 warning resv-server: error=PSQLError(x) [ReservationServer] "
                "the database cannot be reached\n" + "2026-11-27T21:00:01+0000 info resv-server: psql_error=PSQLError("
                "error: connection reset (error set): Connection refused) [PostgresNIO] Connection creation failed\n"}
        self.assertEqual(checks.error_lines(logs), [])


class NeverAnswered(unittest.TestCase):
    def test_a_request_a_running_instance_began_and_never_ended_fails(self):
        log = LISTENING + begun(A, 1) + ended(A, 1) + begun(A, 2) + begun(A, 3) + ended(A, 3)
        failures, cut = checks.never_answered({0: log, 1: LISTENING + begun(B, 1) + ended(B, 1)}, "info")
        self.assertEqual(cut, 0)
        self.assertEqual(len(failures), 1, failures)
        self.assertIn(f"instance 0: hb.request.id={A}{2:016x} has no line of its end", failures[0])
        self.assertTrue(failures[0].startswith("requests never answered: "))

    def test_one_that_logged_a_line_after_the_last_end_and_never_ended_fails(self):
        log = LISTENING + begun(A, 1) + ended(A, 1) + begun(A, 2)
        failures, _ = checks.never_answered({0: log, 1: LISTENING + ended(B, 1)}, "info")
        self.assertEqual(len(failures), 1, failures)
        self.assertIn("(logged: ", failures[0])

    def test_one_cut_by_a_kill_of_its_instance_is_counted_not_failed(self):
        killed = LISTENING + begun(A, 1) + begun(A, 2) + ended(A, 2) + ended(A, 3)
        again = LISTENING + begun(B, 1) + ended(B, 1) + ended(B, 2)
        failures, cut = checks.never_answered({0: killed + again, 1: again}, "info")
        self.assertEqual((failures, cut), ([], 1))

    def test_at_notice_it_cannot_be_told_and_fails(self):
        failures, _ = checks.never_answered({0: LISTENING, 1: LISTENING}, "notice")
        self.assertEqual(len(failures), 1)
        self.assertIn("not computable at log level 'notice'", failures[0])

    def test_logs_without_request_lines_fail(self):
        failures, _ = checks.never_answered({0: LISTENING, 1: LISTENING}, "info")
        self.assertEqual(len(failures), 1)
        self.assertIn("no request lines", failures[0])

    def test_every_request_ended_passes(self):
        log = LISTENING + begun(A, 1) + ended(A, 1) + ended(A, 2) + ended(A, 3)
        self.assertEqual(checks.never_answered({0: log, 1: log}, "info"), ([], 0))


class DayCounts(unittest.TestCase):
    def test_an_empty_table_after_bookings_fails(self):
        failures = checks.day_count_failures("0\n", 0, 250)
        self.assertEqual(failures, ["kept day counts: the table is empty after 250 acknowledged bookings"])

    def test_a_table_that_cannot_be_counted_fails(self):
        self.assertEqual(len(checks.day_count_failures("", 2, 250)), 1)
        self.assertEqual(len(checks.day_count_failures("ERROR: relation", 0, 250)), 1)

    def test_rows_after_bookings_and_none_without_pass(self):
        self.assertEqual(checks.day_count_failures("12\n", 0, 250), [])
        self.assertEqual(checks.day_count_failures("0\n", 0, 0), [])


if __name__ == "__main__":
    unittest.main(verbosity=1)
