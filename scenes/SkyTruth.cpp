// Truth-injected sky frames (SkyTruth.h): the objects, their profiles and the frame. The files: SkyTruthFiles.cpp.
#include "scenes/SkyTruth.h"

#include "core/io/Wcs.h"
#include "core/util/Errors.h"

#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace glint {

namespace {

constexpr double kPi = 3.14159265358979323846;

// One object's profile on a patch of pixels, normalised to sum 1 over the whole truncated profile (inside the
// frame or not).
struct Patch {
    int x0 = 0, y0 = 0, w = 0, h = 0;
    std::vector<double> v;
    double at(int x, int y) const { return v[static_cast<std::size_t>(y - y0) * w + (x - x0)]; }
};

// Samples `f(dx, dy)` (offsets from the object's centre) over each pixel of the box, `sub(d)` x `sub(d)` points
// a pixel for a pixel at distance d from the centre, and normalises the patch.
template <class Profile, class Steps>
Patch integrate(double cx, double cy, int reach, Profile f, Steps sub) {
    Patch p;
    p.x0 = static_cast<int>(std::floor(cx)) - reach;
    p.y0 = static_cast<int>(std::floor(cy)) - reach;
    p.w = p.h = 2 * reach + 2;
    p.v.assign(static_cast<std::size_t>(p.w) * p.h, 0.0);
    double total = 0.0;
    for (int j = 0; j < p.h; ++j)
        for (int i = 0; i < p.w; ++i) {
            const double px = p.x0 + i - cx, py = p.y0 + j - cy;
            const int n = sub(std::hypot(px, py));
            double s = 0.0;
            for (int sy = 0; sy < n; ++sy)
                for (int sx = 0; sx < n; ++sx) s += f(px + (sx + 0.5) / n - 0.5, py + (sy + 0.5) / n - 0.5);
            s /= static_cast<double>(n) * n;
            p.v[static_cast<std::size_t>(j) * p.w + i] = s;
            total += s;
        }
    if (total > 0.0)
        for (double& x : p.v) x /= total;
    return p;
}

double moffatAlpha(double fwhm, double beta) { return fwhm / (2.0 * std::sqrt(std::pow(2.0, 1.0 / beta) - 1.0)); }

Patch starPatch(const TruthObject& s, double beta, double flux) {
    const double alpha = moffatAlpha(s.fwhm, beta);
    const double peak = flux * (beta - 1.0) / (kPi * alpha * alpha);
    const double reach = alpha * std::sqrt(std::max(0.0, std::pow(peak / 0.02, 1.0 / beta) - 1.0));
    const int r = static_cast<int>(std::clamp(std::ceil(reach), 8.0, 160.0));
    const double a2 = alpha * alpha;
    return integrate(
        s.x, s.y, r,
        [&](double dx, double dy) {
            const double rr = dx * dx + dy * dy;
            return rr > static_cast<double>(r) * r ? 0.0 : std::pow(1.0 + rr / a2, -beta);
        },
        [](double d) { return d < 2.5 ? 9 : 3; });
}

// Elliptical radius along the major axis of an offset from a galaxy's centre.
double ellipticalRadius(const TruthObject& g, double dx, double dy) {
    const double c = std::cos(g.angleDeg * kPi / 180.0), s = std::sin(g.angleDeg * kPi / 180.0);
    const double u = dx * c + dy * s, t = (-dx * s + dy * c) / g.axisRatio;
    return std::sqrt(u * u + t * t);
}

Patch galaxyPatch(const TruthObject& g) {
    const double bn = sersicBn(g.sersicN), inv = 1.0 / g.sersicN;
    const int reach = static_cast<int>(std::ceil(g.truncation)) + 1;
    return integrate(
        g.x, g.y, reach,
        [&](double dx, double dy) {
            const double m = ellipticalRadius(g, dx, dy);
            return m > g.truncation ? 0.0 : std::exp(-bn * (std::pow(m / g.re, inv) - 1.0));
        },
        [&](double d) { return d < 3.0 ? (g.sersicN > 2.0 ? 15 : 7) : d < 8.0 ? 5 : d < 3.0 * g.re ? 3 : 2; });
}

// Adds flux x patch to the frame's pixels; returns the exact sum of what was added.
double addPatch(std::vector<double>& pixels, int width, int height, const Patch& p, double flux) {
    double sum = 0.0;
    for (int y = std::max(0, p.y0); y < std::min(height, p.y0 + p.h); ++y)
        for (int x = std::max(0, p.x0); x < std::min(width, p.x0 + p.w); ++x) {
            const double v = flux * p.at(x, y);
            pixels[static_cast<std::size_t>(y) * width + x] += v;
            sum += v;
        }
    return sum;
}

// The aperture of the SNR (SkyTruth.h): the patch's fraction within it, and its pixel count inside the frame.
struct Aperture {
    double fraction = 0.0;
    int pixels = 0;
};

Aperture aperture(const Patch& p, const TruthObject& o, int width, int height) {
    Aperture a;
    for (int y = std::max(0, p.y0); y < std::min(height, p.y0 + p.h); ++y)
        for (int x = std::max(0, p.x0); x < std::min(width, p.x0 + p.w); ++x) {
            const double dx = x - o.x, dy = y - o.y;
            const bool in = o.type == TruthType::Star ? std::hypot(dx, dy) <= o.fwhm
                                                      : ellipticalRadius(o, dx, dy) <= std::max(1.0, o.re);
            if (!in) continue;
            a.fraction += p.at(x, y);
            ++a.pixels;
        }
    return a;
}

double apertureSnr(const Aperture& a, double flux, double variance) {
    const double f = a.fraction * flux;
    return f / std::sqrt(f + a.pixels * variance);
}

} // namespace

