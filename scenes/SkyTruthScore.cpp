// Scoring a catalogue against a truth-injected sky frame (SkyTruthScore.h).
#include "scenes/SkyTruthScore.h"

#include <algorithm>
#include <cmath>

namespace glint {

namespace {

constexpr double kPi = 3.14159265358979323846;

double ellipticalRadius(const TruthObject& g, double dx, double dy) {
    const double c = std::cos(g.angleDeg * kPi / 180.0), s = std::sin(g.angleDeg * kPi / 180.0);
    const double u = dx * c + dy * s, t = (-dx * s + dy * c) / g.axisRatio;
    return std::sqrt(u * u + t * t);
}

RatioStat medianOf(std::vector<double> v) {
    RatioStat r;
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
    r.count = static_cast<int>(v.size());
    if (v.empty()) return r;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    r.median = v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
    return r;
}

std::size_t binIndex(double snr) {
    const std::vector<double>& e = skySnrEdges();
    std::size_t i = 0;
    while (i + 1 < e.size() && snr >= e[i + 1]) ++i;
    return i;
}

} // namespace

const std::vector<double>& skySnrEdges() {
    static const std::vector<double> edges = {0.0, 5.0, 10.0, 20.0, 50.0};
    return edges;
}

CatalogueScore scoreSkyCatalogue(const SkyField& field, const std::vector<CatalogueEntry>& catalogue, double radius) {
    CatalogueScore score;
    const std::vector<double>& edges = skySnrEdges();
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const double hi = i + 1 < edges.size() ? edges[i + 1] : std::numeric_limits<double>::infinity();
        score.isolatedStars.push_back({edges[i], hi});
        score.allStars.push_back({edges[i], hi});
    }
    score.isolated10 = score.all10 = {10.0, std::numeric_limits<double>::infinity()};
    const std::vector<TruthObject>& truth = field.objects;
    score.truthMatch.assign(truth.size(), -1);
    score.detectionTruth.assign(catalogue.size(), -1);
    score.detections = static_cast<int>(catalogue.size());

