#!/bin/sh
# ogrinfo_network (issue 32): GDAL's own ogrinfo reads the network files that test_georef_network wrote with
# glint-cli trace --network (roads.gpkg, roads.shp, roads.geojson from a GeoTIFF in UTM zone 33N): each opens,
# holds one LineString feature, and names the CRS EPSG:32633.
# Usage: ogrinfo-network.sh OGRINFO FOLDER
set -u
ogrinfo=$1
dir=$2
status=0
for f in roads.gpkg roads.shp roads.geojson; do
    if ! out=$("$ogrinfo" -ro -al -so "$dir/$f" 2>&1); then
        echo "FAIL $f: ogrinfo cannot open it: $out"; status=1; continue
    fi
    echo "$out" | grep -q "Geometry: Line String" || { echo "FAIL $f: no Line String layer"; status=1; }
    echo "$out" | grep -q "Feature Count: 1" || { echo "FAIL $f: not one feature"; status=1; }
    # The CRS: EPSG 32633 by its ID (GeoPackage, GeoJSON) or, for a Shapefile's ESRI .prj, by its name.
    if echo "$out" | grep -q 'ID\["EPSG",32633\]' || echo "$out" | grep -Eq 'UTM[ _]zone[ _]33N'; then
        echo "ok $f: $(echo "$out" | grep -E '^(Geometry|Feature Count|Extent)' | tr '\n' ' ')"
    else
        echo "FAIL $f: the CRS is not WGS 84 / UTM zone 33N"; echo "$out"; status=1
    fi
done
exit $status