double sersicBn(double n) {
    // Ciotti & Bertin (1999): b_n = 2n - 1/3 + 4/(405 n) + 46/(25515 n^2) + ...
    return 2.0 * n - 1.0 / 3.0 + 4.0 / (405.0 * n) + 46.0 / (25515.0 * n * n) + 131.0 / (1148175.0 * n * n * n);
}

const char* skyFieldName(SkyFieldKind kind) {
    switch (kind) {
    case SkyFieldKind::Sparse: return "sparse";
    case SkyFieldKind::Crowded: return "crowded";
    case SkyFieldKind::Galaxies: return "galaxies";
    }
    return "sparse";
}

SkyFieldKind parseSkyFieldKind(const std::string& name) {
    for (SkyFieldKind k : {SkyFieldKind::Sparse, SkyFieldKind::Crowded, SkyFieldKind::Galaxies})
        if (name == skyFieldName(k)) return k;
    throw UsageError("unknown field '" + name + "' (available: sparse, crowded, galaxies)");
}

SkyFieldOptions skyFieldOptions(SkyFieldKind kind, int side, std::uint64_t seed) {
    SkyFieldOptions o;
    o.name = skyFieldName(kind);
    o.width = o.height = side;
    const double scale = static_cast<double>(side) * side / (2048.0 * 2048.0);
    const auto count = [&](int n, int least) { return std::max(least, static_cast<int>(std::lround(n * scale))); };
    switch (kind) {
    case SkyFieldKind::Sparse:
        o.stars = count(700, 20);
        o.minSeparation = 10.0;
        o.seed = 11;
        break;
    case SkyFieldKind::Crowded:
        o.stars = count(5200, 40);
        o.saturatedStars = count(12, 1);
        o.seed = 22;
        break;
    case SkyFieldKind::Galaxies:
        o.stars = count(150, 10);
        o.galaxies = count(48, 4);
        o.saturatedStars = count(4, 1);
        o.reMax = std::min(60.0, side / 34.0);
        o.seed = 33;
        break;
    }
    o.saturatedStars = std::min(o.saturatedStars, o.stars);
    if (seed) o.seed = seed;
    return o;
}

double SkyField::skyAt(double x, double y) const { return options.sky + options.gradientX * x + options.gradientY * y; }

double SkyField::noiseVariance(double x, double y) const { return skyAt(x, y) + options.readNoise * options.readNoise; }

double SkyField::medianStarFwhm() const {
    std::vector<double> w;
    for (const TruthObject& o : objects)
        if (o.type == TruthType::Star) w.push_back(o.fwhm);
    if (w.empty()) return 0.5 * (options.fwhmMin + options.fwhmMax);
    std::nth_element(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(w.size() / 2), w.end());
    return w[w.size() / 2];
}

double renderGalaxy(std::vector<double>& pixels, int width, int height, const TruthObject& galaxy, double totalFlux) {
    return addPatch(pixels, width, height, galaxyPatch(galaxy), totalFlux);
}

