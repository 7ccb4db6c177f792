#include "io/Wcs.h"

#include <cmath>
#include <cstdio>

namespace glint {

struct Wcs::Impl {};

Wcs::Wcs(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Wcs::~Wcs() = default;

std::shared_ptr<const Wcs> Wcs::fromHeader(const std::string&, int) { return nullptr; }
std::optional<SkyCoord> Wcs::pixelToSky(double, double) const { return std::nullopt; }
std::optional<std::pair<double, double>> Wcs::skyToPixel(const SkyCoord&) const { return std::nullopt; }
std::string Wcs::nativeFrame() const { return "FK5 J2000"; }

std::string formatRa(double raDegrees) {
    double h = std::fmod(raDegrees / 15.0 + 24.0, 24.0);
    int hh = static_cast<int>(h);
    double m = (h - hh) * 60.0;
    int mm = static_cast<int>(m);
    double s = (m - mm) * 60.0;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%02d:%02d:%06.3f", hh, mm, s);
    return buf;
}

std::string formatDec(double decDegrees) {
    const char sign = decDegrees < 0 ? '-' : '+';
    double d = std::fabs(decDegrees);
    int dd = static_cast<int>(d);
    double m = (d - dd) * 60.0;
    int mm = static_cast<int>(m);
    double s = (m - mm) * 60.0;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%c%02d:%02d:%05.2f", sign, dd, mm, s);
    return buf;
}

} // namespace glint
