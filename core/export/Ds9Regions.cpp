#include "core/export/Ds9Regions.h"

#include "core/export/CsvTable.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace glint {

namespace {

constexpr double kDegToRad = M_PI / 180.0;

// Comments and DS9 text must stay on one line, and DS9 ends a {text} at the first closing brace.
std::string oneLine(const std::string& s) {
    std::string out = s;
    for (char& c : out)
        if (c == '\n' || c == '\r') c = ' ';
    return out;
}

std::string ds9Text(const std::string& s) {
    std::string out = oneLine(s);
    for (char& c : out) {
        if (c == '{') c = '(';
        if (c == '}') c = ')';
    }
    return out;
}

std::string hexColour(std::uint32_t rgb) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "#%06x", static_cast<unsigned>(rgb & 0xFFFFFF));
    return buffer;
}

std::string skyNumber(double degrees) { return formatDecimals(degrees, 10); }
std::string arcsec(double value) { return formatDecimals(value, 6) + "\""; }

std::string tagOf(const ExportRegion& r) { return std::string(regionKindName(r.kind)) + " " + std::to_string(r.rank); }

std::string properties(const ExportRegion& r, bool withText, const std::string& extra = "") {
    std::string out = " #" + extra + " color=" + hexColour(r.colour);
    if (withText && !r.label.empty()) out += " text={" + ds9Text(r.label) + "}";
    return out + " tag={" + tagOf(r) + "}";
}

// The position angle of north on the pixel grid at (x, y), in degrees counter-clockwise from +x (DS9's
// image frame: y up on screen), from the local derivatives of the sky position.
std::optional<double> northAngle(const PixelToSky& toSky, double x, double y) {
    const auto c = toSky(x, y), xp = toSky(x + 0.5, y), xm = toSky(x - 0.5, y), yp = toSky(x, y + 0.5),
               ym = toSky(x, y - 0.5);
    if (!c || !xp || !xm || !yp || !ym) return std::nullopt;
    auto dra = [](double a, double b) { return std::remainder(a - b, 360.0); };
    const double cosDec = std::cos(c->dec * kDegToRad);
    const double ex = dra(xp->ra, xm->ra) * cosDec, nx = xp->dec - xm->dec; // east, north per pixel along x
    const double ey = dra(yp->ra, ym->ra) * cosDec, ny = yp->dec - ym->dec; // ... along y
    const double det = ex * ny - ey * nx;
    if (det == 0 || !std::isfinite(det)) return std::nullopt;
    // The pixel step (dx, dy) that moves straight north: J (dx, dy) = (0, 1).
    const double dx = -ey / det, dy = ex / det;
    return std::atan2(dy, dx) / kDegToRad;
}

// The box in fk5, or nothing when any of its reference points has no sky position.
std::optional<std::string> fk5Box(const ExportRegion& r, const PixelToSky& toSky) {
    const double cx = r.x + (r.width - 1) / 2.0, cy = r.y + (r.height - 1) / 2.0;
    const auto c = toSky(cx, cy);
    const auto left = toSky(r.x - 0.5, cy), right = toSky(r.x + r.width - 0.5, cy);
    const auto bottom = toSky(cx, r.y - 0.5), top = toSky(cx, r.y + r.height - 0.5);
    const auto north = northAngle(toSky, cx, cy);
    if (!c || !left || !right || !bottom || !top || !north) return std::nullopt;
    double angle = std::fmod(90.0 - *north, 360.0);
    if (angle < 0) angle += 360.0;
    if (angle >= 360.0 - 5e-7) angle = 0.0; // keep "0" rather than "360.000000"
    return "box(" + skyNumber(c->ra) + "," + skyNumber(c->dec) + "," + arcsec(skySeparationArcsec(*left, *right)) +
           "," + arcsec(skySeparationArcsec(*bottom, *top)) + "," + formatDecimals(angle, 6) + ")";
}

std::string imageBox(const ExportRegion& r) {
    return "box(" + formatFixed(r.x + 0.5 + r.width / 2.0) + "," + formatFixed(r.y + 0.5 + r.height / 2.0) + "," +
           std::to_string(r.width) + "," + std::to_string(r.height) + ",0)";
}

// Each (x, y) in the region's frame as "a,b" text, or nothing when fk5 is asked and a point has no sky
// position. cornerFrame: the points are pixel corners (outline), shifted by -0.5 to pixel centres.
std::optional<std::vector<std::string>> pointTexts(const std::vector<std::pair<double, double>>& points,
                                                   const PixelToSky* toSky) {
    std::vector<std::string> out;
    for (const auto& [x, y] : points) {
        if (toSky) {
            const auto s = (*toSky)(x, y);
            if (!s) return std::nullopt;
            out.push_back(skyNumber(s->ra) + "," + skyNumber(s->dec));
        } else {
            out.push_back(formatFixed(x + 1.0) + "," + formatFixed(y + 1.0)); // DS9 image = Glint + 1
        }
    }
    return out;
}

