// Celestial reference frames a FITS header may use, and their conversion to and from FK5 J2000 (what
// Glint shows and exports), following astropy's definitions so that readouts agree with it.
#pragma once

#include "core/io/Wcs.h"

#include <optional>
#include <string>

namespace glint {

enum class SkyFrameKind { Fk5, Icrs, Fk4, Fk4NoETerms, Galactic };

struct SkyFrame {
    SkyFrameKind kind = SkyFrameKind::Icrs;
    double equinox = 2000.0; // Julian for FK5, Besselian for FK4; unused for ICRS and galactic

    // From the header's longitude type ("RA", "GLON", ...), RADESYS and EQUINOX (0 or NaN when absent),
    // with the FITS standard's defaults: no RADESYS means ICRS without EQUINOX, FK4 when EQUINOX < 1984,
    // FK5 otherwise. Nothing for frames Glint cannot convert (ecliptic, GAPPT, supergalactic, ...).
    static std::optional<SkyFrame> fromHeader(const std::string& longitudeType, const std::string& radesys,
                                              double equinox);

    std::string name() const; // "FK5 J2000", "ICRS", "FK4 B1950", "FK4-NO-E B1950", "galactic"
};

// Degrees in, degrees out. FK4 positions are taken at epoch B1950 with zero FK5 proper motion (ERFA's
// fk45z, as astropy does when the header gives no observation date); ICRS goes through the frame bias
// of astropy (about 0.02 arcsec).
SkyCoord toFk5J2000(const SkyFrame& frame, double lon, double lat);
SkyCoord fromFk5J2000(const SkyFrame& frame, const SkyCoord& fk5); // returns (lon, lat) in the frame

} // namespace glint