    // 1. Stars, one to one, nearest pairs first. A grid of stars by cell keeps it linear.
    const int cell = 16;
    const int gw = field.options.width / cell + 1, gh = field.options.height / cell + 1;
    std::vector<std::vector<int>> grid(static_cast<std::size_t>(gw) * gh);
    for (std::size_t t = 0; t < truth.size(); ++t) {
        if (truth[t].type != TruthType::Star) continue;
        const int cx = std::clamp(static_cast<int>(truth[t].x) / cell, 0, gw - 1), cy = std::clamp(static_cast<int>(truth[t].y) / cell, 0, gh - 1);
        grid[static_cast<std::size_t>(cy) * gw + cx].push_back(static_cast<int>(t));
    }
    struct Pair {
        double dist;
        int det, star;
    };
    std::vector<Pair> pairs;
    for (std::size_t d = 0; d < catalogue.size(); ++d) {
        const CatalogueEntry& e = catalogue[d];
        if (!std::isfinite(e.x) || !std::isfinite(e.y)) continue;
        const int cx = static_cast<int>(std::floor(e.x)) / cell, cy = static_cast<int>(std::floor(e.y)) / cell;
        for (int gy = std::max(0, cy - 1); gy <= std::min(gh - 1, cy + 1); ++gy)
            for (int gx = std::max(0, cx - 1); gx <= std::min(gw - 1, cx + 1); ++gx)
                for (int t : grid[static_cast<std::size_t>(gy) * gw + gx]) {
                    const TruthObject& s = truth[static_cast<std::size_t>(t)];
                    const double dist = std::hypot(e.x - s.x, e.y - s.y);
                    if (dist <= (s.saturated ? 2.0 * radius : radius)) pairs.push_back({dist, static_cast<int>(d), t});
                }
    }
    std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
        return a.dist != b.dist ? a.dist < b.dist : (a.det != b.det ? a.det < b.det : a.star < b.star);
    });
    for (const Pair& p : pairs) {
        if (score.truthMatch[static_cast<std::size_t>(p.star)] >= 0 || score.detectionTruth[static_cast<std::size_t>(p.det)] >= 0) continue;
        score.truthMatch[static_cast<std::size_t>(p.star)] = p.det;
        score.detectionTruth[static_cast<std::size_t>(p.det)] = p.star;
        ++score.onStars;
    }

    // 2. Galaxies: every detection left inside a 2 r_e ellipse.
    std::vector<std::vector<int>> onGalaxy(truth.size());
    for (std::size_t d = 0; d < catalogue.size(); ++d) {
        if (score.detectionTruth[d] >= 0) continue;
        const CatalogueEntry& e = catalogue[d];
        double best = 2.0;
        int which = -1;
        for (std::size_t t = 0; t < truth.size(); ++t) {
            const TruthObject& g = truth[t];
            if (g.type != TruthType::Galaxy) continue;
            const double m = ellipticalRadius(g, e.x - g.x, e.y - g.y) / g.re;
            if (m <= best) {
                best = m;
                which = static_cast<int>(t);
            }
        }
        if (which < 0) {
            ++score.falseDetections;
            continue;
        }
        score.detectionTruth[d] = which;
        onGalaxy[static_cast<std::size_t>(which)].push_back(static_cast<int>(d));
        ++score.onGalaxies;
    }
    std::vector<double> gFlux, gA, gKron;
    for (std::size_t t = 0; t < truth.size(); ++t) {
        const TruthObject& g = truth[t];
        if (g.type != TruthType::Galaxy) continue;
        GalaxyScore gs;
        gs.truth = static_cast<int>(t);
        gs.re = g.re;
        gs.sersicN = g.sersicN;
        gs.snr = g.snr;
        gs.isolated = g.isolated;
        gs.detections = static_cast<int>(onGalaxy[t].size());
        if (gs.detections > 0) {
            int nearest = onGalaxy[t][0];
            for (int d : onGalaxy[t])
                if (std::hypot(catalogue[static_cast<std::size_t>(d)].x - g.x, catalogue[static_cast<std::size_t>(d)].y - g.y) <
                    std::hypot(catalogue[static_cast<std::size_t>(nearest)].x - g.x, catalogue[static_cast<std::size_t>(nearest)].y - g.y))
                    nearest = d;
            score.truthMatch[t] = nearest;
            const CatalogueEntry& e = catalogue[static_cast<std::size_t>(nearest)];
            gs.fluxRatio = e.fluxAuto / g.flux;
            gs.aOverRe = e.a / g.re;
            gs.kronRatio = e.kronRadius * e.a / (2.5 * g.kronRadius);
            gFlux.push_back(gs.fluxRatio);
            gA.push_back(gs.aOverRe);
            gKron.push_back(gs.kronRatio);
        }
        if (gs.detections == 0) ++score.galaxiesMissed;
        else if (gs.detections == 1) ++score.galaxiesFoundOnce;
        else ++score.galaxiesShredded;
        if (g.re >= 3.0) {
            ++score.bigGalaxies;
            if (gs.detections == 1) {
                ++score.bigFoundOnce;
                if (std::abs(gs.fluxRatio - 1.0) <= 0.10) ++score.bigFluxWithin10;
            }
        }
        score.galaxies.push_back(gs);
    }
    score.galaxyFluxRatio = medianOf(gFlux);
    score.galaxyAOverRe = medianOf(gA);
    score.galaxyKronRatio = medianOf(gKron);

    // Stars: completeness, centroids, fluxes.
    std::vector<double> centroid;
    std::vector<std::vector<double>> ratios(edges.size());
    for (std::size_t t = 0; t < truth.size(); ++t) {
        const TruthObject& s = truth[t];
        if (s.type != TruthType::Star) continue;
        const bool found = score.truthMatch[t] >= 0;
        const std::size_t b = binIndex(s.snr);
        for (CompletenessBin* bin : {&score.allStars[b], s.snr >= 10.0 ? &score.all10 : nullptr,
                                     s.isolated ? &score.isolatedStars[b] : nullptr,
                                     s.isolated && s.snr >= 10.0 ? &score.isolated10 : nullptr}) {
            if (!bin) continue;
            ++bin->truths;
            if (found) ++bin->found;
        }
        if (!found || s.saturated) continue;
        const CatalogueEntry& e = catalogue[static_cast<std::size_t>(score.truthMatch[t])];
        if (s.snr >= 20.0) centroid.push_back(std::hypot(e.x - s.x, e.y - s.y));
        ratios[b].push_back(e.fluxAuto / s.flux);
    }
    for (const auto& r : ratios) score.starFluxRatio.push_back(medianOf(r));
    score.centroidCount = static_cast<int>(centroid.size());
    if (!centroid.empty()) {
        score.centroidMedian = medianOf(centroid).median;
        double sq = 0.0;
        for (double e : centroid) sq += e * e;
        score.centroidRms = std::sqrt(sq / static_cast<double>(centroid.size()));
    }

    // Blends: a star of SNR >= 10 within 2 FWHM of a brighter star of at most 10 x its flux (stars come brightest
    // first).
    for (std::size_t t = 0; t < truth.size(); ++t) {
        const TruthObject& s = truth[t];
        if (s.type != TruthType::Star || s.snr < 10.0) continue;
        bool blended = false;
        for (std::size_t u = 0; u < t && !blended; ++u) {
            const TruthObject& o = truth[u];
            blended = o.type == TruthType::Star && o.flux >= s.flux && o.flux <= 10.0 * s.flux &&
                      std::abs(o.x - s.x) <= 2.0 * s.fwhm && std::hypot(o.x - s.x, o.y - s.y) <= 2.0 * s.fwhm;
        }
        if (!blended) continue;
        ++score.blendedStars;
        if (score.truthMatch[t] >= 0) ++score.blendedFound;
    }
    return score;
}

} // namespace glint
