// Celestial coordinates of pixels through wcslib (SIP and other distortions included). Output is always
// FK5 J2000 (what DS9's fk5 and the status bar show); FK4/B1950 headers are precessed with ERFA.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace glint {

struct SkyCoord {
    double ra = 0.0;  // degrees, FK5 J2000
    double dec = 0.0; // degrees
};

class Wcs {
public:
    // header: the FITS header as concatenated 80-character cards (what fits_hdr2str gives). Returns null
    // when the header holds no usable celestial WCS. Never throws for a bad WCS: it is simply absent.
    static std::shared_ptr<const Wcs> fromHeader(const std::string& header, int cardCount);
    ~Wcs();
    Wcs(const Wcs&) = delete;
    Wcs& operator=(const Wcs&) = delete;

    // x, y in Glint's 0-based pixel frame (FITS pixel = x + 1). Thread-safe.
    std::optional<SkyCoord> pixelToSky(double x, double y) const;
    std::optional<std::pair<double, double>> skyToPixel(const SkyCoord& sky) const;
    // The header's own frame, in words: "FK5 J2000", "ICRS", "FK4 B1950".
    std::string nativeFrame() const;

    struct Impl;

private:
    explicit Wcs(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// "03:22:41.789", "-37:12:29.52": sexagesimal text for readouts.
std::string formatRa(double raDegrees);
std::string formatDec(double decDegrees);

} // namespace glint
