#!/usr/bin/python3
"""The SAMP test fixture: astropy's SAMP hub on a private lockfile, plus two receiving clients.

  run_hub.py start DIR   starts `serve` in the background, waits until it is ready, exits 0
  run_hub.py serve DIR   the hub and the receivers (runs until SIGTERM)
  run_hub.py stop DIR    stops the `serve` process by the PID it wrote

DIR/lockfile is the hub's lockfile (SAMP_HUB=std-lockurl:file://DIR/lockfile); DIR/ready is written once
both receivers are registered; each message a receiver gets is appended to DIR/received-<name>.jsonl as
{"mtype", "params", "sender"}. The receivers are "glint-test-receiver-a" (table.load.fits,
table.load.votable, image.load.fits) and "glint-test-receiver-b" (image.load.fits only).
Without astropy (for /usr/bin/python3), `start` writes the reason to DIR/skip and exits 0: the test skips.
Run it with /usr/bin/python3: Debian's python3-astropy (a pyenv python3 on PATH lacks it).
"""
import json
import os
import signal
import subprocess
import sys
import time

RECEIVERS = {
    "glint-test-receiver-a": ["table.load.fits", "table.load.votable", "image.load.fits"],
    "glint-test-receiver-b": ["image.load.fits"],
}


def clean(folder):
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        if name in ("lockfile", "ready", "skip", "hub.pid", "hub.log") or name.startswith("received-"):
            os.remove(os.path.join(folder, name))


def start(folder):
    stop(folder)
    clean(folder)
    try:
        import astropy.samp  # noqa: F401
    except ImportError as error:
        with open(os.path.join(folder, "skip"), "w") as f:
            f.write(f"{sys.executable} has no astropy.samp ({error}): install python3-astropy\n")
        print(f"run_hub.py: skipping: {error}")
        return 0
    log = open(os.path.join(folder, "hub.log"), "w")
    process = subprocess.Popen([sys.executable, os.path.abspath(__file__), "serve", folder],
                               stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               start_new_session=True)
    with open(os.path.join(folder, "hub.pid"), "w") as f:
        f.write(f"{process.pid}\n")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if os.path.exists(os.path.join(folder, "ready")):
            print(f"run_hub.py: hub ready (pid {process.pid}), lockfile {folder}/lockfile")
            return 0
        if process.poll() is not None:
            break
        time.sleep(0.1)
    print("run_hub.py: the hub did not start; its log:")
    print(open(os.path.join(folder, "hub.log")).read())
    stop(folder)
    return 1


def logger(path):
    # astropy counts the callback's arguments: exactly five (no defaults) for a notification.
    def received(private_key, sender_id, mtype, params, extra):
        with open(path, "a") as f:
            f.write(json.dumps({"mtype": mtype, "params": params, "sender": sender_id}) + "\n")
    return received


def serve(folder):
    os.makedirs(folder, exist_ok=True)
    from astropy.samp import SAMPHubServer, SAMPIntegratedClient
    lockfile = os.path.join(folder, "lockfile")
    os.environ["SAMP_HUB"] = "std-lockurl:file://" + lockfile
    hub = SAMPHubServer(web_profile=False, lockfile=lockfile, label="glint-test-hub")
    hub.start(wait=False)
    clients = []
    for name, mtypes in RECEIVERS.items():
        client = SAMPIntegratedClient(name=name, description="Glint's test receiver")
        client.connect()
        received = logger(os.path.join(folder, f"received-{name}.jsonl"))
        for mtype in mtypes:
            client.bind_receive_notification(mtype, received)
        clients.append(client)

    def finish(signum, frame):
        for client in clients:
            try:
                client.disconnect()
            except Exception:
                pass
        hub.stop()
        os._exit(0)

    signal.signal(signal.SIGTERM, finish)
    signal.signal(signal.SIGINT, finish)
    with open(os.path.join(folder, "ready"), "w") as f:
        f.write("ready\n")
    print("serving", flush=True)
    while True:
        time.sleep(3600)


def stop(folder):
    pidfile = os.path.join(folder, "hub.pid")
    if not os.path.exists(pidfile):
        return 0
    pid = int(open(pidfile).read().strip())
    os.remove(pidfile)
    if os.path.exists(os.path.join(folder, "ready")):
        os.remove(os.path.join(folder, "ready"))
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return 0
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return 0
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "serve", "stop"):
        sys.exit(__doc__)
    folder = os.path.abspath(sys.argv[2])
    sys.exit({"start": start, "serve": serve, "stop": stop}[sys.argv[1]](folder))
