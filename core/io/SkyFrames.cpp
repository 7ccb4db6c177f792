#include "core/io/SkyFrames.h"

#include <erfa.h>
#include <erfam.h>

#include <cmath>
#include <cstdio>

namespace glint {

namespace {

using Matrix = double[3][3];

constexpr double kDegToRad = ERFA_DD2R;

// Rx(a) * Ry(b) * Rz(c) with ERFA's (and astropy's rotation_matrix) sense of rotation, angles in degrees.
void rotations(double xDeg, double yDeg, double zDeg, Matrix out) {
    eraIr(out);
    eraRz(zDeg * kDegToRad, out);
    eraRy(yDeg * kDegToRad, out);
    eraRx(xDeg * kDegToRad, out);
}

// ICRS -> FK5 J2000 frame bias, astropy's _icrs_to_fk5_matrix (USNO circular 179).
void icrsToFk5(Matrix out) {
    const double eta0 = -19.9 / 3600000.0;
    const double xi0 = 9.1 / 3600000.0;
    const double da0 = -22.9 / 3600000.0;
    rotations(-eta0, xi0, da0, out);
}

// FK5 mean equator and equinox of Julian epoch -> J2000 (IAU 2006 precession, as astropy 5 uses).
void fk5ToJ2000(double julianEpoch, Matrix out) {
    double d1 = 0, d2 = 0;
    eraEpj2jd(julianEpoch, &d1, &d2);
    Matrix rb, rp, rbp;
    eraBp06(d1, d2, rb, rp, rbp);
    eraTr(rp, out);
}

// Newcomb's precession between Besselian epochs, astropy's _precession_matrix_besselian.
void besselianPrecession(double epoch1, double epoch2, Matrix out) {
    const double t1 = (epoch1 - 1850.0) / 1000.0;
    const double t2 = (epoch2 - 1850.0) / 1000.0;
    const double dt = t2 - t1;
    const double zeta1 = 23035.545 + t1 * 139.720 + 0.060 * t1 * t1;
    const double zeta2 = 30.240 - 0.27 * t1;
    const double zeta3 = 17.995;
    const double zeta = ((zeta3 * dt + zeta2) * dt + zeta1) * dt / 3600.0;
    const double z1 = zeta1;
    const double z2 = 109.480 + 0.39 * t1;
    const double z3 = 18.325;
    const double z = ((z3 * dt + z2) * dt + z1) * dt / 3600.0;
    const double theta1 = 20051.12 - 85.29 * t1 - 0.37 * t1 * t1;
    const double theta2 = -42.65 - 0.37 * t1;
    const double theta3 = -41.8;
    const double theta = ((theta3 * dt + theta2) * dt + theta1) * dt / 3600.0;
    // Rz(-z) * Ry(theta) * Rz(-zeta)
    eraIr(out);
    eraRz(-zeta * kDegToRad, out);
    eraRy(theta * kDegToRad, out);
    eraRz(-z * kDegToRad, out);
}

// FK4 without E-terms at B1950 -> FK5 J2000, astropy's _fk4_B_matrix at obstime B1950.
void fk4NoEToFk5(Matrix out) {
    static const double m[3][3] = {{0.9999256794956877, -0.0111814832204662, -0.0048590038153592},
                                   {0.0111814832391717, +0.9999374848933135, -0.0000271625947142},
                                   {0.0048590037723143, -0.0000271702937440, +0.9999881946023742}};
    static const double corr[3][3] = {{-0.0026455262, -1.1539918689, +2.1111346190},
                                      {+1.1540628161, -0.0129042997, +0.0236021478},
                                      {-2.1112979048, -0.0056024448, +0.0102587734}};
    double jd1 = 0, jd2 = 0;
    eraEpb2jd(1950.0, &jd1, &jd2);
    const double t = (eraEpj(jd1, jd2) - 1950.0) / 100.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) out[i][j] = m[i][j] + corr[i][j] * 1.0e-6 * t;
}

// FK5 J2000 -> galactic, astropy's definition (its _ngp_J2000 and _lon0_J2000).
void fk5ToGalactic(Matrix out) {
    const double ngpRa = 192.8594812065348;
    const double ngpDec = 27.12825118085622;
    const double lon0 = 122.9319185680026;
    eraIr(out);
    eraRz(ngpRa * kDegToRad, out);
    eraRy((90.0 - ngpDec) * kDegToRad, out);
    eraRz((180.0 - lon0) * kDegToRad, out);
}

SkyCoord toSpherical(double p[3]) {
    double lon = 0, lat = 0;
    eraC2s(p, &lon, &lat);
    return {eraAnp(lon) / kDegToRad, lat / kDegToRad};
}

SkyCoord apply(const Matrix m, bool transpose, double lonDeg, double latDeg) {
    double p[3], q[3];
    eraS2c(lonDeg * kDegToRad, latDeg * kDegToRad, p);
    Matrix copy;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) copy[i][j] = m[i][j];
    if (transpose) eraTrxp(copy, p, q);
    else eraRxp(copy, p, q);
    return toSpherical(q);
}

} // namespace

