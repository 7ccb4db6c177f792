#include "core/export/SourceCatalogColumns.h"

#include <cstdio>

namespace glint {

namespace {

using R = SourceRecord;
using T = SourceColumn::Type;
constexpr double kNaN = SourceRecord::kNaN;

double at(const std::vector<double>& v, std::size_t i) { return i < v.size() ? v[i] : kNaN; }

// The columns with SExtractor's descriptions, units and formats (its param.h), in the catalogue's order.
const SourceColumn kColumns[] = {
    {"NUMBER", "Running object number", "", 'd', 10, 0, false, T::Int32, false,
     [](const R& r, std::size_t) { return double(r.number); }},
    {"X_IMAGE", "Object position along x", "pixel", 'f', 11, 4, false, T::Double, false,
     [](const R& r, std::size_t) { return r.x + 1.0; }},
    {"Y_IMAGE", "Object position along y", "pixel", 'f', 11, 4, false, T::Double, false,
     [](const R& r, std::size_t) { return r.y + 1.0; }},
    {"XWIN_IMAGE", "Windowed position estimate along x", "pixel", 'f', 11, 4, false, T::Double, false,
     [](const R& r, std::size_t) { return r.xWin + 1.0; }},
    {"YWIN_IMAGE", "Windowed position estimate along y", "pixel", 'f', 11, 4, false, T::Double, false,
     [](const R& r, std::size_t) { return r.yWin + 1.0; }},
    {"XMIN_IMAGE", "Minimum x-coordinate among detected pixels", "pixel", 'd', 10, 0, false, T::Int32, false,
     [](const R& r, std::size_t) { return r.xmin + 1.0; }},
    {"YMIN_IMAGE", "Minimum y-coordinate among detected pixels", "pixel", 'd', 10, 0, false, T::Int32, false,
     [](const R& r, std::size_t) { return r.ymin + 1.0; }},
    {"XMAX_IMAGE", "Maximum x-coordinate among detected pixels", "pixel", 'd', 10, 0, false, T::Int32, false,
     [](const R& r, std::size_t) { return r.xmax + 1.0; }},
    {"YMAX_IMAGE", "Maximum y-coordinate among detected pixels", "pixel", 'd', 10, 0, false, T::Int32, false,
     [](const R& r, std::size_t) { return r.ymax + 1.0; }},
    {"FLUX_ISO", "Isophotal flux", "count", 'g', 12, 7, false, T::Double, false,
     [](const R& r, std::size_t) { return r.fluxIso; }},
    {"FLUXERR_ISO", "RMS error for isophotal flux", "count", 'g', 12, 7, false, T::Double, false,
     [](const R& r, std::size_t) { return r.fluxErrIso; }},
    {"FLUX_AUTO", "Flux within a Kron-like elliptical aperture", "count", 'g', 12, 7, false, T::Double, false,
     [](const R& r, std::size_t) { return r.fluxAuto; }},
    {"FLUXERR_AUTO", "RMS error for AUTO flux", "count", 'g', 12, 7, false, T::Double, false,
     [](const R& r, std::size_t) { return r.fluxErrAuto; }},
    {"MAG_AUTO", "Kron-like elliptical aperture magnitude", "mag", 'f', 8, 4, false, T::Double, false,
     [](const R& r, std::size_t) { return r.magAuto; }},
    {"MAGERR_AUTO", "RMS error for AUTO magnitude", "mag", 'f', 8, 4, false, T::Double, false,
     [](const R& r, std::size_t) { return r.magErrAuto; }},
    {"FLUX_APER", "Flux vector within fixed circular aperture(s)", "count", 'g', 12, 7, false, T::Double, true,
     [](const R& r, std::size_t i) { return at(r.fluxAper, i); }},
    {"FLUXERR_APER", "RMS error vector for aperture flux(es)", "count", 'g', 12, 7, false, T::Double, true,
     [](const R& r, std::size_t i) { return at(r.fluxErrAper, i); }},
    {"MAG_APER", "Fixed aperture magnitude vector", "mag", 'f', 8, 4, false, T::Double, true,
     [](const R& r, std::size_t i) { return at(r.magAper, i); }},
    {"MAGERR_APER", "RMS error vector for fixed aperture mag.", "mag", 'f', 8, 4, false, T::Double, true,
     [](const R& r, std::size_t i) { return at(r.magErrAper, i); }},
    {"KRON_RADIUS", "Kron apertures in units of A or B", "", 'f', 5, 2, false, T::Double, false,
     [](const R& r, std::size_t) { return r.kronRadius; }},
    {"A_IMAGE", "Profile RMS along major axis", "pixel", 'f', 9, 3, false, T::Double, false,
     [](const R& r, std::size_t) { return r.a; }},
    {"B_IMAGE", "Profile RMS along minor axis", "pixel", 'f', 9, 3, false, T::Double, false,
     [](const R& r, std::size_t) { return r.b; }},
    {"THETA_IMAGE", "Position angle (CCW/x)", "deg", 'f', 5, 1, false, T::Double, false,
     [](const R& r, std::size_t) { return r.theta; }},
    {"CXX_IMAGE", "Cxx object ellipse parameter", "pixel**(-2)", 'e', 12, 7, false, T::Double, false,
     [](const R& r, std::size_t) { return r.cxx; }},
    {"CYY_IMAGE", "Cyy object ellipse parameter", "pixel**(-2)", 'e', 12, 7, false, T::Double, false,
     [](const R& r, std::size_t) { return r.cyy; }},
    {"CXY_IMAGE", "Cxy object ellipse parameter", "pixel**(-2)", 'e', 12, 7, false, T::Double, false,
     [](const R& r, std::size_t) { return r.cxy; }},
    {"ELLIPTICITY", "1 - B_IMAGE/A_IMAGE", "", 'f', 8, 3, false, T::Double, false,
     [](const R& r, std::size_t) { return r.ellipticity; }},
    {"FWHM_IMAGE", "FWHM assuming a gaussian core", "pixel", 'f', 8, 2, false, T::Double, false,
     [](const R& r, std::size_t) { return r.fwhm; }},
    {"ISOAREA_IMAGE", "Isophotal area above Analysis threshold", "pixel**2", 'd', 9, 0, false, T::Int64, false,
     [](const R& r, std::size_t) { return double(r.isoArea); }},
    {"FLUX_MAX", "Peak flux above background", "count", 'g', 12, 7, false, T::Double, false,
     [](const R& r, std::size_t) { return r.peak; }},
    {"BACKGROUND", "Background at centroid position", "count", 'g', 12, 7, false, T::Double, false,
     [](const R& r, std::size_t) { return r.background; }},
    {"THRESHOLD", "Detection threshold above background", "count", 'g', 12, 7, false, T::Double, false,
     [](const R& r, std::size_t) { return r.threshold; }},
    // Glint's SNR_WIN is FLUX_AUTO / FLUXERR_AUTO (SourceCatalog.h); the description says so.
    {"SNR_WIN", "Signal-to-noise ratio (FLUX_AUTO / FLUXERR_AUTO)", "", 'g', 10, 4, false, T::Double, false,
     [](const R& r, std::size_t) { return r.snr; }},
    {"ALPHA_J2000", "Right ascension of barycenter (J2000)", "deg", 'f', 11, 7, false, T::Double, false,
     [](const R& r, std::size_t) { return r.ra; }},
    {"DELTA_J2000", "Declination of barycenter (J2000)", "deg", 'f', 11, 7, true, T::Double, false,
     [](const R& r, std::size_t) { return r.dec; }},
    {"FLAGS", "Extraction flags", "", 'd', 3, 0, false, T::Int16, false,
     [](const R& r, std::size_t) { return double(r.flags); }},
};

} // namespace

std::string SourceColumn::tdisp() const {
    const char letter = conversion == 'd' ? 'I' : conversion == 'f' ? 'F' : conversion == 'e' ? 'E' : 'G';
    std::string text = letter + std::to_string(width);
    return conversion == 'd' ? text : text + "." + std::to_string(precision);
}

std::string SourceColumn::ascii(double v) const {
    char buffer[400];
    switch (conversion) {
    case 'd': std::snprintf(buffer, sizeof buffer, "%*lld", width, static_cast<long long>(v)); break;
    case 'e': std::snprintf(buffer, sizeof buffer, "%*.*e", width, precision, v); break;
    case 'g': std::snprintf(buffer, sizeof buffer, "%*.*g", width, precision, v); break;
    default:
        std::snprintf(buffer, sizeof buffer, sign ? "%+*.*f" : "%*.*f", width, precision, v);
        break;
    }
    return buffer;
}

std::vector<SourceColumn> sourceColumns(const SourceCatalog& catalog) {
    std::vector<SourceColumn> columns;
    for (const SourceColumn& c : kColumns)
        if (!c.perAperture || !catalog.apertures.empty()) columns.push_back(c);
    return columns;
}

} // namespace glint
