#!/usr/bin/python3
"""The Slurm test fixture: a private one-node Slurm cluster (munged, slurmctld, slurmd) in a folder.

  slurm_cluster.py start DIR   stops what an earlier run left, writes the keys and DIR/slurm.conf, starts the
                               three daemons in the foreground of their own sessions, waits for the node to be
                               idle, exits 0 (or 1 with one line saying what did not come up, then the logs)
  slurm_cluster.py stop DIR    cancels the cluster's jobs and stops the daemons by the PIDs in DIR/pids

It installs nothing: munged, slurmctld, slurmd and the client commands come from Debian's slurm-wlm and munge
(scripts/glint-dev installs them). Nothing of the system's set-up is used or touched: munged has its own key,
socket, PID and log files in DIR (not /etc/munge or /run/munge), Slurm reaches it through AuthInfo=socket=...,
the ports are free ones picked at start, and the clients find the cluster through SLURM_CONF=DIR/slurm.conf.
The daemons run as root (SlurmUser=root, jobs run as the submitting user): the tests run as root.
"""
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time

ME = "slurm_cluster.py"
DAEMONS = ("slurmd", "slurmctld", "munged")  # stop order: the node, the controller, then authentication


def say(line):
    print(f"{ME}: {line}", flush=True)


def paths(folder):
    folder = os.path.abspath(folder)
    return {
        "dir": folder,
        "conf": os.path.join(folder, "slurm.conf"),
        "pids": os.path.join(folder, "pids"),
        "key_dir": os.path.join(folder, "munge-key"),
        "key": os.path.join(folder, "munge-key", "munge.key"),
        "socket_dir": os.path.join(folder, "munge"),
        "socket": os.path.join(folder, "munge", "munge.socket"),
        "log": os.path.join(folder, "log"),
        "state": os.path.join(folder, "state"),
        "spool": os.path.join(folder, "spool"),
        "run": os.path.join(folder, "run"),
    }


def run(command, timeout=20, env=None):
    """(exit status, stdout + stderr) of a client command; a hung command counts as a failure."""
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              timeout=timeout, env=env, text=True)
        return done.returncode, done.stdout.strip()
    except subprocess.TimeoutExpired:
        return 124, f"{command[0]} did not answer within {timeout} s"
    except OSError as error:
        return 127, f"cannot run {command[0]}: {error}"


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def alive(pid):
    # A zombie (a child not yet reaped) has stopped for our purposes.
    state = read_text(f"/proc/{pid}/stat").rpartition(")")[2].split()
    return bool(state) and state[0] not in ("Z", "X")


def ours(pid, p):
    """Whether process PID belongs to this cluster: a daemon whose command line names DIR, or a daemon, job step
    or job process that inherited SLURM_CONF=DIR/slurm.conf (the fixture starts the daemons with it)."""
    if pid in (os.getpid(), os.getppid()):
        return False
    comm = read_text(f"/proc/{pid}/comm").strip()
    daemon = comm == "munged" or comm.startswith("slurm")  # slurmctld, slurmscriptd, slurmd, slurmstepd
    if daemon and p["dir"] in read_text(f"/proc/{pid}/cmdline").replace("\0", " "):
        return True
    environ = read_text(f"/proc/{pid}/environ").split("\0")
    return f"SLURM_CONF={p['conf']}" in environ and (daemon or any(e.startswith("SLURM_JOB_ID=") for e in environ))


def terminate(pids, grace):
    """SIGTERM, then SIGKILL for those still running after GRACE seconds."""
    pids = [pid for pid in pids if alive(pid)]
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(alive(pid) for pid in pids):
        time.sleep(0.1)
    for pid in pids:
        if alive(pid):
            say(f"pid {pid} ignored SIGTERM for {grace} s: killing it")
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def recorded_pids(p):
    pids = {}
    for line in read_text(p["pids"]).splitlines():
        name, _, pid = line.partition(" ")
        if pid.strip().isdigit():
            pids[name] = int(pid)
    return pids


