"""The checks of scripts/failover-check.py that read what the run left behind: answers, server
logs, the kept day counts, the threads. Pure functions over text and numbers, so each can be shown
red on a crafted input (scripts/failover_checks_test.py, run by `make test`). Standard library only.

Each returns the failures it finds, one line each naming the check; an empty list when it holds.
"""
import re
import threading

# What an outage may answer: 503 with one of these codes (docs/contracts.md). Any other 5xx,
# 502 and 504 included, is a failure, not a retry to be quiet about.
OUTAGE_CODES = ("databaseUnavailable", "serverBusy")

# Log levels at which resv-server writes a line for each request it finishes.
REQUEST_LOG_LEVELS = ("info", "debug", "trace")


def answer_failure(status, code, instance, route):
    """A failure line for an answer no client may get, or None: any 5xx but 503 with an outage code."""
    if status is None or status < 500:
        return None
    if status == 503 and code in OUTAGE_CODES:
        return None
    if status == 503:
        return f"5xx: 503 from instance {instance} for {route} with code {code!r}"
    return f"5xx: {status} from instance {instance} for {route}"


def install_thread_guard(fail):
    """Makes an exception that ends any thread a failure ("thread died: NAME: ERROR"), not a
    traceback on stderr while the run goes on and passes without that thread's work."""

    def hook(args):
        if args.exc_type is SystemExit:
            return
        fail(f"thread died: {args.thread.name if args.thread else '?'}: {args.exc_type.__name__}: {args.exc_value}")

    threading.excepthook = hook


def processes(lines):
    """The lines of one server log (instances are restarted onto the same file) split into one
    list per process: each process begins with its `listening on` line."""
    runs = [[]]
    for line in lines:
        if "listening on http" in line and runs[-1]:
            runs.append([])
        runs[-1].append(line)
    return runs


# Hummingbird's request id: a random number of the process in hex (up to 16 digits, no leading
# zeros), then a counter in 16 hex digits.
REQUEST_ID = re.compile(r"hb\.request\.id=([0-9a-f]+)([0-9a-f]{16})(?![0-9a-f])( ms=)?")


def unfinished_requests(lines, instance):
    """Requests one process began and never finished: each finished request is a line with its id
    (hb.request.id=ID ms=...), the ids of a process count up, so an id between its first and last
    without a line of its end is a request that never answered, and so is one that logged a line
    (a warning) and no end. Lines of a request that has
    not finished (a warning it logged) are quoted."""
    finished, seen, warned = {}, {}, {}
    for line in lines:
        found = REQUEST_ID.search(line)
        if not found:
            continue
        prefix, number = found.group(1), int(found.group(2), 16)
        seen.setdefault(prefix, set()).add(number)
        if found.group(3):
            finished.setdefault(prefix, set()).add(number)
        else:
            warned[(prefix, number)] = line.strip()[:200]
    never = []
    for prefix, numbers in seen.items():
        for number in range(min(numbers), max(numbers) + 1):
            if number not in finished.get(prefix, ()):
                never.append(f"requests never answered: instance {instance}: hb.request.id={prefix}{number:016x} "
                             "has no line of its end"
                             + (f" (logged: {warned[(prefix, number)]})" if (prefix, number) in warned else ""))
    return never


def never_answered(log_text_by_instance, log_level):
    """(failures, cut): requests never answered by the processes still running (the last of each
    log), and how many the processes killed with SIGKILL left unfinished (their kill cut them; the
    clients sent those again). At a level without request lines it cannot be told: a failure."""
    if log_level not in REQUEST_LOG_LEVELS:
        return [f"requests never answered: not computable at log level {log_level!r} (needs info)"], 0
    failures, cut = [], 0
    for instance, text in log_text_by_instance.items():
        runs = processes(text.splitlines())
        for killed in runs[:-1]:
            cut += len(unfinished_requests(killed, instance))
        failures += unfinished_requests(runs[-1], instance)
    if not any(REQUEST_ID.search(text) for text in log_text_by_instance.values()):
        failures.append(f"requests never answered: no request lines in the server logs at level {log_level!r}")
    return failures, cut


# swift-log's lines: "TIMESTAMP LEVEL LABEL: ...", a finished request's ending in its status.
ERROR_LEVEL = re.compile(r"^\S+ (error|critical) ")
FIVE_XX = re.compile(r"hb\.request\.id=\S+ ms=.* (5(?!03)\d\d)$")


def error_lines(log_text_by_instance):
    """Every server log line at error or critical level, and every request it answered with a 5xx
    other than 503 (the outage's answer, which the clients' side checks by its code)."""
    found = []
    for instance, text in log_text_by_instance.items():
        for line in text.splitlines():
            if ERROR_LEVEL.search(line) or FIVE_XX.search(line.rstrip()):
                found.append(f"server error line: instance {instance}: {line.rstrip()[:300]}")
    return found


def day_count_failures(count_output, count_status, acknowledged):
    """PostgreSQL's kept day counts must exist once bookings were made: an empty table (or one that
    could not be counted) checks nothing, so it fails rather than pass with every row compared."""
    text = count_output.strip()
    if count_status != 0 or not text.isdigit():
        return [f"kept day counts: could not count the table (status {count_status}): {text[:200]!r}"]
    if acknowledged and int(text) == 0:
        return [f"kept day counts: the table is empty after {acknowledged} acknowledged bookings"]
    return []
