// Synthetic star fields with a known truth and the scoring of catalogues against it (StarField.h).
#include "scenes/StarField.h"

#include "core/util/Errors.h"

#include <opencv2/core.hpp>

#include <fitsio.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace glint {

namespace {

constexpr double kPi = 3.14159265358979323846;

double moffatAlpha(double fwhm, double beta) { return fwhm / (2.0 * std::sqrt(std::pow(2.0, 1.0 / beta) - 1.0)); }

// Adds a Moffat star of total flux `flux` at (cx, cy), 3x3 sub-sampled, out to where it falls below
// 0.05 e- a pixel.
void addMoffat(std::vector<double>& img, int w, int h, double cx, double cy, double flux, double fwhm, double beta) {
    const double alpha = moffatAlpha(fwhm, beta);
    const double peak = flux * (beta - 1.0) / (kPi * alpha * alpha);
    const double reach = alpha * std::sqrt(std::max(0.0, std::pow(peak / 0.05, 1.0 / beta) - 1.0));
    const int r = static_cast<int>(std::clamp(std::ceil(reach), 6.0, 200.0));
    const int x0 = std::max(0, static_cast<int>(std::floor(cx)) - r), x1 = std::min(w - 1, static_cast<int>(std::ceil(cx)) + r);
    const int y0 = std::max(0, static_cast<int>(std::floor(cy)) - r), y1 = std::min(h - 1, static_cast<int>(std::ceil(cy)) + r);
    for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) {
            double v = 0.0;
            for (int sy = -1; sy <= 1; ++sy)
                for (int sx = -1; sx <= 1; ++sx) {
                    const double dx = x + sx / 3.0 - cx, dy = y + sy / 3.0 - cy;
                    v += std::pow(1.0 + (dx * dx + dy * dy) / (alpha * alpha), -beta);
                }
            img[static_cast<std::size_t>(y) * w + x] += peak * v / 9.0;
        }
}

void addSersic(std::vector<double>& img, int w, int h, const TruthGalaxy& g) {
    const double n = g.sersicIndex, bn = 2.0 * n - 1.0 / 3.0 + 0.009876 / n;
    const double c = std::cos(g.angleDeg * kPi / 180.0), s = std::sin(g.angleDeg * kPi / 180.0);
    const int r = static_cast<int>(std::ceil(8.0 * g.effectiveRadius));
    const int x0 = std::max(0, static_cast<int>(g.x) - r), x1 = std::min(w - 1, static_cast<int>(g.x) + r);
    const int y0 = std::max(0, static_cast<int>(g.y) - r), y1 = std::min(h - 1, static_cast<int>(g.y) + r);
    std::vector<double> profile;
    double total = 0.0;
    for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) {
            double v = 0.0;
            for (int sy = -1; sy <= 1; ++sy)
                for (int sx = -1; sx <= 1; ++sx) {
                    const double dx = x + sx / 3.0 - g.x, dy = y + sy / 3.0 - g.y;
                    const double u = dx * c + dy * s, t = (-dx * s + dy * c) / g.axisRatio;
                    const double rr = std::sqrt(u * u + t * t) / g.effectiveRadius;
                    v += std::exp(-bn * (std::pow(rr, 1.0 / n) - 1.0));
                }
            profile.push_back(v);
            total += v;
        }
    std::size_t i = 0;
    for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) img[static_cast<std::size_t>(y) * w + x] += g.flux * profile[i++] / total;
}

// Pixels above the full well clip, and the excess charge runs along the column both ways, filling each
// pixel to the full well in turn.
void bleed(std::vector<double>& img, int w, int h, double full, std::vector<std::uint8_t>& clipped) {
    for (int x = 0; x < w; ++x) {
        int y = 0;
        while (y < h) {
            if (img[static_cast<std::size_t>(y) * w + x] <= full) {
                ++y;
                continue;
            }
            const int top = y;
            double excess = 0.0;
            while (y < h && img[static_cast<std::size_t>(y) * w + x] > full) {
                excess += img[static_cast<std::size_t>(y) * w + x] - full;
                img[static_cast<std::size_t>(y) * w + x] = full;
                clipped[static_cast<std::size_t>(y) * w + x] = 1;
                ++y;
            }
            double up = excess / 2.0, down = excess - up;
            for (int yy = top - 1; yy >= 0 && up > 0.0; --yy) {
                double& v = img[static_cast<std::size_t>(yy) * w + x];
                const double add = std::min(up, std::max(0.0, full - v));
                v += add;
                up -= add;
                if (v >= full) clipped[static_cast<std::size_t>(yy) * w + x] = 1;
            }
            int yy = y;
            for (; yy < h && down > 0.0; ++yy) {
                double& v = img[static_cast<std::size_t>(yy) * w + x];
                const double add = std::min(down, std::max(0.0, full - v));
                v += add;
                down -= add;
                if (v >= full) clipped[static_cast<std::size_t>(yy) * w + x] = 1;
            }
            y = std::max(y, yy);
        }
    }
}