def stop(folder, quiet=False):
    p = paths(folder)
    pids = recorded_pids(p)
    env = dict(os.environ, SLURM_CONF=p["conf"])
    if pids.get("slurmctld") and alive(pids["slurmctld"]) and os.path.exists(p["conf"]):
        # Jobs first, so that no job step outlives its slurmd.
        status, out = run(["squeue", "-h", "-o", "%A"], timeout=15, env=env)
        jobs = sorted(set(out.split())) if status == 0 else []
        if jobs:
            run(["scancel", *jobs], timeout=15, env=env)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                status, out = run(["squeue", "-h", "-o", "%A"], timeout=15, env=env)
                if status != 0 or not out:
                    break
                time.sleep(0.5)
    for name in DAEMONS:
        pid = pids.get(name)
        if pid and alive(pid) and ours(pid, p):
            terminate([pid], grace=15)
    # Whatever else of this cluster still runs: job steps and jobs of a crashed run, daemons whose PID file was lost.
    strays = [int(e) for e in os.listdir("/proc") if e.isdigit() and alive(int(e)) and ours(int(e), p)]
    if strays:
        if not quiet:
            say("stopping leftover processes of this cluster: " + ", ".join(map(str, strays)))
        terminate(strays, grace=5)
    if os.path.exists(p["pids"]):
        os.remove(p["pids"])
    if not quiet:
        say(f"stopped the cluster in {p['dir']}")
    return 0


def free_ports(count):
    """COUNT distinct TCP ports, below the usual ephemeral range, that nothing listens on now."""
    chosen = []
    candidates = list(range(20000, 30000))
    random.shuffle(candidates)
    for port in candidates:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("", port))
            except OSError:
                continue
        chosen.append(port)
        if len(chosen) == count:
            return chosen
    raise RuntimeError("no free TCP port in 20000-29999")


def node_line(hostname):
    """The node's hardware as slurmd sees it (slurmd -C), so that the node registers as configured."""
    status, out = run(["slurmd", "-C"], timeout=30)
    line = next((l for l in out.splitlines() if l.startswith("NodeName=")), None)
    if status != 0 or line is None:
        raise RuntimeError(f"'slurmd -C' did not describe this node: {out[:300]}")
    fields = dict(item.split("=", 1) for item in line.split() if "=" in item)
    # RealMemory a little under the total: memory is not a consumable resource here, only checked against --mem.
    memory = max(1, int(int(fields.get("RealMemory", "1")) * 0.9))
    keep = ["CPUs", "Boards", "SocketsPerBoard", "CoresPerSocket", "ThreadsPerCore"]
    hardware = " ".join(f"{k}={fields[k]}" for k in keep if k in fields)
    return f"NodeName={hostname} NodeAddr=127.0.0.1 {hardware} RealMemory={memory} State=UNKNOWN"


