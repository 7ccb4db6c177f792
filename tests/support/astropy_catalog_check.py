#!/usr/bin/env python3
"""Reads the source catalogue files of test_source_catalog_files with astropy, as TOPCAT, SCAMP and astropy
users would: FOLDER/c.ldac (FITS_LDAC), c.fits (plain FITS), c.cat (ASCII_HEAD), next to FOLDER/in.fits (the
image). EXPECTED is "NAME=UNIT,..." in the catalogue's order. Prints "ok", or one line per problem and exits 1.
"""
import sys
import warnings

import astropy.units as u
import numpy as np
from astropy.io import ascii, fits
from astropy.table import Table
from astropy.wcs import WCS

folder, spec = sys.argv[1], sys.argv[2]
expected = [tuple(item.split("=", 1)) for item in spec.split(",")]
problems = []
warnings.simplefilter("error", u.UnitsWarning)  # a unit astropy cannot read is a problem


def check_table(table, what, rows, apertures):
    want = [name for name, _ in expected]
    if table.colnames != want:
        problems.append(f"{what}: columns {table.colnames}, expected {want}")
    for name, unit in expected:
        if name not in table.colnames:
            continue
        got = table[name].unit
        if (got is None) != (unit == "") or (unit and got != u.Unit(unit)):
            problems.append(f"{what}: {name} has unit {got!r}, expected {unit!r}")
    if len(table) != rows:
        problems.append(f"{what}: {len(table)} rows, expected {rows}")
    if "FLUX_APER" in table.colnames and table["FLUX_APER"].shape != (rows, apertures):
        problems.append(f"{what}: FLUX_APER has shape {table['FLUX_APER'].shape}")
    # astropy masks NaN in FITS tables (mask_invalid): an unknown value reads back as masked or NaN.
    def unknown(name):
        return np.isnan(np.ma.filled(np.ma.asarray(table[name], dtype=float), np.nan))

    if np.any(unknown("X_IMAGE")) or not np.any(unknown("ALPHA_J2000")):
        problems.append(f"{what}: X_IMAGE should be finite, ALPHA_J2000 NaN without a position")


with fits.open(f"{folder}/c.ldac") as hdul:
    names = [h.name for h in hdul]
    if names != ["PRIMARY", "LDAC_IMHEAD", "LDAC_OBJECTS"]:
        problems.append(f"LDAC: HDUs {names}")
    else:
        cards = hdul["LDAC_IMHEAD"].data["Field Header Card"][0]
        header = fits.Header.fromstring("\n".join(cards), sep="\n")
        if header["NAXIS1"] != 40 or header["NAXIS2"] != 30 or header["OBSERVER"] != "O'Brien":
            problems.append(f"LDAC_IMHEAD: NAXIS1 {header['NAXIS1']}, NAXIS2 {header['NAXIS2']}, "
                            f"OBSERVER {header['OBSERVER']!r}")
        with fits.open(f"{folder}/in.fits") as image:
            pixels = np.array([[0.0, 0.0], [39.0, 29.0], [12.5, 7.25]])
            a = WCS(header).all_pix2world(pixels, 0)
            b = WCS(image[0].header).all_pix2world(pixels, 0)
            if not np.array_equal(a, b):
                problems.append(f"LDAC_IMHEAD: WCS gives {a.tolist()}, the image {b.tolist()}")
rows, apertures = 4, 2
check_table(Table.read(f"{folder}/c.ldac", hdu="LDAC_OBJECTS"), "LDAC_OBJECTS", rows, apertures)
check_table(Table.read(f"{folder}/c.fits", hdu="SOURCES"), "FITS", rows, apertures)

text = ascii.read(f"{folder}/c.cat", format="sextractor")
flat = []
for name, _ in expected:
    flat.append(name)
    if "APER" in name:
        flat += [f"{name}_{k}" for k in range(1, apertures)]
if text.colnames != flat:
    problems.append(f"ASCII_HEAD: columns {text.colnames}, expected {flat}")
elif text["X_IMAGE"].unit != u.pix or len(text) != rows:
    problems.append(f"ASCII_HEAD: X_IMAGE unit {text['X_IMAGE'].unit}, {len(text)} rows")

print("\n".join(problems) if problems else "ok")
sys.exit(1 if problems else 0)