std::vector<std::pair<double, double>> ringCentres(const CornerRing& ring) {
    std::vector<std::pair<double, double>> out;
    for (const GridCorner& c : ring) out.emplace_back(c.x - 0.5, c.y - 0.5);
    return out;
}

// The lines of one region in one system; empty when fk5 is asked and a point has no sky position.
std::vector<std::string> regionLines(const ExportRegion& r, const PixelToSky* toSky) {
    std::vector<std::string> lines;
    if (r.kind == RegionKind::Trace) {
        const auto texts = pointTexts(r.points, toSky);
        if (!texts) return {};
        for (std::size_t i = 1; i < texts->size(); ++i)
            lines.push_back("line(" + (*texts)[i - 1] + "," + (*texts)[i] + ")" + properties(r, i == 1, " line=0 0"));
        return lines;
    }
    if (r.ellipse) {
        const RegionEllipse& e = *r.ellipse;
        if (!toSky)
            return {"ellipse(" + formatFixed(e.x + 1.0) + "," + formatFixed(e.y + 1.0) + "," + formatFixed(e.a) + "," +
                    formatFixed(e.b) + "," + formatFixed(e.thetaDeg) + ")" + properties(r, true)};
        // On the sky: the ellipse as a polygon, exact whatever the WCS's rotation and flip.
        const auto texts = pointTexts(ellipsePoints(e), toSky);
        if (!texts) return {};
        std::string line = "polygon(";
        for (std::size_t i = 0; i < texts->size(); ++i) line += (i ? "," : "") + (*texts)[i];
        return {line + ")" + properties(r, true)};
    }
    if ((r.kind == RegionKind::Common || r.kind == RegionKind::Source) && !r.outline.empty()) {
        bool first = true;
        for (const MaskPolygon& polygon : r.outline) {
            const auto outer = pointTexts(ringCentres(polygon.outer), toSky);
            if (!outer) return {};
            std::string line = "polygon(";
            for (std::size_t i = 0; i < outer->size(); ++i) line += (i ? "," : "") + (*outer)[i];
            lines.push_back(line + ")" + properties(r, first));
            first = false;
            for (const CornerRing& hole : polygon.holes) {
                const auto h = pointTexts(ringCentres(hole), toSky);
                if (!h) return {};
                std::string hl = "-polygon(";
                for (std::size_t i = 0; i < h->size(); ++i) hl += (i ? "," : "") + (*h)[i];
                lines.push_back(hl + ")" + properties(r, false));
            }
        }
        return lines;
    }
    if (toSky) {
        const auto box = fk5Box(r, *toSky);
        if (!box) return {};
        return {*box + properties(r, true)};
    }
    return {imageBox(r) + properties(r, true)};
}

} // namespace

double skySeparationArcsec(const SkyCoord& a, const SkyCoord& b) {
    const double s = std::sin((b.dec - a.dec) * kDegToRad / 2), t = std::sin((b.ra - a.ra) * kDegToRad / 2);
    const double h = s * s + std::cos(a.dec * kDegToRad) * std::cos(b.dec * kDegToRad) * t * t;
    return 2 * std::asin(std::min(1.0, std::sqrt(h))) / kDegToRad * 3600.0;
}

std::string ds9RegionText(const RegionDocument& document, bool fk5) {
    if (fk5 && !document.pixelToSky) throw UsageError("fk5 region files need an image with a celestial WCS");
    std::ostringstream out;
    out << "# Region file format: DS9 version 4.0\n";
    out << "# Glint " << GLINT_VERSION << (document.description.empty() ? "" : ": " + oneLine(document.description))
        << "\n";
    if (!document.imagePath.empty() || document.imageWidth > 0)
        out << "# image: " << oneLine(document.imagePath) << " (" << document.imageWidth << " x "
            << document.imageHeight << ")\n";
    out << "global color=green dashlist=8 3 width=1 font=\"helvetica 10 normal roman\" select=1 highlite=1 dash=0 "
           "fixed=0 edit=1 move=1 delete=1 include=1 source=1\n";
    std::string system;
    auto use = [&](const std::string& s) {
        if (s != system) out << s << "\n";
        system = s;
    };
    for (const ExportRegion& r : document.regions) {
        std::vector<std::string> lines;
        if (fk5) lines = regionLines(r, &document.pixelToSky);
        if (!lines.empty()) {
            use("fk5");
        } else {
            if (fk5) out << "# no sky position for region " << tagOf(r) << ": written in image coordinates\n";
            lines = regionLines(r, nullptr);
            use("image");
        }
        for (const auto& l : lines) out << l << "\n";
    }
    if (document.regions.empty()) out << "# no regions\n";
    return out.str();
}

} // namespace glint
