#!/usr/bin/env bash
# Set-up test (ctest fixture "real_data"): puts real files from Debian's archive into the folder given
# as $1, taking them from installed packages when present, else downloading the .deb with apt-get
# download (no root needed) and unpacking it. A file that cannot be had is reported; the tests that
# need it skip with a message. Always exits 0: an unreachable archive is not a test failure.
set -u
dest=${1:?usage: fetch-real-data.sh DEST}
mkdir -p "$dest"
cd "$dest" || exit 0

# package  path-inside-package  name-in-dest
files=(
  "python-drizzle-testdata /usr/share/python-drizzle/test_data/j8bt06nyq_flt.fits j8bt06nyq_flt.fits"
  "python3-astropy /usr/lib/python3/dist-packages/astropy/io/fits/tests/data/comp.fits comp.fits"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/CT_small.dcm CT_small.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_small_jp2klossless.dcm MR_small_jp2klossless.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/JPEG2000.dcm JPEG2000.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_small_RLE.dcm MR_small_RLE.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/JPEG-lossy.dcm JPEG-lossy.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_small_bigendian.dcm MR_small_bigendian.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_truncated.dcm MR_truncated.dcm"
  "ftools-fv /usr/share/doc/ftools-fv/examples/sample_data/datacube.fit datacube.fit"
)

declare -A unpacked
missing=0
for entry in "${files[@]}"; do
  read -r pkg src name <<<"$entry"
  [ -s "$name" ] && continue
  if [ -s "$src" ]; then
    cp "$src" "$name" && continue
  fi
  if [ -z "${unpacked[$pkg]:-}" ]; then
    unpacked[$pkg]=1
    work=$(mktemp -d)
    if (cd "$work" && timeout 300 apt-get download "$pkg" >/dev/null 2>&1); then
      dpkg -x "$work"/*.deb "$work/root" 2>/dev/null
    fi
    mkdir -p "pkg-$pkg" && cp -r "$work/root/." "pkg-$pkg/" 2>/dev/null
    rm -rf "$work"
  fi
  if [ -s "pkg-$pkg$src" ]; then
    cp "pkg-$pkg$src" "$name"
  else
    echo "fetch-real-data: could not obtain $name (package $pkg); tests that need it will skip"
    missing=$((missing + 1))
  fi
done
rm -rf pkg-*
echo "fetch-real-data: $(ls | wc -l) files in $dest, $missing missing"
exit 0