double skyAt(const StarFieldOptions& o, double x, double y) {
    return o.sky + o.gradientX * x + o.gradientY * y + (x >= o.seamFraction * o.width ? o.seamStep : 0.0);
}

} // namespace

double StarField::noiseVariance(int x, int y) const {
    return skyModel[static_cast<std::size_t>(y) * options.width + x] + options.readNoise * options.readNoise;
}

StarField makeStarField(const StarFieldOptions& o) {
    if (o.width < 64 || o.height < 64 || o.stars < 0 || !(o.fwhmMin > 0.0) || o.fwhmMax < o.fwhmMin || !(o.beta > 1.0) ||
        !(o.fluxMin > 0.0) || o.fluxMax < o.fluxMin || o.saturatedStars < 0 || o.saturatedStars > o.stars || o.blankBorder < 0 || 2 * o.blankBorder + 32 > std::min(o.width, o.height))
        throw UsageError("star field: invalid options");
    const int w = o.width, h = o.height;
    StarField field;
    field.options = o;
    cv::RNG rng(o.seed);
    const double lo = o.blankBorder + 3.0, hiX = w - o.blankBorder - 4.0, hiY = h - o.blankBorder - 4.0;

    if (o.galaxy) {
        TruthGalaxy g;
        g.x = rng.uniform(0.3, 0.7) * w;
        g.y = rng.uniform(0.3, 0.7) * h;
        g.effectiveRadius = 18.0;
        g.flux = 4.0e5;
        field.galaxy = g;
    }
    const double alphaIndex = 2.0; // dN/dF ~ F^-alpha
    int attempts = 0;
    while (static_cast<int>(field.stars.size()) < o.stars && attempts++ < o.stars * 200) {
        TruthStar s;
        s.x = rng.uniform(lo, hiX);
        s.y = rng.uniform(lo, hiY);
        bool free = !field.galaxy || std::hypot(s.x - field.galaxy->x, s.y - field.galaxy->y) > 4.0 * field.galaxy->effectiveRadius;
        for (const TruthStar& t : field.stars)
            if (free && std::hypot(s.x - t.x, s.y - t.y) < o.minSeparation) free = false;
        if (!free) continue;
        const double u = rng.uniform(0.0, 1.0);
        s.flux = static_cast<int>(field.stars.size()) < o.saturatedStars
                     ? std::min(o.fluxMax, rng.uniform(3.0e6, 1.0e7))
                     : std::min(o.fluxMax, o.fluxMin * std::pow(1.0 - u, -1.0 / (alphaIndex - 1.0)));
        s.fwhm = rng.uniform(o.fwhmMin, o.fwhmMax);
        field.stars.push_back(s);
    }
    std::sort(field.stars.begin(), field.stars.end(), [](const TruthStar& a, const TruthStar& b) { return a.flux > b.flux; });

    std::vector<double> src(static_cast<std::size_t>(w) * h, 0.0);
    for (const TruthStar& s : field.stars) addMoffat(src, w, h, s.x, s.y, s.flux, s.fwhm, o.beta);
    if (field.galaxy) addSersic(src, w, h, *field.galaxy);
    field.sources.assign(src.begin(), src.end());
    field.skyModel.resize(src.size());
    std::vector<double> model(src.size());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            field.skyModel[i] = static_cast<float>(skyAt(o, x, y));
            model[i] = field.skyModel[i] + src[i];
        }
    std::vector<std::uint8_t> clipped(src.size(), 0);
    bleed(model, w, h, o.saturation, clipped);

    for (TruthStar& s : field.stars) {
        const double alpha = moffatAlpha(s.fwhm, o.beta);
        const double ap = s.flux * (1.0 - std::pow(1.0 + s.fwhm * s.fwhm / (alpha * alpha), 1.0 - o.beta));
        const double var = skyAt(o, s.x, s.y) + o.readNoise * o.readNoise;
        s.snr = ap / std::sqrt(ap + kPi * s.fwhm * s.fwhm * var);
        const int cx = static_cast<int>(std::lround(s.x)), cy = static_cast<int>(std::lround(s.y));
        for (int dy = -1; dy <= 1 && !s.saturated; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
                if (clipped[static_cast<std::size_t>(cy + dy) * w + (cx + dx)]) s.saturated = true;
    }

    // Photon noise (Gaussian with variance = signal, e-) and read noise; a full pixel reads full.
    cv::Mat gauss(2, w * h, CV_64F);
    rng.fill(gauss, cv::RNG::NORMAL, 0.0, 1.0);
    const double* g1 = gauss.ptr<double>(0);
    const double* g2 = gauss.ptr<double>(1);
    std::vector<float> px(src.size());
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<std::uint8_t> blank(src.size(), 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            if (x < o.blankBorder || y < o.blankBorder || x >= w - o.blankBorder || y >= h - o.blankBorder) {
                px[i] = nan;
                blank[i] = 1;
                continue;
            }
            const double v = model[i] + std::sqrt(std::max(model[i], 0.0)) * g1[i] + o.readNoise * g2[i];
            px[i] = static_cast<float>(clipped[i] ? o.saturation : std::min(v, o.saturation));
        }
    field.image = Image::fromSamples<float>(w, h, std::move(px));
    field.image.setBlankMask(std::move(blank));
    field.image.updateIntegerValued();
    field.image.meta.format = "FITS";
    field.image.meta.bitDepth = 32;
    field.image.meta.displayYUp = true;
    return field;
}

