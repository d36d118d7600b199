"""The Patroni cluster of scripts/cluster.sh seen and handled from Python, shared by
scripts/failover-check.py and scripts/faults-run.py: Patroni's roles (REST GET /cluster), the
processes of a node (pid files under WORK/pids, postmaster.pid), starting one again. Standard
library only.
"""
import json
import os
import subprocess
import time
import urllib.request


class Cluster:
    def __init__(self, setup):
        self.setup = setup
        self.work = setup["work"]
        self.nodes = setup["nodes"]

    # --- Patroni's view -----------------------------------------------------------------------
    def state(self):
        """GET /cluster of the first node that answers, or None."""
        for node in self.nodes:
            try:
                return json.load(urllib.request.urlopen(f"http://127.0.0.1:{node['rest']}/cluster", timeout=1))
            except Exception:
                continue
        return None

    def members(self):
        """GET /cluster's members (name, role, state, lag, timeline...); [] when no node answers."""
        state = self.state()
        return state.get("members", []) if state else []

    def roles(self):
        """{member name: (role, state)}; {} when no node answers."""
        state = self.state()
        if not state:
            return {}
        return {m["name"]: (m.get("role"), m.get("state")) for m in state.get("members", [])}

    def leader(self):
        for name, (role, state) in self.roles().items():
            if role == "leader" and state == "running":
                return name
        return None

    def healthy(self):
        """A leader, a sync standby and three members running or streaming."""
        r = self.roles()
        return (len(r) == 3 and any(role == "leader" for role, _ in r.values())
                and any(role == "sync_standby" for role, _ in r.values())
                and all(state in ("running", "streaming") for _, state in r.values()))

    def node(self, name):
        return next(n for n in self.nodes if n["name"] == name)

    def index(self, node):
        """A node's number (1-3), as in its pid file's name."""
        return self.nodes.index(node) + 1

    # --- processes ----------------------------------------------------------------------------
    def pidfile(self, name):
        return os.path.join(self.work, "pids", f"{name}.pid")

    @staticmethod
    def read_pid(path):
        try:
            return int(open(path).read().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def patroni_pid(self, node):
        return self.read_pid(self.pidfile(f"patroni{self.index(node)}"))

    def postmaster_pid(self, node):
        return self.read_pid(os.path.join(node["data"], "postmaster.pid"))

    @staticmethod
    def children(pid):
        try:
            return [int(c) for c in open(f"/proc/{pid}/task/{pid}/children").read().split()]
        except OSError:
            return []

    @staticmethod
    def alive(pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        # A killed child of this process stays a zombie until waited for.
        try:
            return open(f"/proc/{pid}/stat").read().split(")")[-1].split()[0] != "Z"
        except OSError:
            return False

    def spawn(self, command, log, name, as_postgres):
        """Starts COMMAND (as postgres when asked and root), its pid in pids/NAME.pid for the cleanup."""
        if as_postgres and self.setup["pgUser"] == "postgres" and os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--"] + command
        process = subprocess.Popen(command, stdout=open(log, "ab"), stderr=subprocess.STDOUT, cwd="/",
                                   start_new_session=True)
        pid = process.pid
        if command[0] == "runuser":
            open(self.pidfile(name + "-wrapper"), "w").write(str(pid))
            for _ in range(100):
                children = self.children(pid)
                if children:
                    pid = children[0]
                    break
                time.sleep(0.05)
        open(self.pidfile(name), "w").write(str(pid))
        return process

    def restart_node(self, node):
        """Wipes a stopped node and starts its Patroni again: it rejoins as a replica from a fresh
        base backup (its postgres may have written past what the new leader has: no rewind)."""
        subprocess.run(["rm", "-rf", node["data"]], check=True)
        self.spawn([self.setup.get("patroni", "patroni"), node["config"]], node["log"], f"patroni{self.index(node)}", as_postgres=True)
