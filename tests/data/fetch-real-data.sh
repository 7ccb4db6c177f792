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
  "ftools-fv /usr/share/doc/ftools-fv/examples/sample_data/ngc1316o.fit ngc1316o.fit"
  "ftools-fv /usr/share/doc/ftools-fv/examples/sample_data/datacube.fit datacube.fit"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/CT_small.dcm CT_small.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_small.dcm MR_small.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_small_RLE.dcm MR_small_RLE.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_small_bigendian.dcm MR_small_bigendian.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_small_expb.dcm MR_small_expb.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_small_implicit.dcm MR_small_implicit.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_small_jp2klossless.dcm MR_small_jp2klossless.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_small_jpeg_ls_lossless.dcm MR_small_jpeg_ls_lossless.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_small_padded.dcm MR_small_padded.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/MR_truncated.dcm MR_truncated.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/JPEG2000.dcm JPEG2000.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/JPEG2000-embedded-sequence-delimiter.dcm JPEG2000-embedded-sequence-delimiter.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/JPEG-lossy.dcm JPEG-lossy.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/JPGExtended.dcm JPGExtended.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/rtdose.dcm rtdose.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/rtdose_expb.dcm rtdose_expb.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/rtdose_rle.dcm rtdose_rle.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/rtdose_1frame.dcm rtdose_1frame.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/rtdose_expb_1frame.dcm rtdose_expb_1frame.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/rtdose_rle_1frame.dcm rtdose_rle_1frame.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/rtplan.dcm rtplan.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/ExplVR_BigEnd.dcm ExplVR_BigEnd.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/ExplVR_BigEndNoMeta.dcm ExplVR_BigEndNoMeta.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_rle.dcm SC_rgb_rle.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_rle_16bit.dcm SC_rgb_rle_16bit.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_rle_32bit.dcm SC_rgb_rle_32bit.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_rle_2frame.dcm SC_rgb_rle_2frame.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_rle_16bit_2frame.dcm SC_rgb_rle_16bit_2frame.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_jpeg_gdcm.dcm SC_rgb_jpeg_gdcm.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_ybr_full_422_uncompressed.dcm SC_ybr_full_422_uncompressed.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_jpeg_dcmtk.dcm SC_rgb_jpeg_dcmtk.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_dcmtk_+eb+cr.dcm SC_rgb_dcmtk_+eb+cr.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_dcmtk_+eb+cy+n1.dcm SC_rgb_dcmtk_+eb+cy+n1.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_dcmtk_+eb+cy+n2.dcm SC_rgb_dcmtk_+eb+cy+n2.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_dcmtk_+eb+cy+np.dcm SC_rgb_dcmtk_+eb+cy+np.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_dcmtk_+eb+cy+s2.dcm SC_rgb_dcmtk_+eb+cy+s2.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_dcmtk_+eb+cy+s4.dcm SC_rgb_dcmtk_+eb+cy+s4.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_jpeg_lossy_gdcm.dcm SC_rgb_jpeg_lossy_gdcm.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/SC_rgb_gdcm_KY.dcm SC_rgb_gdcm_KY.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/liver_1frame.dcm liver_1frame.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/liver_expb_1frame.dcm liver_expb_1frame.dcm"
  "python3-pydicom /usr/lib/python3/dist-packages/pydicom/data/test_files/image_dfl.dcm image_dfl.dcm"
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
  elif [ -s "pkg-$pkg$src.gz" ]; then # dh_compress may have gzipped a documentation file
    gzip -dc "pkg-$pkg$src.gz" >"$name"
  else
    echo "fetch-real-data: could not obtain $name (package $pkg); tests that need it will skip"
    missing=$((missing + 1))
  fi
done
rm -rf pkg-*
echo "fetch-real-data: $(ls | wc -l) files in $dest, $missing missing"
exit 0
