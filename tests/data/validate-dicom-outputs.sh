#!/bin/sh
# The DICOM outputs of `glint-cli brightest --cad-sr/--gsps` checked by other readers: DCMTK's dsrdump
# (the SR must parse, no "E:" line) and dciodvfy (dicom3tools: no "Error" line) on both files, for
# CT_small.dcm, MR_small.dcm and MR_small relabelled as a mammogram (dcmodify Modality=MG).
# usage: validate-dicom-outputs.sh GLINT_CLI TESTDATA_DIR. Exit 77 (skipped) without dsrdump or the data.
set -u
cli=$1
data=$2
command -v dsrdump >/dev/null 2>&1 || { echo "dsrdump (Debian: dcmtk) is not installed"; exit 77; }
[ -f "$data/CT_small.dcm" ] && [ -f "$data/MR_small.dcm" ] || { echo "CT_small.dcm / MR_small.dcm not fetched"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$data/MR_small.dcm" "$tmp/MG_from_MR.dcm"
if command -v dcmodify >/dev/null 2>&1; then
    dcmodify -nb -m "(0008,0060)=MG" "$tmp/MG_from_MR.dcm" >/dev/null 2>&1 || { echo "dcmodify failed"; exit 1; }
fi
status=0
havedciodvfy=0
command -v dciodvfy >/dev/null 2>&1 && havedciodvfy=1
[ $havedciodvfy = 1 ] || echo "note: dciodvfy (Debian: dicom3tools) is not installed: only dsrdump checks"
for source in "$data/CT_small.dcm" "$data/MR_small.dcm" "$tmp/MG_from_MR.dcm"; do
    name=$(basename "$source" .dcm)
    sr="$tmp/$name-sr.dcm"
    ps="$tmp/$name-ps.dcm"
    if ! "$cli" brightest "$source" --k 3 --cad-sr "$sr" --gsps "$ps" >/dev/null 2>"$tmp/cli.err"; then
        echo "FAIL $name: glint-cli: $(cat "$tmp/cli.err")"
        status=1
        continue
    fi
    if ! dsrdump "$sr" >"$tmp/dsrdump.txt" 2>&1 || grep -q "^E:" "$tmp/dsrdump.txt"; then
        echo "FAIL $name: dsrdump:"
        cat "$tmp/dsrdump.txt"
        status=1
    else
        echo "ok $name: dsrdump reads the SR ($(grep -c SCOORD "$tmp/dsrdump.txt") SCOORD)"
    fi
    if [ $havedciodvfy = 1 ]; then
        for out in "$sr" "$ps"; do
            dciodvfy "$out" >"$tmp/dciodvfy.txt" 2>&1
            if grep -q "^Error" "$tmp/dciodvfy.txt"; then
                echo "FAIL $name: dciodvfy $(basename "$out"):"
                grep -E "^(Error|Warning)" "$tmp/dciodvfy.txt"
                status=1
            else
                echo "ok $name: dciodvfy $(basename "$out"): no errors, $(grep -c "^Warning" "$tmp/dciodvfy.txt") warnings"
            fi
        done
    fi
done
exit $status
