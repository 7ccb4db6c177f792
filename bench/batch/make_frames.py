#!/usr/bin/env python3
"""make_frames.py: the batch bench's sky frames (docs/batch.md), with numpy only (no astropy needed).

usage: make_frames.py OUT_DIR COUNT [--size 1024] [--stars 60] [--seed 1] [--procs N]

Writes OUT_DIR/frame-00000.fits ...: float32 primary images of SIZE x SIZE, a flat sky of 100 with
Gaussian noise of sigma 5 and STARS Gaussian stars (FWHM 2.5-4 px, peaks 20-2000 above the sky) at
random positions; frame i uses the seed SEED + i, so a set is the same on every machine.
"""
import argparse
import multiprocessing
import os

import numpy as np


def header(size):
    cards = [
        "SIMPLE  =                    T",
        "BITPIX  =                  -32",
        "NAXIS   =                    2",
        f"NAXIS1  = {size:20d}",
        f"NAXIS2  = {size:20d}",
        "END",
    ]
    text = "".join(c.ljust(80) for c in cards)
    return (text + " " * (-len(text) % 2880)).encode("ascii")


def frame(size, stars, rng):
    img = rng.normal(100.0, 5.0, (size, size)).astype(np.float32)
    y, x = np.mgrid[0:15, 0:15]
    for _ in range(stars):
        cx, cy = rng.uniform(8, size - 8, 2)
        fwhm = rng.uniform(2.5, 4.0)
        peak = 10 ** rng.uniform(np.log10(20), np.log10(2000))
        x0, y0 = int(cx) - 7, int(cy) - 7
        s = fwhm / 2.3548
        img[y0:y0 + 15, x0:x0 + 15] += (peak * np.exp(-((x + x0 - cx) ** 2 + (y + y0 - cy) ** 2) / (2 * s * s))).astype(np.float32)
    return img


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("count", type=int)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--stars", type=int, default=60)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with multiprocessing.Pool(max(1, a.procs)) as pool:
        pool.starmap(write, [(a, i) for i in range(a.count)])


def write(a, i):
    data = frame(a.size, a.stars, np.random.default_rng(a.seed + i)).astype(">f4").tobytes()
    with open(os.path.join(a.out, f"frame-{i:05d}.fits"), "wb") as f:
        f.write(header(a.size) + data + b"\0" * (-len(data) % 2880))


if __name__ == "__main__":
    main()
