#!/usr/bin/python3
"""Whether the parts of a sharded `glint-cli batch` run together equal the unsharded run of the same files.

  compare_shards.py GLINT_CLI UNSHARDED.csv PART.csv...   exit 0 when they do; else the difference, exit 1

The one place the Slurm tests compare shard outputs with an unsharded run (tests/slurm/test_slurm_array.py calls
compare()): `glint-cli merge` joins the parts, and the merged CSV must equal the unsharded one byte for byte (merge
checks that the parts are of one run, that every shard is there once and no file is in two parts; the bytes then
say that every row is the unsharded run's, in its order). Only Python's standard library.
"""
import os
import subprocess
import sys
import tempfile


def compare(cli, unsharded, parts):
    """The differences between the unsharded CSV and the merged parts, as lines (empty: equal)."""
    with tempfile.TemporaryDirectory() as tmp:
        merged = os.path.join(tmp, "merged.csv")
        result = subprocess.run([cli, "merge", merged, *parts], capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            return [f"glint-cli merge failed (exit {result.returncode}): {result.stderr.strip()[-400:]}"]
        try:
            with open(merged, "rb") as f:
                got_bytes = f.read()
            with open(unsharded, "rb") as f:
                want_bytes = f.read()
        except OSError as error:
            return [str(error)]
    if got_bytes == want_bytes:
        return []
    got, want = got_bytes.splitlines(), want_bytes.splitlines()
    for number, (a, b) in enumerate(zip(got, want), start=1):
        if a != b:
            return [f"line {number} of the merged parts differs from the unsharded run's: {a[:200]!r} != {b[:200]!r}"]
    return [f"the merged parts have {len(got)} lines, the unsharded run {len(want)}"]


def main(argv):
    if len(argv) < 4:
        print("usage: compare_shards.py GLINT_CLI UNSHARDED.csv PART.csv...", file=sys.stderr)
        return 2
    problems = compare(argv[1], argv[2], argv[3:])
    for line in problems[:20]:
        print(f"compare_shards.py: {line}")
    if len(problems) > 20:
        print(f"compare_shards.py: ... and {len(problems) - 20} more differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