SkyField makeSkyField(const SkyFieldOptions& o) {
    if (o.width < 64 || o.height < 64 || o.stars < 0 || o.galaxies < 0 || !(o.fwhmMin > 0.0) || o.fwhmMax < o.fwhmMin ||
        !(o.beta > 1.0) || !(o.fluxMin > 0.0) || o.fluxMax < o.fluxMin || !(o.slope > 1.0) || o.saturatedStars < 0 ||
        o.saturatedStars > o.stars || !(o.reMin > 0.0) || o.reMax < o.reMin || !(o.axisRatioMin > 0.0) ||
        o.axisRatioMin > 1.0 || !(o.saturation > o.sky))
        throw UsageError("sky field: invalid options");
    const int w = o.width, h = o.height;
    SkyField field;
    field.options = o;
    cv::RNG rng(o.seed);
    std::vector<double> src(static_cast<std::size_t>(w) * h, 0.0);

    // Galaxies first (their places avoid each other), then stars anywhere.
    std::vector<TruthObject> galaxies;
    for (int i = 0, attempts = 0; i < o.galaxies && attempts < 20000; ++attempts) {
        TruthObject g;
        g.type = TruthType::Galaxy;
        g.sersicN = i % 2 ? 4.0 : 1.0;
        g.re = o.reMin * std::pow(o.reMax / o.reMin, rng.uniform(0.0, 1.0));
        g.axisRatio = rng.uniform(o.axisRatioMin, 1.0);
        g.angleDeg = rng.uniform(-90.0, 90.0);
        g.truncation = (g.sersicN > 2.0 ? o.truncationDeV : o.truncationExp) * g.re;
        const double margin = std::min(3.0 * g.re + 10.0, 0.45 * std::min(w, h));
        g.x = rng.uniform(margin, w - 1.0 - margin);
        g.y = rng.uniform(margin, h - 1.0 - margin);
        bool free = true;
        for (const TruthObject& other : galaxies)
            if (std::hypot(g.x - other.x, g.y - other.y) < 2.0 * (g.re + other.re) + 6.0) free = false;
        if (!free) continue;
        ++i;
        const Patch p = galaxyPatch(g);
        const Aperture ap = aperture(p, g, w, h);
        const double var = field.noiseVariance(g.x, g.y);
        double flux = 2.0 * kPi * g.axisRatio * g.re * g.re * o.galaxySbMin * std::pow(o.galaxySbMax / o.galaxySbMin, rng.uniform(0.0, 1.0));
        const double s2 = o.galaxySnrMin * o.galaxySnrMin;
        const double apFlux = 0.5 * (s2 + std::sqrt(s2 * s2 + 4.0 * s2 * ap.pixels * var));
        flux = std::max(flux, apFlux / std::max(ap.fraction, 1e-6));
        const double peak = *std::max_element(p.v.begin(), p.v.end());
        flux = std::min(flux, 0.5 * (o.saturation - field.skyAt(g.x, g.y)) / peak);
        g.flux = addPatch(src, w, h, p, flux);
        g.snr = apertureSnr(ap, flux, var);
        double moment = 0.0, sum = 0.0;
        for (int y = p.y0; y < p.y0 + p.h; ++y)
            for (int x = p.x0; x < p.x0 + p.w; ++x) {
                moment += p.at(x, y) * ellipticalRadius(g, x - g.x, y - g.y);
                sum += p.at(x, y);
            }
        g.kronRadius = sum > 0.0 ? moment / sum : 0.0;
        galaxies.push_back(g);
    }

    std::vector<TruthObject> stars;
    const double lo = 4.0;
    for (int attempts = 0; static_cast<int>(stars.size()) < o.stars && attempts < o.stars * 200; ++attempts) {
        TruthObject s;
        s.x = rng.uniform(lo, w - 1.0 - lo);
        s.y = rng.uniform(lo, h - 1.0 - lo);
        bool free = true;
        if (o.minSeparation > 0.0)
            for (const TruthObject& t : stars)
                if (std::hypot(s.x - t.x, s.y - t.y) < o.minSeparation) {
                    free = false;
                    break;
                }
        if (!free) continue;
        const double u = rng.uniform(0.0, 1.0);
        const double drawn = static_cast<int>(stars.size()) < o.saturatedStars
                                 ? rng.uniform(1.5e6, 6.0e6)
                                 : std::min(o.fluxMax, o.fluxMin * std::pow(1.0 - u, -1.0 / (o.slope - 1.0)));
        s.fwhm = rng.uniform(o.fwhmMin, o.fwhmMax);
        const Patch p = starPatch(s, o.beta, drawn);
        s.flux = addPatch(src, w, h, p, drawn);
        s.snr = apertureSnr(aperture(p, s, w, h), drawn, field.noiseVariance(s.x, s.y));
        stars.push_back(s);
    }
    const auto brighter = [](const TruthObject& a, const TruthObject& b) { return a.flux > b.flux; };
    std::stable_sort(stars.begin(), stars.end(), brighter);
    std::stable_sort(galaxies.begin(), galaxies.end(), brighter);
    field.objects = stars;
    field.objects.insert(field.objects.end(), galaxies.begin(), galaxies.end());

    // Isolation (SkyTruth.h): a star has no object of >= 10 % of its flux within 3 FWHM, nor lies in a galaxy's
    // 2 r_e ellipse; a galaxy has no object of >= 10 % of its flux in its 2 r_e ellipse.
    const auto near = [&](const TruthObject& a, const TruthObject& b) {
        if (a.type == TruthType::Galaxy) return ellipticalRadius(a, b.x - a.x, b.y - a.y) <= 2.0 * a.re;
        if (b.type == TruthType::Galaxy) return ellipticalRadius(b, a.x - b.x, a.y - b.y) <= 2.0 * b.re;
        return std::hypot(a.x - b.x, a.y - b.y) <= 3.0 * a.fwhm;
    };
    for (TruthObject& a : field.objects)
        for (const TruthObject& b : field.objects)
            if (&a != &b && b.flux >= 0.1 * a.flux && std::abs(a.x - b.x) < 500.0 && near(a, b)) {
                a.isolated = false;
                break;
            }

    // The frame: sky + objects, Gaussian noise of variance (signal + read noise^2), clipped at the full well.
    field.sources.assign(src.begin(), src.end());
    cv::Mat gauss(1, w * h, CV_64F);
    rng.fill(gauss, cv::RNG::NORMAL, 0.0, 1.0);
    const double* g = gauss.ptr<double>(0);
    std::vector<float> px(src.size());
    std::vector<std::uint8_t> full(src.size(), 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            const double model = field.skyAt(x, y) + src[i];
            full[i] = model >= o.saturation;
            const double v = model + std::sqrt(model + o.readNoise * o.readNoise) * g[i];
            px[i] = static_cast<float>(std::min(v, o.saturation));
        }
    for (TruthObject& t : field.objects) {
        const int cx = static_cast<int>(std::lround(t.x)), cy = static_cast<int>(std::lround(t.y));
        for (int y = std::max(0, cy - 1); y <= std::min(h - 1, cy + 1); ++y)
            for (int x = std::max(0, cx - 1); x <= std::min(w - 1, cx + 1); ++x)
                if (full[static_cast<std::size_t>(y) * w + x]) t.saturated = true;
    }
    field.image = Image::fromSamples<float>(w, h, std::move(px));
    field.image.updateIntegerValued();
    field.image.meta.format = "FITS";
    field.image.meta.bitDepth = 32;
    field.image.meta.displayYUp = true;
    // The TAN WCS the FITS file carries (SkyTruthFiles.cpp writes the same cards).
    std::string header;
    const auto card = [&](const char* key, double value) {
        char text[81];
        std::snprintf(text, sizeof text, "%-8s= %20.12G", key, value);
        header += std::string(text) + std::string(80 - std::string(text).size(), ' ');
    };
    const auto textCard = [&](const char* key, const char* value) {
        char text[81];
        std::snprintf(text, sizeof text, "%-8s= '%-8s'", key, value);
        header += std::string(text) + std::string(80 - std::string(text).size(), ' ');
    };
    textCard("CTYPE1", "RA---TAN");
    textCard("CTYPE2", "DEC--TAN");
    textCard("RADESYS", "FK5");
    card("CRVAL1", o.ra);
    card("CRVAL2", o.dec);
    card("CRPIX1", 0.5 * (w + 1));
    card("CRPIX2", 0.5 * (h + 1));
    card("CD1_1", -o.pixelScale / 3600.0);
    card("CD1_2", 0.0);
    card("CD2_1", 0.0);
    card("CD2_2", o.pixelScale / 3600.0);
    card("EQUINOX", 2000.0);
    field.image.meta.wcs = Wcs::fromHeader(header, static_cast<int>(header.size() / 80));
    return field;
}

} // namespace glint