std::optional<SkyFrame> SkyFrame::fromHeader(const std::string& longitudeType, const std::string& radesysIn,
                                            double equinox) {
    const bool hasEquinox = std::isfinite(equinox) && equinox > 0.0;
    if (longitudeType == "GLON") return SkyFrame{SkyFrameKind::Galactic, 0.0};
    if (longitudeType != "RA") return std::nullopt;
    std::string radesys = radesysIn;
    if (radesys.empty()) radesys = !hasEquinox ? "ICRS" : equinox < 1984.0 ? "FK4" : "FK5";
    if (radesys == "ICRS") return SkyFrame{SkyFrameKind::Icrs, 2000.0};
    if (radesys == "FK5") return SkyFrame{SkyFrameKind::Fk5, hasEquinox ? equinox : 2000.0};
    if (radesys == "FK4") return SkyFrame{SkyFrameKind::Fk4, hasEquinox ? equinox : 1950.0};
    if (radesys == "FK4-NO-E") return SkyFrame{SkyFrameKind::Fk4NoETerms, hasEquinox ? equinox : 1950.0};
    return std::nullopt;
}

std::string SkyFrame::name() const {
    char buf[48];
    switch (kind) {
    case SkyFrameKind::Icrs: return "ICRS";
    case SkyFrameKind::Galactic: return "galactic";
    case SkyFrameKind::Fk5: std::snprintf(buf, sizeof buf, "FK5 J%g", equinox); return buf;
    case SkyFrameKind::Fk4: std::snprintf(buf, sizeof buf, "FK4 B%g", equinox); return buf;
    case SkyFrameKind::Fk4NoETerms: std::snprintf(buf, sizeof buf, "FK4-NO-E B%g", equinox); return buf;
    }
    return "unknown";
}

SkyCoord toFk5J2000(const SkyFrame& frame, double lon, double lat) {
    Matrix m;
    switch (frame.kind) {
    case SkyFrameKind::Icrs: icrsToFk5(m); return apply(m, false, lon, lat);
    case SkyFrameKind::Galactic: fk5ToGalactic(m); return apply(m, true, lon, lat);
    case SkyFrameKind::Fk5:
        if (frame.equinox == 2000.0) return {eraAnp(lon * kDegToRad) / kDegToRad, lat};
        fk5ToJ2000(frame.equinox, m);
        return apply(m, false, lon, lat);
    case SkyFrameKind::Fk4:
    case SkyFrameKind::Fk4NoETerms: {
        SkyCoord b1950{lon, lat};
        if (frame.equinox != 1950.0) {
            besselianPrecession(frame.equinox, 1950.0, m);
            b1950 = apply(m, false, lon, lat);
        }
        if (frame.kind == SkyFrameKind::Fk4NoETerms) {
            fk4NoEToFk5(m);
            return apply(m, false, b1950.ra, b1950.dec);
        }
        double ra = 0, dec = 0;
        eraFk45z(b1950.ra * kDegToRad, b1950.dec * kDegToRad, 1950.0, &ra, &dec);
        return {eraAnp(ra) / kDegToRad, dec / kDegToRad};
    }
    }
    return {lon, lat};
}

SkyCoord fromFk5J2000(const SkyFrame& frame, const SkyCoord& fk5) {
    Matrix m;
    switch (frame.kind) {
    case SkyFrameKind::Icrs: icrsToFk5(m); return apply(m, true, fk5.ra, fk5.dec);
    case SkyFrameKind::Galactic: fk5ToGalactic(m); return apply(m, false, fk5.ra, fk5.dec);
    case SkyFrameKind::Fk5:
        if (frame.equinox == 2000.0) return fk5;
        fk5ToJ2000(frame.equinox, m);
        return apply(m, true, fk5.ra, fk5.dec);
    case SkyFrameKind::Fk4:
    case SkyFrameKind::Fk4NoETerms: {
        SkyCoord b1950;
        if (frame.kind == SkyFrameKind::Fk4NoETerms) {
            fk4NoEToFk5(m);
            b1950 = apply(m, true, fk5.ra, fk5.dec);
        } else {
            double ra = 0, dec = 0, dra = 0, ddec = 0;
            eraFk54z(fk5.ra * kDegToRad, fk5.dec * kDegToRad, 1950.0, &ra, &dec, &dra, &ddec);
            b1950 = {eraAnp(ra) / kDegToRad, dec / kDegToRad};
        }
        if (frame.equinox == 1950.0) return b1950;
        besselianPrecession(1950.0, frame.equinox, m);
        return apply(m, false, b1950.ra, b1950.dec);
    }
    }
    return fk5;
}

} // namespace glint