void writeFrameFits(const Image& image, double saturation, double readNoise, const std::string& path,
                    const std::function<void(void*, int&)>& extraCards) {
    fitsfile* f = nullptr;
    int status = 0;
    const std::string target = "!" + path; // overwrite
    long axes[2] = {image.width(), image.height()};
    fits_create_file(&f, target.c_str(), &status);
    fits_create_img(f, FLOAT_IMG, 2, axes, &status);
    std::vector<float> px(image.pixelCount());
    const float* s = image.samples<float>();
    std::copy(s, s + px.size(), px.begin());
    fits_write_img(f, TFLOAT, 1, static_cast<LONGLONG>(px.size()), px.data(), &status);
    double gain = 1.0;
    fits_update_key(f, TDOUBLE, "GAIN", &gain, "e-/ADU", &status);
    fits_update_key(f, TDOUBLE, "SATURATE", &saturation, "full well, e-", &status);
    fits_update_key(f, TDOUBLE, "RDNOISE", &readNoise, "read noise, e-", &status);
    if (extraCards && !status) extraCards(f, status);
    int closeStatus = 0;
    if (f) fits_close_file(f, &closeStatus);
    if (status || closeStatus) {
        char text[FLEN_STATUS] = {};
        fits_get_errstatus(status ? status : closeStatus, text);
        throw OutputError("cannot write " + path + ": " + text);
    }
}

void writeStarFieldFits(const StarField& field, const std::string& path) {
    writeFrameFits(field.image, field.options.saturation, field.options.readNoise, path, [](void* f, int& status) {
        fits_write_comment(static_cast<fitsfile*>(f), "Glint synthetic star field (scenes/StarField.cpp): SYNTHETIC", &status);
    });
}

double truthSnrAt(const StarField& field, double x, double y) {
    const StarFieldOptions& o = field.options;
    const double r = 0.5 * (o.fwhmMin + o.fwhmMax);
    const int cx = static_cast<int>(std::lround(x)), cy = static_cast<int>(std::lround(y));
    if (cx < 0 || cy < 0 || cx >= o.width || cy >= o.height) return 0.0;
    double sum = 0.0, var = 0.0;
    const int k = static_cast<int>(std::ceil(r));
    for (int yy = std::max(0, cy - k); yy <= std::min(o.height - 1, cy + k); ++yy)
        for (int xx = std::max(0, cx - k); xx <= std::min(o.width - 1, cx + k); ++xx) {
            if (std::hypot(xx - x, yy - y) > r) continue;
            sum += field.sources[static_cast<std::size_t>(yy) * o.width + xx];
            var += field.noiseVariance(xx, yy);
        }
    return var > 0.0 ? sum / std::sqrt(std::max(0.0, sum) + var) : 0.0;
}

