#!/usr/bin/python3
"""Whether the parts of a sharded `glint-cli batch` run together equal the unsharded run of the same files.

  compare_shards.py UNSHARDED.csv PART.csv...   exit 0 when they do; else one line per difference, exit 1

The one place the Slurm tests compare shard outputs with an unsharded run (tests/slurm/test_slurm_array.py calls
compare()): when `glint-cli merge OUT.csv PART.csv...` is there, this becomes "merge, then the merged file equals
the unsharded one byte for byte".

Equal means: every part starts with the same comment lines (the recorded parameters) and header as the unsharded
CSV; each file's rows (grouped by the first column, `path`) are in exactly one part, in the same order and with
the same values as in the unsharded CSV; and no part has a file or a row the unsharded run lacks. Only Python's
standard library.
"""
import csv
import sys
from collections import OrderedDict


def read_batch_csv(path):
    """(comment lines, header, {path: [rows]}) of a batch CSV; the comment lines are those before the header."""
    comments = []
    with open(path, newline="", encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    start = 0
    while start < len(lines) and lines[start].startswith("#"):
        comments.append(lines[start].rstrip("\r\n"))
        start += 1
    rows = list(csv.reader(lines[start:]))
    if not rows:
        raise ValueError(f"{path}: no header line")
    header, body = rows[0], rows[1:]
    if not header or header[0] != "path":
        raise ValueError(f"{path}: the header does not start with 'path': {header[:3]}")
    by_file = OrderedDict()
    for number, row in enumerate(body, start=start + 2):
        if len(row) != len(header):
            raise ValueError(f"{path}:{number}: {len(row)} fields, the header has {len(header)}")
        by_file.setdefault(row[0], []).append(row)
    return comments, header, by_file


def compare(unsharded, parts):
    """The differences between the unsharded CSV and the parts taken together, as lines (empty: equal)."""
    problems = []
    try:
        comments, header, expected = read_batch_csv(unsharded)
        read = [(part, read_batch_csv(part)) for part in parts]
    except (OSError, ValueError) as error:
        return [str(error)]
    found = {}
    for part, (part_comments, part_header, by_file) in read:
        if part_comments != comments:
            problems.append(f"{part}: comment lines {part_comments} differ from the unsharded run's {comments}")
        if part_header != header:
            problems.append(f"{part}: header {part_header} differs from the unsharded run's {header}")
        for name, rows in by_file.items():
            if name in found:
                problems.append(f"{name}: in two parts, {found[name][0]} and {part}")
                continue
            found[name] = (part, rows)
    for name, rows in expected.items():
        if name not in found:
            problems.append(f"{name}: {len(rows)} rows in the unsharded run, in no part")
        elif found[name][1] != rows:
            part, got = found[name]
            problems.append(f"{name}: rows in {part} differ from the unsharded run's: {got} != {rows}")
    for name, (part, rows) in found.items():
        if name not in expected:
            problems.append(f"{name}: {len(rows)} rows in {part}, none in the unsharded run")
    return problems


def main(argv):
    if len(argv) < 3:
        print("usage: compare_shards.py UNSHARDED.csv PART.csv...", file=sys.stderr)
        return 2
    problems = compare(argv[1], argv[2:])
    for line in problems[:20]:
        print(f"compare_shards.py: {line}")
    if len(problems) > 20:
        print(f"compare_shards.py: ... and {len(problems) - 20} more differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
