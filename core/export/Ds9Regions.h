// DS9 region files (format version 4.0): writing Glint's regions in image or fk5 (J2000) coordinates,
// and a reader for DS9's syntax that turns what we write back into regions (round-trip tests, the GUI).
#pragma once

#include "core/export/ExportRegions.h"

#include <map>
#include <string>
#include <vector>

namespace glint {

// The text of a .reg file. Boxes: box(xc,yc,w,h,angle) with `# text={...}` labels; traces: one `line`
// per segment (an open path: DS9's polygon would close it), grouped by tag; component outlines:
// `polygon` for each outer boundary and `-polygon` (excluded) for each hole. In fk5 (needs
// document.pixelToSky) centres and vertices are RA/Dec J2000 in degrees, box sizes in arcsec measured
// along the box's own axes, and the angle turns the box back onto the pixel grid (DS9's convention:
// sky angle = image angle + 90 - the position angle of north on the pixel grid, at the box centre). A
// region whose pixels have no sky position is written in image coordinates.
std::string ds9RegionText(const RegionDocument& document, bool fk5);

// One shape as written in a region file.
struct Ds9Shape {
    std::string system;            // "image", "physical", "fk5", "fk4", "icrs", "galactic", ... (j2000 -> fk5)
    std::string type;              // "box", "polygon", "line", "circle", "point", "text", ...
    bool exclude = false;          // written with a leading '-'
    std::vector<double> numbers;   // arguments; sexagesimal converted to degrees (RA from hours)
    std::vector<char> units;       // per argument: '"', '\'', 'd', 'r', 'i', 'p', or 0 when none
    std::map<std::string, std::string> properties; // text, tag, color, ... without the braces or quotes
    int line = 0;                  // 1-based line number in the file
};

struct Ds9File {
    std::string formatLine;        // "# Region file format: DS9 version 4.0", if present
    std::map<std::string, std::string> global;
    std::vector<Ds9Shape> shapes;
};

// Throws InputError naming the line for malformed shapes (unbalanced parentheses, non-numbers).
Ds9File parseDs9Regions(const std::string& text);

// Image-coordinate shapes back into Glint regions: boxes, chains of tagged line segments (traces) and
// polygons with the `-polygon` holes that follow them. Kind and rank come from the tag ("trace 2"),
// label and colour from the properties. Throws InputError for shapes in other systems.
std::vector<ExportRegion> regionsFromDs9(const Ds9File& file);

// Arc distance between two sky positions, in arcsec (haversine: exact for small separations).
double skySeparationArcsec(const SkyCoord& a, const SkyCoord& b);

} // namespace glint
