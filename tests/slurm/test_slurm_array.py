#!/usr/bin/python3
"""Slurm job arrays of `glint-cli batch --shard I/N` on the private cluster of slurm_cluster.py.

  test_slurm_array.py wait|poll --cli GLINT_CLI --script ARRAY_SCRIPT --work DIR

Both cases write the same input folder (the bundled samples, small generated FITS, PNG and CSV matrices, a
truncated FITS that fails and a file of no image format that is passed over), run `glint-cli batch` on it once
without shards, submit docs/slurm/glint-batch-array.sbatch (the users' recipe, unchanged: the test's settings are
sbatch options and environment) as a 4-task array, and check that the four parts together equal the unsharded run
(compare_shards.compare) and that each part holds its shard's files.
  wait  sbatch --wait, two CPUs a task (one where the node has one)
  poll  --cpus-per-task=1 without --wait: the tasks' states and exit codes from scontrol (no accounting, no
        sacct); then a rerun of shard 3 with GLINT_SHARDS=4 gives the same part, and the script's refusals of a
        rerun without GLINT_SHARDS show as FAILED tasks with exit code 2, leaving the parts as they were.
SLURM_CONF (set by ctest) names the cluster. Every wait is bounded; the test's jobs are cancelled when it fails.
"""
import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_shards import compare  # noqa: E402  the one place shard outputs are compared

ME = "test_slurm_array.py"
SHARDS = 4
BATCH_ARGS = ["--algo", "brightest", "--k", "3", "--backend", "cpu"]
TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
            "PREEMPTED", "SPECIAL_EXIT"}
JOB_TIMEOUT = 300  # seconds for one array to finish
TEST_BUDGET = 780  # seconds for the whole test, under ctest's TIMEOUT (900), so that a wait fails with its own line
DEADLINE = time.monotonic() + TEST_BUDGET
submitted = []


class Failure(Exception):
    pass


def check(condition, line):
    if not condition:
        raise Failure(line)


def run(command, timeout, **kwargs):
    try:
        return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                              text=True, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        raise Failure(f"'{' '.join(command[:3])} ...' did not finish within {timeout:.0f} s")
    except OSError as error:
        raise Failure(f"cannot run {command[0]}: {error}")


# --- inputs ---------------------------------------------------------------------------------------------------

def pattern(width, height, seed, peak):
    """A deterministic field of values with a few bright spots, so that brightest has regions to find."""
    state = seed
    values = []
    spots = [((seed * 7 + 3 * k) % width, (seed * 5 + 11 * k) % height) for k in range(3)]
    for y in range(height):
        for x in range(width):
            state = (state * 1103515245 + 12345) & 0x7FFFFFFF
            v = state % 50
            for k, (sx, sy) in enumerate(spots):
                d2 = (x - sx) ** 2 + (y - sy) ** 2
                if d2 < 9:
                    v += (peak - 60) // (k + 1) // (1 + d2)
            values.append(min(v, peak))
    return values