def write_config(p, hostname, ports):
    text = f"""# Written by tests/slurm/slurm_cluster.py: a private one-node cluster for Glint's tests.
ClusterName=glinttest
SlurmctldHost={hostname}(127.0.0.1)
SlurmctldPort={ports[0]}
SlurmdPort={ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={p['socket']}
StateSaveLocation={p['state']}
SlurmdSpoolDir={p['spool']}
SlurmctldPidFile={p['run']}/slurmctld.pid
SlurmdPidFile={p['run']}/slurmd.pid
SlurmctldLogFile={p['log']}/slurmctld.log
SlurmdLogFile={p['log']}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
MailProg=/bin/true
# Finished jobs stay visible to scontrol/squeue for 10 minutes (there is no accounting, hence no sacct).
MinJobAge=600
KillWait=5
{node_line(hostname)}
PartitionName=glint Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""
    with open(p["conf"], "w") as f:
        f.write(text)


def launch(p, name, command, env):
    log = open(os.path.join(p["log"], f"{name}.out"), "w")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               start_new_session=True, env=env)
    log.close()
    with open(p["pids"], "a") as f:
        f.write(f"{name} {process.pid}\n")
    return process


def wait_for(what, check, process, timeout):
    """Polls CHECK (returns (ok, detail)) until it holds; fails when the daemon exits or TIMEOUT passes."""
    deadline = time.monotonic() + timeout
    detail = ""
    while time.monotonic() < deadline:
        ok, detail = check()
        if ok:
            return
        if process.poll() is not None:
            raise RuntimeError(f"{what}: the daemon exited with status {process.returncode} ({detail})")
        time.sleep(0.5)
    raise RuntimeError(f"{what}: not after {timeout} s ({detail})")


def show_logs(p):
    for name in sorted(os.listdir(p["log"])) if os.path.isdir(p["log"]) else []:
        lines = read_text(os.path.join(p["log"], name)).splitlines()[-25:]
        print(f"--- {name} (last {len(lines)} lines)")
        print("\n".join(lines))


def start(folder):
    if os.geteuid() != 0:
        say("the Slurm tests need root (the private cluster runs with SlurmUser=root): run ctest as root")
        return 1
    missing = [c for c in ("munged", "munge", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo", "scancel")
               if shutil.which(c) is None]
    if missing:
        say("not installed: " + ", ".join(missing) + " (scripts/glint-dev installs slurm-wlm and munge)")
        return 1
    p = paths(folder)
    stop(folder, quiet=True)  # a crashed earlier run's daemons, jobs and files
    shutil.rmtree(p["dir"], ignore_errors=True)
    for key in ("dir", "log", "state", "spool", "run", "socket_dir"):
        os.makedirs(p[key], mode=0o755, exist_ok=True)
    os.makedirs(p["key_dir"], mode=0o700, exist_ok=True)
    os.chmod(p["key_dir"], 0o700)
    # munged wants a key of at least 32 bytes, readable by its owner only.
    fd = os.open(p["key"], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, os.urandom(1024))
    os.close(fd)

    hostname = socket.gethostname().split(".")[0]
    env = dict(os.environ, SLURM_CONF=p["conf"])
    try:
        ports = free_ports(2)
        write_config(p, hostname, ports)
        munged = launch(p, "munged", ["munged", "--foreground", "--force", f"--key-file={p['key']}",
                                      f"--socket={p['socket']}", f"--pid-file={p['run']}/munged.pid",
                                      f"--log-file={p['log']}/munged.log", f"--seed-file={p['run']}/munged.seed",
                                      "--num-threads=2"], env)

        def munge_works():
            if not os.path.exists(p["socket"]):
                return False, "no socket yet"
            status, out = run(["munge", "--no-input", f"--socket={p['socket']}"], timeout=10)
            return status == 0, out[-200:]

        wait_for("munged did not answer on its socket " + p["socket"], munge_works, munged, 30)

        slurmctld = launch(p, "slurmctld", ["slurmctld", "-D", "-f", p["conf"]], env)

        def controller_up():
            status, out = run(["scontrol", "ping"], timeout=15, env=env)
            return status == 0 and "is UP" in out, out[-200:]

        wait_for(f"slurmctld did not come up on port {ports[0]}", controller_up, slurmctld, 60)

        slurmd = launch(p, "slurmd", ["slurmd", "-D", "-f", p["conf"]], env)

        def node_idle():
            status, out = run(["sinfo", "-h", "-N", "-n", hostname, "-o", "%T"], timeout=15, env=env)
            state = out.strip().lower()
            if status == 0 and any(s in state for s in ("drain", "inval", "fail")):
                _, why = run(["scontrol", "show", "node", hostname], timeout=15, env=env)
                raise RuntimeError(f"node {hostname} is '{state}': {' '.join(why.split())[:400]}")
            return status == 0 and state == "idle", f"node {hostname} is '{state}'"

        wait_for(f"slurmd did not register node {hostname} as idle", node_idle, slurmd, 90)
        if slurmctld.poll() is not None or munged.poll() is not None:
            raise RuntimeError("a daemon exited during the start")
    except RuntimeError as error:
        say(f"the private Slurm cluster did not start: {error}")
        show_logs(p)
        stop(folder, quiet=True)
        return 1
    say(f"cluster up: node {hostname}, slurmctld port {ports[0]}, slurmd port {ports[1]}, SLURM_CONF={p['conf']}")
    return 0


def main(argv):
    if len(argv) != 3 or argv[1] not in ("start", "stop"):
        print(f"usage: {ME} start|stop DIR", file=sys.stderr)
        return 2
    return start(argv[2]) if argv[1] == "start" else stop(argv[2])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