MatchScore scoreCatalogue(const StarField& field, const std::vector<Detection>& detections, double radius) {
    MatchScore score;
    const std::vector<double> edges = {0.0, 5.0, 10.0, 20.0, 50.0, 100.0, std::numeric_limits<double>::infinity()};
    for (std::size_t i = 0; i + 1 < edges.size(); ++i) score.bins.push_back({edges[i], edges[i + 1]});
    score.atLeast10 = {10.0, std::numeric_limits<double>::infinity()};
    const auto binOf = [&](double snr) -> SnrBin& {
        for (SnrBin& b : score.bins)
            if (snr < b.hi) return b;
        return score.bins.back();
    };
    const auto inside = [](const Detection& d, double x, double y) {
        return d.hasRect && x >= d.rx - 0.5 && x < d.rx + d.rw - 0.5 && y >= d.ry - 0.5 && y < d.ry + d.rh - 0.5;
    };
    struct Pair {
        double dist;
        std::size_t det, star;
    };
    std::vector<Pair> pairs;
    for (std::size_t d = 0; d < detections.size(); ++d)
        for (std::size_t s = 0; s < field.stars.size(); ++s) {
            const double dist = std::hypot(detections[d].x - field.stars[s].x, detections[d].y - field.stars[s].y);
            if (dist <= radius || inside(detections[d], field.stars[s].x, field.stars[s].y)) pairs.push_back({dist, d, s});
        }
    std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
        return a.dist != b.dist ? a.dist < b.dist : (a.det != b.det ? a.det < b.det : a.star < b.star);
    });
    score.truthMatch.assign(field.stars.size(), -1);
    std::vector<int> detMatch(detections.size(), -1);
    for (const Pair& p : pairs) {
        if (score.truthMatch[p.star] >= 0 || detMatch[p.det] >= 0) continue;
        score.truthMatch[p.star] = static_cast<int>(p.det);
        detMatch[p.det] = static_cast<int>(p.star);
    }
    score.detections = static_cast<int>(detections.size());
    std::vector<double> errors;
    for (std::size_t s = 0; s < field.stars.size(); ++s) {
        const TruthStar& t = field.stars[s];
        const bool found = score.truthMatch[s] >= 0;
        for (SnrBin* b : {&binOf(t.snr), t.snr >= 10.0 ? &score.atLeast10 : nullptr}) {
            if (!b) continue;
            ++b->truths;
            if (found) ++b->found;
        }
        if (found && t.snr >= 20.0 && !t.saturated) {
            const Detection& d = detections[static_cast<std::size_t>(score.truthMatch[s])];
            errors.push_back(std::hypot(d.x - t.x, d.y - t.y));
        }
    }
    // The frame's PSF width: the median of the stars' FWHM.
    {
        std::vector<double> w;
        for (const TruthStar& t : field.stars) w.push_back(t.fwhm);
        if (!w.empty()) {
            std::sort(w.begin(), w.end());
            score.psfFwhm = w[w.size() / 2];
        }
    }
    for (std::size_t d = 0; d < detections.size(); ++d) {
        double snr = 0.0;
        bool genuine = false;
        // Widths (Glint's rectangles), the galaxy's left out below.
        const int side = detections[d].hasRect ? std::max(detections[d].rw, detections[d].rh) : 0;
        const bool wide = score.psfFwhm > 0.0 && side > 5.0 * score.psfFwhm;
        if (detMatch[d] >= 0) {
            ++score.matched;
            snr = field.stars[static_cast<std::size_t>(detMatch[d])].snr;
            genuine = true;
        } else if (field.galaxy &&
                   (std::hypot(detections[d].x - field.galaxy->x, detections[d].y - field.galaxy->y) <=
                        2.0 * field.galaxy->effectiveRadius ||
                    inside(detections[d], field.galaxy->x, field.galaxy->y))) {
            ++score.onGalaxy;
            continue; // neither a star nor false: left out of purity and of the widths
        } else {
            ++score.falseDetections;
            snr = truthSnrAt(field, detections[d].x, detections[d].y);
        }
        score.widestSide = std::max(score.widestSide, side);
        if (wide) ++score.wide;
        for (SnrBin* b : {&binOf(snr), snr >= 10.0 ? &score.atLeast10 : nullptr}) {
            if (!b) continue;
            ++b->detections;
            if (genuine) ++b->genuine;
        }
    }
    score.centroidCount = static_cast<int>(errors.size());
    if (!errors.empty()) {
        std::sort(errors.begin(), errors.end());
        const std::size_t m = errors.size() / 2;
        score.centroidMedian = errors.size() % 2 ? errors[m] : 0.5 * (errors[m - 1] + errors[m]);
        double sq = 0.0;
        for (double e : errors) sq += e * e;
        score.centroidRms = std::sqrt(sq / static_cast<double>(errors.size()));
    }
    return score;
}

} // namespace glint