def write_fits(path, width, height, values, truncated=False):
    cards = ["SIMPLE  =                    T", "BITPIX  =                   16", "NAXIS   =                    2",
             f"NAXIS1  = {width:20d}", f"NAXIS2  = {height:20d}", "END"]
    header = "".join(card.ljust(80) for card in cards)
    header = header.ljust((len(header) + 2879) // 2880 * 2880).encode("ascii")
    data = b"" if truncated else struct.pack(f">{len(values)}h", *values)
    data += b"\0" * ((-len(data)) % 2880)
    with open(path, "wb") as f:
        f.write(header + data)


def write_png(path, width, height, values):
    def chunk(kind, payload):
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
    raw = b"".join(b"\0" + bytes(values[y * width:(y + 1) * width]) for y in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def write_csv(path, width, height, values):
    with open(path, "w") as f:
        for y in range(height):
            f.write(",".join(str(v) for v in values[y * width:(y + 1) * width]) + "\n")


def make_inputs(folder, source_dir):
    """The input folder: 17 images (one of which fails) and a file of no format; their sorted paths."""
    os.makedirs(folder)
    for name in ("aero.png", "ngc1316o.fit", "synthetic-mammogram.png"):
        shutil.copy(os.path.join(source_dir, "resources", "samples", name), folder)
    for k in range(6):
        write_fits(os.path.join(folder, f"frame-{k:02d}.fits"), 64, 48, pattern(64, 48, 10 + k, 4000))
    for k in range(4):
        write_png(os.path.join(folder, f"tile-{k:02d}.png"), 40, 30, pattern(40, 30, 30 + k, 255))
    for k in range(3):
        write_csv(os.path.join(folder, f"matrix-{k:02d}.csv"), 20, 15, pattern(20, 15, 50 + k, 900))
    write_fits(os.path.join(folder, "frame-bad-truncated.fits"), 64, 64, [], truncated=True)
    with open(os.path.join(folder, "notes.bin"), "wb") as f:
        f.write(bytes(range(256)) * 4)
    return sorted(os.path.join(folder, name) for name in os.listdir(folder))


# --- slurm ----------------------------------------------------------------------------------------------------

def remaining(limit=JOB_TIMEOUT):
    """Seconds for the next wait: at most LIMIT, and within the test's own deadline (before ctest's TIMEOUT)."""
    left = DEADLINE - time.monotonic()
    check(left > 1, f"the test's {TEST_BUDGET} s are spent")
    return min(limit, left)


def submit(options, script, args, env, wait=False):
    """sbatch's job id; with wait, also sbatch's exit status (the highest of the tasks')."""
    command = ["sbatch", "--parsable", *(["--wait"] if wait else []), *options, script, *args]
    with tempfile.TemporaryFile("w+") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   text=True, env=env)
        limit = remaining(JOB_TIMEOUT if wait else 60)
        deadline = time.monotonic() + limit
        job = ""
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
            if not job:
                # The job id is sbatch's first line, printed at submission, before --wait waits.
                out.seek(0)
                first = out.readline()
                if first.endswith("\n") and first.split(";")[0].strip().isdigit():
                    job = first.split(";")[0].strip()
                    submitted.append(job)
        timed_out = process.poll() is None
        if timed_out:
            process.kill()
            process.wait()
        out.seek(0)
        text = out.read()
    first = text.split("\n", 1)[0].split(";")[0].strip()
    if first.isdigit() and first not in submitted:
        job = first
        submitted.append(job)
    if timed_out:
        raise Failure(f"sbatch {'--wait ' if wait else ''}(job {job or '?'}) did not return within {limit:.0f} s"
                      + (f"; the tasks: {task_states(job, env)}" if job else f": {text.strip()[-300:]}"))
    check(job, f"sbatch did not submit the array (exit {process.returncode}): {text.strip()[-300:]}")
    return job, process.returncode


def task_states(job, env):
    """{array task id: (state, exit code, cpus)} of array JOB from scontrol (squeue keeps no exit codes, and
    there is no accounting for sacct); a task id range means tasks not yet split off."""
    result = run(["scontrol", "-o", "show", "job", job], timeout=30, env=env)
    check(result.returncode == 0, f"scontrol show job {job} failed: {result.stderr.strip()[:300]}")
    states = {}
    for line in result.stdout.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        states[fields.get("ArrayTaskId", "?")] = (fields.get("JobState"), fields.get("ExitCode"), fields.get("NumCPUs"))
    return states


def wait_for_tasks(job, expected_ids, env):
    limit = remaining()
    deadline = time.monotonic() + limit
    while True:
        states = task_states(job, env)
        if set(states) == set(expected_ids) and all(s[0] in TERMINAL for s in states.values()):
            return states
        if time.monotonic() > deadline:
            raise Failure(f"array {job} not finished after {limit:.0f} s: {states}")
        time.sleep(1)


def cancel_submitted(env):
    if submitted:
        subprocess.run(["scancel", *submitted], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       stdin=subprocess.DEVNULL, timeout=30, env=env)


# --- checks ---------------------------------------------------------------------------------------------------

def unsharded_run(cli, inputs_dir, out):
    result = run([cli, "batch", *BATCH_ARGS, "--out", out, inputs_dir], timeout=remaining())
    check(result.returncode == 0, f"the unsharded run failed (exit {result.returncode}): {result.stderr[-500:]}")
    check("frame-bad-truncated.fits" in result.stderr and "failed" in result.stderr,
          f"the unsharded run did not report the truncated FITS: {result.stderr[-500:]}")
    return result.stderr


def check_parts(cli, work, files, all_csv, log_glob):
    parts = [os.path.join(work, "parts", f"part-{i}.csv") for i in range(1, SHARDS + 1)]
    for part in parts:
        check(os.path.isfile(part), f"{part} was not written; logs: {tail_logs(log_glob)}")
    problems = compare(cli, all_csv, parts)
    check(not problems, "the parts differ from the unsharded run: " + "; ".join(problems[:5]))
    # Each part holds the files at positions i-1, i-1+N, ... of the sorted list (--shard's split).
    for i, part in enumerate(parts, start=1):
        with open(part) as f:
            names = {line.split(",", 1)[0] for line in f if line.startswith(work)}
        wrong = [n for n in names if files.index(n) % SHARDS != i - 1]
        check(not wrong, f"part-{i}.csv holds files of other shards: {wrong}")
        check(names, f"part-{i}.csv has no rows: every shard has files that succeed")
    # The truncated FITS failed in exactly the task whose shard holds it, and in no other.
    bad = files.index(os.path.join(work, "inputs", "frame-bad-truncated.fits")) % SHARDS + 1
    logs = sorted(glob.glob(log_glob))
    check(len(logs) >= SHARDS, f"{len(logs)} task logs for {SHARDS} tasks: {logs}")
    for log in logs:
        text = open(log, errors="replace").read()
        says_failed = "failed '" in text and "frame-bad-truncated.fits" in text
        check(says_failed == log.endswith(f"_{bad}.log"),
              f"{os.path.basename(log)}: {'reports' if says_failed else 'does not report'} the truncated FITS "
              f"(shard {bad} holds it): {text[-400:]}")
    return parts


def tail_logs(log_glob):
    return " | ".join(f"{os.path.basename(p)}: {open(p, errors='replace').read()[-300:]}"
                      for p in sorted(glob.glob(log_glob)))


def array_options(work, cpus):
    # The recipe's #SBATCH lines are for a real cluster (8 CPUs, 8 GB, 2 h); these fit the test's node.
    return [f"--array=1-{SHARDS}", f"--cpus-per-task={cpus}", "--mem=200M", "--time=10", "--job-name=glint-test",
            f"--chdir={work}", f"--output={work}/logs/%x-%A_%a.log"]


def case_wait(cli, script, work, env, files, all_csv):
    cpus = 2 if (os.cpu_count() or 1) >= 2 else 1
    job, status = submit(array_options(work, cpus), script, [*BATCH_ARGS, os.path.join(work, "inputs")], env,
                         wait=True)
    log_glob = os.path.join(work, "logs", f"glint-test-{job}_*.log")
    check(status == 0, f"sbatch --wait: exit {status} (array {job}); logs: {tail_logs(log_glob)}")
    check_parts(cli, work, files, all_csv, log_glob)
    check(open(os.path.join(work, "parts", "shards")).read().strip() == str(SHARDS), "parts/shards does not say 4")
    print(f"{ME}: wait: array {job} of {SHARDS} tasks, {cpus} CPUs each: the parts equal the unsharded run")


def case_poll(cli, script, work, env, files, all_csv):
    inputs = os.path.join(work, "inputs")
    job, _ = submit(array_options(work, 1), script, [*BATCH_ARGS, inputs], env)
    states = wait_for_tasks(job, [str(i) for i in range(1, SHARDS + 1)], env)
    log_glob = os.path.join(work, "logs", f"glint-test-{job}_*.log")
    for task, (state, exit_code, cpus) in sorted(states.items()):
        check(state == "COMPLETED" and exit_code == "0:0",
              f"task {job}_{task}: {state}, exit code {exit_code}; logs: {tail_logs(log_glob)}")
        check(cpus == "1", f"task {job}_{task} ran on {cpus} CPUs, asked for 1")
    queued = run(["squeue", "-h", "-j", job, "-t", "PENDING,RUNNING"], timeout=30, env=env)
    check(queued.returncode == 0 and not queued.stdout.strip(), f"squeue still lists array {job}: {queued.stdout}")
    parts = check_parts(cli, work, files, all_csv, log_glob)
    print(f"{ME}: poll: array {job}, one CPU a task, all COMPLETED 0:0: the parts equal the unsharded run")

    before = {p: open(p, "rb").read() for p in parts}
    part3 = parts[2]
    os.remove(part3)
    rerun, _ = submit([*array_options(work, 1)[1:], "--array=3", "--export=ALL,GLINT_SHARDS=4"], script,
                      [*BATCH_ARGS, inputs], env)
    state, exit_code, _ = wait_for_tasks(rerun, ["3"], env)["3"]
    check(state == "COMPLETED" and exit_code == "0:0",
          f"the rerun of shard 3 (job {rerun}): {state}, exit code {exit_code}")
    check(os.path.isfile(part3) and open(part3, "rb").read() == before[part3],
          "the rerun of shard 3 did not write the same part-3.csv")
    print(f"{ME}: poll: a rerun of shard 3 with GLINT_SHARDS=4 wrote the same part")

    # Reruns that forget GLINT_SHARDS: the script refuses (exit 2, one line), and scontrol shows it.
    for array, expect in (("3", "the array is not 1-N"), ("1", "holds the parts of a 4-shard run")):
        refused, _ = submit([*array_options(work, 1)[1:], f"--array={array}", "--job-name=glint-refused"], script,
                            [*BATCH_ARGS, inputs], env)
        state, exit_code, _ = wait_for_tasks(refused, [array], env)[array]
        log = os.path.join(work, "logs", f"glint-refused-{refused}_{array}.log")
        text = open(log, errors="replace").read() if os.path.exists(log) else "(no log)"
        check(state == "FAILED" and exit_code == "2:0",
              f"--array={array} without GLINT_SHARDS: {state}, exit code {exit_code} (expected FAILED 2:0): {text}")
        check(expect in text and len(text.strip().splitlines()) == 1,
              f"--array={array} without GLINT_SHARDS: the log does not say '{expect}' in one line: {text}")
    check(all(open(p, "rb").read() == before[p] for p in parts), "a refused rerun changed a part")
    print(f"{ME}: poll: reruns without GLINT_SHARDS fail with exit 2 and one line, the parts unchanged")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=["wait", "poll"])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--script", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--work", required=True)
    a = parser.parse_args()
    if "SLURM_CONF" not in os.environ or not os.path.isfile(os.environ["SLURM_CONF"]):
        print(f"{ME}: SLURM_CONF does not name the private cluster's slurm.conf (the slurm_cluster fixture)")
        return 1
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "logs"))
    env = dict(os.environ, GLINT_CLI=os.path.abspath(a.cli), GLINT_RESULTS=os.path.join(work, "parts"))
    try:
        files = make_inputs(os.path.join(work, "inputs"), a.source)
        all_csv = os.path.join(work, "all.csv")
        unsharded_run(a.cli, os.path.join(work, "inputs"), all_csv)
        (case_wait if a.case == "wait" else case_poll)(a.cli, os.path.abspath(a.script), work, env, files, all_csv)
    except (Failure, OSError) as failure:
        print(f"{ME}: {a.case}: FAILED: {failure}")
        cancel_submitted(env)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
