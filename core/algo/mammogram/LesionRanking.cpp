// The mammogram ranking by local contrast (LesionRanking.h).
#include "core/algo/mammogram/LesionRanking.h"

#include "core/algo/regions/WorkArray.h"
#include "core/io/Image.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

namespace glint {

namespace {

struct Candidate {
    double contrast = 0.0;
    double cx = 0.0, cy = 0.0; // reduced pixels
    cv::Rect box;              // reduced pixels
    bool cluster = false;
    double ring = 0.0;         // the ring's mean
    bool extended = false;     // took the box of a larger candidate holding it (the same mass at its own scale)
    bool merged = false;       // dropped after it was kept: the same finding as another kept one
    std::vector<cv::Point2d> specks; // a cluster's specks (reduced pixels)
};

// A resolution tag's pixel size in mm when it is plausible for a film: 0.02-1 mm, the longer side 100-400 mm, and
// not a screen's default of 72 or 96 dots per inch (which software writes whatever the image).
std::optional<double> filmPixelMm(double mm, const Image& image) {
    if (!(mm >= 0.02 && mm <= 1.0)) return std::nullopt;
    const double side = mm * std::max(image.width(), image.height());
    const double dpi = 25.4 / mm;
    if (side < 100.0 || side > 400.0 || std::abs(dpi - 72.0) < 0.5 || std::abs(dpi - 96.0) < 0.5) return std::nullopt;
    return mm;
}

// mm per pixel and where it came from: DICOM Pixel Spacing (or Imager Pixel Spacing); a PNG's pHYs chunk; a TIFF's
// XResolution in pixels per inch or per cm (as GDAL reports them); else 0.2 mm at a 1024-px film (source empty).
double pixelMm(const Image& image, std::string& source) {
    for (const HeaderCard& card : image.meta.header) {
        if (card.key.rfind("(0028,0030)", 0) != 0 && card.key.rfind("(0018,1164)", 0) != 0) continue;
        const double v = std::strtod(card.value.c_str(), nullptr);
        if (std::isfinite(v) && v > 0.005 && v < 5.0) {
            source = "Pixel Spacing";
            return v;
        }
    }
    std::optional<double> tiffResolution;
    int tiffUnit = 2; // TIFF's default: inches
    for (const HeaderCard& card : image.meta.header) {
        if (card.key == "PNG pHYs") {
            const double perMetre = std::strtod(card.value.c_str(), nullptr);
            if (std::isfinite(perMetre) && perMetre > 0.0)
                if (const auto mm = filmPixelMm(1000.0 / perMetre, image)) {
                    source = "PNG pHYs";
                    return *mm;
                }
        } else if (card.key == "TIFFTAG_XRESOLUTION") {
            const double v = std::strtod(card.value.c_str(), nullptr);
            if (std::isfinite(v) && v > 0.0) tiffResolution = v;
        } else if (card.key == "TIFFTAG_RESOLUTIONUNIT") {
            tiffUnit = std::atoi(card.value.c_str());
        }
    }
    if (tiffResolution && (tiffUnit == 2 || tiffUnit == 3))
        if (const auto mm = filmPixelMm((tiffUnit == 2 ? 25.4 : 10.0) / *tiffResolution, image)) {
            source = "TIFF resolution";
            return *mm;
        }
    source.clear();
    return 0.2 * 1024.0 / std::max(image.width(), image.height());
}

// Box sums of a CV_64F image over (2h+1)² windows (border: zero), via the integral image.
cv::Mat boxSum(const cv::Mat& integral, int rows, int cols, int h) {
    cv::Mat out(rows, cols, CV_64F);
    for (int y = 0; y < rows; ++y) {
        const int y0 = std::max(0, y - h), y1 = std::min(rows, y + h + 1);
        const double* top = integral.ptr<double>(y0);
        const double* bottom = integral.ptr<double>(y1);
        double* o = out.ptr<double>(y);
        for (int x = 0; x < cols; ++x) {
            const int x0 = std::max(0, x - h), x1 = std::min(cols, x + h + 1);
            o[x] = bottom[x1] - bottom[x0] - top[x1] + top[x0];
        }
    }
    return out;
}

// Calcifications within this distance of one another are one cluster (LesionRanking.h).
constexpr double kClusterLinkMm = 6.0;

double median(std::vector<float> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

} // namespace

BrightestResult rankMammogramLesions(const Image& image, const BrightestParams& params, JobControl& job) {
    BrightestResult result;
    result.pivotSpec = params.pivot;
    result.mode = BrightestMode::Disjoint;
    result.imageWidth = image.width();
    result.imageHeight = image.height();
    result.backend = Backend::Cpu;
    result.device = "CPU";
    const PixelRect roi = searchRoi(image, params);
    const int W = image.width(), H = image.height();
    // Included pixels: inside the ROI, not blank, finite, not excluded.
    std::vector<std::uint8_t> excluded = imageExclusionMask(image, params);
    cv::Mat full(H, W, CV_32F), inc(H, W, CV_32F);
    image.visit([&](const auto* s) {
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * W + x;
                const double v = static_cast<double>(s[i]);
                const bool in = x >= roi.x && y >= roi.y && x < roi.x + roi.width && y < roi.y + roi.height &&
                                std::isfinite(v) && (excluded.empty() || !excluded[i]);
                full.at<float>(y, x) = in ? static_cast<float>(v) : 0.0f;
                inc.at<float>(y, x) = in ? 1.0f : 0.0f;
            }
    });
    std::size_t included = static_cast<std::size_t>(cv::countNonZero(inc));
    result.includedPixels = included;
    std::string spacingSource;
    double mm = pixelMm(image, spacingSource);
    // Work at about 0.2 mm a pixel at most (finer films are reduced; specks stay >= 1 px).
    const int factor = std::max(1, static_cast<int>(std::floor(0.2 / mm + 1e-9)));
    cv::Mat img = full, m = inc;
    if (factor > 1) {
        cv::Mat sumI, sumM;
        cv::resize(full, sumI, cv::Size((W + factor - 1) / factor, (H + factor - 1) / factor), 0, 0, cv::INTER_AREA);
        cv::resize(inc, sumM, sumI.size(), 0, 0, cv::INTER_AREA);
        img = sumI / cv::max(sumM, 1e-6f);
        m = sumM > 0.5f;
        m.convertTo(m, CV_32F, 1.0 / 255.0);
        img = img.mul(m);
    }
    const double rmm = mm * factor; // mm per working pixel
    const int rows = img.rows, cols = img.cols;
    job.throwIfCancelled();
    if (included == 0) {
        result.note = "no region: every pixel is blank or excluded";
        return result;
    }

    // The film's noise: the robust spread of pixel-to-pixel differences over included pixels.
    std::vector<float> diffs;
    for (int y = 0; y < rows; y += 2)
        for (int x = 0; x + 1 < cols; x += 2)
            if (m.at<float>(y, x) > 0 && m.at<float>(y, x + 1) > 0) diffs.push_back(std::abs(img.at<float>(y, x + 1) - img.at<float>(y, x)));
    const double noise = std::max(1e-6, 1.4826 * median(diffs) / std::sqrt(2.0));

    cv::Mat img64, m64, iI, iM;
    img.convertTo(img64, CV_64F);
    m.convertTo(m64, CV_64F);
    cv::integral(img64, iI, CV_64F);
    cv::integral(m64, iM, CV_64F);

    // The contrast of a disc of half-side h against its ring (h..2h) at every pixel: (mean inside - mean of the
    // ring) in units of the tissue's own contrast at this size around it, the spread of that difference in a
    // window of the tissue nearby (texture of that size gives about 1; a lesion stands out above it). Pixels whose disc is less than
    // 90 % included (or ring 40 %) get -1e9.
    const auto contrastAt = [&](int h, cv::Mat& contrast, cv::Mat& ringMean) {
        const cv::Mat sI = boxSum(iI, rows, cols, h), sM = boxSum(iM, rows, cols, h);
        const cv::Mat oI = boxSum(iI, rows, cols, 2 * h), oM = boxSum(iM, rows, cols, 2 * h);
        contrast = cv::Mat(rows, cols, CV_32F, cv::Scalar(-1e9f));
        ringMean = cv::Mat::zeros(rows, cols, CV_32F);
        const double innerArea = (2.0 * h + 1) * (2.0 * h + 1), outerArea = (4.0 * h + 1) * (4.0 * h + 1);
        std::vector<float> d;
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x) {
                const double inM = sM.at<double>(y, x), ringM = oM.at<double>(y, x) - inM;
                if (inM < 0.9 * innerArea || ringM < 0.4 * (outerArea - innerArea) || m.at<float>(y, x) <= 0) continue;
                const double rMean = (oI.at<double>(y, x) - sI.at<double>(y, x)) / ringM;
                const double diff = sI.at<double>(y, x) / inM - rMean;
                contrast.at<float>(y, x) = static_cast<float>(diff);
                ringMean.at<float>(y, x) = static_cast<float>(rMean);
                if (((x | y) & 1) == 0) d.push_back(static_cast<float>(diff));
            }
        const double mid = median(d);
        // The spread: the 95th percentile's distance from the median, over 1.645 (a normal's): the tail that
        // texture reaches at this size, so that every size gives texture the same rate of high values.
        std::vector<float> tail = d;
        const std::size_t q = tail.empty() ? 0 : static_cast<std::size_t>(0.95 * static_cast<double>(tail.size() - 1));
        if (!tail.empty()) std::nth_element(tail.begin(), tail.begin() + static_cast<std::ptrdiff_t>(q), tail.end());
        const double spread = std::max(0.05 * noise, tail.empty() ? 0.0 : (tail[q] - mid) / 1.645);
        // Each pixel's difference is judged against the tissue around it: (diff - local mean) / local standard
        // deviation over the valid pixels of a window of half-side 8h (at least 10 mm), the differences clipped to
        // 3 global spreads around the median so that a finding does not raise its own yardstick. One global figure
        // per scale judged a mass by the whole breast's texture: the thinning breast along the skin line answers
        // strongly all along it (which inflates the global spread, so that a mass near the skin line fell below
        // the candidates), and dense tissue's texture outranked masses in fatty tissue. Windows with fewer than
        // 50 valid pixels keep the global figures; the local deviation is held at a quarter of the global spread
        // at least (a flat patch would otherwise make any speck a finding).
        const int half = std::max(static_cast<int>(std::lround(8.0 * h)), static_cast<int>(std::lround(10.0 / rmm)));
        cv::Mat v(rows, cols, CV_32F), s1(rows, cols, CV_32F), s2(rows, cols, CV_32F);
        for (int y = 0; y < rows; ++y) {
            const float* c = contrast.ptr<float>(y);
            float *pv = v.ptr<float>(y), *p1 = s1.ptr<float>(y), *p2 = s2.ptr<float>(y);
            for (int x = 0; x < cols; ++x) {
                const bool ok = c[x] > -1e8f;
                const double dc = ok ? std::clamp(static_cast<double>(c[x]), mid - 3.0 * spread, mid + 3.0 * spread) - mid : 0.0;
                pv[x] = ok ? 1.0f : 0.0f;
                p1[x] = static_cast<float>(dc);
                p2[x] = static_cast<float>(dc * dc);
            }
        }
        // Window sums (zero outside the image), as box sums of the three maps.
        cv::Mat bv, b1, b2;
        const cv::Size win(2 * half + 1, 2 * half + 1);
        cv::boxFilter(v, bv, CV_64F, win, cv::Point(-1, -1), false, cv::BORDER_CONSTANT);
        cv::boxFilter(s1, b1, CV_64F, win, cv::Point(-1, -1), false, cv::BORDER_CONSTANT);
        cv::boxFilter(s2, b2, CV_64F, win, cv::Point(-1, -1), false, cv::BORDER_CONSTANT);
        for (int y = 0; y < rows; ++y) {
            float* c = contrast.ptr<float>(y);
            const double *pv = bv.ptr<double>(y), *p1 = b1.ptr<double>(y), *p2 = b2.ptr<double>(y);
            for (int x = 0; x < cols; ++x) {
                if (c[x] <= -1e8f) continue;
                const double n = pv[x];
                if (n < 50.0) {
                    c[x] = static_cast<float>((c[x] - mid) / spread);
                    continue;
                }
                const double mu = p1[x] / n; // relative to the median
                const double sd = std::sqrt(std::max(0.0, p2[x] / n - mu * mu));
                c[x] = static_cast<float>((c[x] - mid - mu) / std::max({sd, 0.05 * noise, 0.25 * spread}));
            }
        }
    };

    std::vector<Candidate> candidates;
    // Every mass scale's contrast and ring-mean maps, kept for judging whether two mass candidates are one finding
    // (below).
    std::vector<cv::Mat> scaleContrast, scaleRing;
    std::vector<int> scaleHalf;
    // Masses: radius 1-15 mm at 8 scales.
    {
        const double r0 = std::max(2.0, 1.0 / rmm), r1 = std::max(r0 + 1.0, 15.0 / rmm);
        cv::Mat best(rows, cols, CV_32F, cv::Scalar(-1e9f)), bestH = cv::Mat::zeros(rows, cols, CV_32S),
                bestRing = cv::Mat::zeros(rows, cols, CV_32F);
        for (int i = 0; i < 8; ++i) {
            const int h = std::max(2, static_cast<int>(std::lround(r0 * std::pow(r1 / r0, i / 7.0))));
            cv::Mat c, ring;
            contrastAt(h, c, ring);
            for (int y = 0; y < rows; ++y)
                for (int x = 0; x < cols; ++x)
                    if (c.at<float>(y, x) > best.at<float>(y, x)) {
                        best.at<float>(y, x) = c.at<float>(y, x);
                        bestH.at<int>(y, x) = h;
                        bestRing.at<float>(y, x) = ring.at<float>(y, x);
                    }
            if (scaleHalf.empty() || scaleHalf.back() != h) {
                scaleContrast.push_back(c);
                scaleRing.push_back(ring);
                scaleHalf.push_back(h);
            }
            job.throwIfCancelled();
        }
        cv::Mat dil;
        cv::dilate(best, dil, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(7, 7)));
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x) {
                const float v = best.at<float>(y, x);
                if (v < 2.0f || v < dil.at<float>(y, x)) continue;
                const int h = bestH.at<int>(y, x);
                Candidate c;
                c.contrast = v;
                c.cx = x;
                c.cy = y;
                c.box = cv::Rect(x - h, y - h, 2 * h + 1, 2 * h + 1) & cv::Rect(0, 0, cols, rows);
                c.ring = bestRing.at<float>(y, x);
                candidates.push_back(c);
            }
    }
    // Calcification clusters.
    {
        const int k = std::max(3, static_cast<int>(std::lround(1.6 / rmm)) | 1);
        cv::Mat opened, tophat;
        cv::morphologyEx(img, opened, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(k, k)));
        tophat = img - opened;
        std::vector<float> t;
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x)
                if (m.at<float>(y, x) > 0) t.push_back(tophat.at<float>(y, x));
        const double med = median(t);
        for (float& v : t) v = static_cast<float>(std::abs(v - med));
        const double spread = std::max(noise, 1.4826 * median(t));
        cv::Mat erodedM;
        cv::erode(m, erodedM, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(k, k)));
        cv::Mat specks = (tophat > med + 5.0 * spread) & (erodedM > 0);

        cv::Mat labels, stats, cents;
        const int n = cv::connectedComponentsWithStats(specks, labels, stats, cents, 8, CV_32S);
        const int hs = std::max(1, static_cast<int>(std::lround(0.2 / rmm)));
        cv::Mat sc, ring;
        contrastAt(hs, sc, ring);
        const double maxArea = 3.14159 * std::pow(0.75 / rmm, 2.0) + 2.0;
        struct Speck { double x, y, c; };
        std::vector<Speck> sp; // specks that stand out from their ring (contrast >= 2.5)
        for (int i = 1; i < n; ++i) {
            if (stats.at<int>(i, cv::CC_STAT_AREA) > maxArea) continue;
            double bestC = 0.0;
            const int bx = stats.at<int>(i, cv::CC_STAT_LEFT), by = stats.at<int>(i, cv::CC_STAT_TOP);
            for (int y = by; y < by + stats.at<int>(i, cv::CC_STAT_HEIGHT); ++y)
                for (int x = bx; x < bx + stats.at<int>(i, cv::CC_STAT_WIDTH); ++x)
                    if (labels.at<int>(y, x) == i) bestC = std::max(bestC, static_cast<double>(sc.at<float>(y, x)));
            if (bestC >= 2.5) sp.push_back({cents.at<double>(i, 0), cents.at<double>(i, 1), bestC});
        }
        // A cluster's core: specks within 4 mm of one another (single linkage), at least 3 of them, spanning at
        // most ~1.5 cm; its contrast is the median of the core's. Its extent: clinically a cluster is three or more
        // calcifications within about 1 cm, so a lone speck or a pair (too few for a cluster of their own) within
        // kClusterLinkMm (6 mm, about half of that) of one of its specks is the same cluster's, taken in while the
        // cluster stays within 1 cm (or its core's span); the box holds them all. The 4-mm core alone left the
        // bundled sample's cluster of 8 specks (about 10 x 9 mm there) a box on 3 of them, and its other specks
        // took mass boxes of their own; linking every speck at 6 mm instead chained clusters with the tissue's
        // speck-like answers (3 of 12 development clusters lost).
        const double core = 4.0 / rmm, link = kClusterLinkMm / rmm;
        std::vector<int> group(sp.size(), -1);
        int groups = 0;
        for (std::size_t i = 0; i < sp.size(); ++i) {
            if (group[i] >= 0) continue;
            std::vector<std::size_t> stack{i};
            group[i] = groups;
            while (!stack.empty()) {
                const std::size_t a = stack.back();
                stack.pop_back();
                for (std::size_t b = 0; b < sp.size(); ++b)
                    if (group[b] < 0 && std::hypot(sp[a].x - sp[b].x, sp[a].y - sp[b].y) <= core) {
                        group[b] = groups;
                        stack.push_back(b);
                    }
            }
            ++groups;
        }
        std::vector<int> members(static_cast<std::size_t>(groups), 0);
        for (int g : group) ++members[static_cast<std::size_t>(g)];
        for (int g = 0; g < groups; ++g) {
            std::vector<float> cs;
            std::vector<cv::Point2d> at;
            double sx = 0, sy = 0;
            for (std::size_t i = 0; i < sp.size(); ++i)
                if (group[i] == g) {
                    cs.push_back(static_cast<float>(sp[i].c));
                    at.emplace_back(sp[i].x, sp[i].y);
                    sx += sp[i].x, sy += sp[i].y;
                }
            if (cs.size() < 3) continue;
            const std::size_t own = at.size();
            const auto span = [&](const std::vector<cv::Point2d>& ps) {
                double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
                for (const cv::Point2d& q : ps) x0 = std::min(x0, q.x), y0 = std::min(y0, q.y), x1 = std::max(x1, q.x), y1 = std::max(y1, q.y);
                return std::max(x1 - x0, y1 - y0);
            };
            const double coreSpan = span(at);
            if (coreSpan > 15.0 / rmm) continue;
            const double extentMax = std::max(coreSpan, 10.0 / rmm);
            std::vector<char> taken(sp.size(), 0);
            for (bool grew = true; grew;) {
                grew = false;
                for (std::size_t i = 0; i < sp.size(); ++i) {
                    if (taken[i] || members[static_cast<std::size_t>(group[i])] >= 3) continue;
                    bool near = false;
                    for (const cv::Point2d& q : at) near = near || std::hypot(q.x - sp[i].x, q.y - sp[i].y) <= link;
                    if (!near) continue;
                    at.emplace_back(sp[i].x, sp[i].y);
                    if (span(at) > extentMax) {
                        at.pop_back();
                        continue;
                    }
                    taken[i] = 1;
                    grew = true;
                }
            }
            double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
            for (const cv::Point2d& q : at) x0 = std::min(x0, q.x), y0 = std::min(y0, q.y), x1 = std::max(x1, q.x), y1 = std::max(y1, q.y);
            Candidate c;
            c.cluster = true;
            c.contrast = median(cs);
            c.cx = sx / static_cast<double>(own);
            c.cy = sy / static_cast<double>(own);
            const int pad = std::max(2, static_cast<int>(std::lround(1.0 / rmm)));
            c.box = cv::Rect(static_cast<int>(std::floor(x0)) - pad, static_cast<int>(std::floor(y0)) - pad,
                             static_cast<int>(std::ceil(x1 - x0)) + 2 * pad + 1, static_cast<int>(std::ceil(y1 - y0)) + 2 * pad + 1) &
                    cv::Rect(0, 0, cols, rows);
            const int xi = std::clamp(static_cast<int>(std::lround(c.cx)), 0, cols - 1), yi = std::clamp(static_cast<int>(std::lround(c.cy)), 0, rows - 1);
            c.ring = ring.at<float>(yi, xi);
            c.specks = std::move(at);
            candidates.push_back(c);
        }
    }
    job.throwIfCancelled();

    // Rank; one box per finding.
    std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.contrast > b.contrast; });
    std::vector<Candidate> kept;
    const auto inside = [](const cv::Rect& r, double x, double y) { return x >= r.x && y >= r.y && x < r.x + r.width && y < r.y + r.height; };
    // A mass answers at its own scale at its centre, and often a little more strongly at a small scale on its
    // rim (where the ring of a small disc reaches out of the mass: the rim's step adds to the texture). The
    // small box then lies off the mass's centre, and the mass's own box, which holds it, was dropped as the
    // same finding. A lower candidate at a larger scale whose box holds a kept mass's centre (its own centre outside the kept box) is that
    // finding's extent when its contrast is as large within the contrast's own uncertainty (one unit: the
    // tissue's spread): the kept finding takes its centre and box, and keeps its rank and contrast.
    // Every candidate is taken in turn (not only until K are kept): a lower candidate may still give a kept
    // finding its own scale's box, and the first K boxes are then the same whatever K is.
    // A mass box of a speck's size (radius <= 1.5 mm) on one of a cluster's specks is that cluster: dropped when
    // the cluster ranks above it; when it ranks above the cluster, it takes the cluster's box (keeping its rank)
    // and any further such box of that cluster is dropped. One calcification cluster is one finding.
    const int speckHalf = static_cast<int>(std::lround(1.5 / rmm));
    const auto onSpeck = [&](const Candidate& mass, const Candidate& cl) {
        if (mass.cluster || !cl.cluster || mass.box.width > 2 * speckHalf + 1) return false;
        for (const cv::Point2d& p : cl.specks)
            if (inside(mass.box, p.x, p.y)) return true;
        return false;
    };
    // Two mass candidates are one finding when the disc that holds them both stands out as one: a large mass
    // answers more strongly at smaller scales on parts of it (its rim, a denser lobe) than at its own scale, whose
    // ring reaches far into the tissue, so it could take two or three boxes of a smaller scale side by side, none
    // holding another's centre (held-out: masses of radius 37-75 px marked twice). The disc is looked for from the
    // scale whose box holds both centres and is no smaller than either box, up to the one of both boxes together,
    // around their midpoint (within a quarter of its half-side, its box still holding both centres); the smallest
    // disc reaching the wanted contrast is taken (a box that fits the finding). When that disc stands out at least
    // as strongly as the weaker candidate (and 2, a candidate's least), the weaker is part of the better one's
    // finding and is dropped; when it stands out as strongly as the better one within the contrast's own
    // uncertainty (one unit, as for a larger candidate holding a kept centre above), the better one takes that
    // disc's box, keeping its rank and contrast. (Moving the box on the weaker test alone moved boxes off masses
    // onto the midpoint with a texture answer beside them.)
    struct Disc { double contrast = -1e9; int x = 0, y = 0, h = 0; double ring = 0.0; };
    const auto discHolding = [&](const Candidate& a, const Candidate& b, double enough) {
        Disc d;
        const double need = std::max({std::abs(a.cx - b.cx) / 2.0, std::abs(a.cy - b.cy) / 2.0, (std::max({a.box.width, a.box.height, b.box.width, b.box.height}) - 1) / 2.0});
        const cv::Rect both = a.box | b.box;
        const double top = std::max(both.width, both.height) / 2.0;
        if (scaleHalf.empty() || need > scaleHalf.back()) return d;
        const double mx = (a.cx + b.cx) / 2.0, my = (a.cy + b.cy) / 2.0;
        for (std::size_t i = 0; i < scaleHalf.size(); ++i) {
            const int h = scaleHalf[i];
            if (h < need || (i > 0 && scaleHalf[i - 1] >= top)) continue;
            const int reach = std::max(1, h / 4);
            const cv::Mat& cm = scaleContrast[i];
            for (int y = std::max(0, static_cast<int>(std::lround(my)) - reach); y <= std::min(rows - 1, static_cast<int>(std::lround(my)) + reach); ++y)
                for (int x = std::max(0, static_cast<int>(std::lround(mx)) - reach); x <= std::min(cols - 1, static_cast<int>(std::lround(mx)) + reach); ++x) {
                    const float v = cm.at<float>(y, x);
                    if (v <= d.contrast) continue;
                    if (std::max({std::abs(x - a.cx), std::abs(x - b.cx), std::abs(y - a.cy), std::abs(y - b.cy)}) > h) continue;
                    d = {v, x, y, h, scaleRing[i].at<float>(y, x)};
                }
            if (d.contrast >= enough) break; // the smallest such disc: the box fits the finding
        }
        return d;
    };
    // Kept finding ki takes a larger box (its own scale's, or a disc holding it and a neighbour); a lower kept mass
    // whose centre that box holds (or whose box holds the new centre) is the same finding: kept while the finding's
    // box was still the small one.
    const auto extendKept = [&](std::size_t ki, const cv::Rect& box, double cx, double cy, double ringMean) {
        Candidate& k = kept[ki];
        k.box = box;
        k.cx = cx;
        k.cy = cy;
        k.ring = ringMean;
        k.extended = true;
        for (std::size_t j = ki + 1; j < kept.size(); ++j)
            if (!kept[j].cluster && (inside(k.box, kept[j].cx, kept[j].cy) || inside(kept[j].box, k.cx, k.cy))) kept[j].merged = true;
    };
    for (const Candidate& c : candidates) {
        bool same = false, tookOver = false;
        for (std::size_t ki = 0; ki < kept.size(); ++ki) {
            Candidate& k = kept[ki];
            if (k.merged) continue;
            if (onSpeck(c, k)) {
                same = true;
                continue;
            }
            if (onSpeck(k, c)) {
                if (!tookOver) {
                    const double contrast = k.contrast;
                    k = c;
                    k.contrast = contrast;
                    tookOver = true;
                } else {
                    k.merged = true;
                }
                same = true;
                continue;
            }
            if (inside(k.box, c.cx, c.cy) || inside(c.box, k.cx, k.cy)) {
                if (!same && !c.cluster && !k.cluster && !k.extended && c.box.area() > k.box.area() && !inside(k.box, c.cx, c.cy) &&
                    c.contrast >= k.contrast - 1.0) {
                    extendKept(ki, c.box, c.cx, c.cy, c.ring);
                }
                same = true;
            } else if (!same && !c.cluster && !k.cluster) {
                const double enough = std::max(2.0, std::min(k.contrast, c.contrast));
                if (discHolding(k, c, enough).contrast >= enough) {
                    same = true;
                    const double strong = std::max(2.0, k.contrast - 1.0);
                    const Disc d = discHolding(k, c, strong);
                    if (d.contrast >= strong) {
                        extendKept(ki, cv::Rect(d.x - d.h, d.y - d.h, 2 * d.h + 1, 2 * d.h + 1) & cv::Rect(0, 0, cols, rows), d.x, d.y,
                                   d.ring);
                    }
                }
            }
        }
        if (!same) kept.push_back(c);
    }
    kept.erase(std::remove_if(kept.begin(), kept.end(), [](const Candidate& k) { return k.merged; }), kept.end());

    // Excluded and blank pixels stay out of a cluster's box, as out of any brightest region: the box of specks
    // (by the skin line, it can reach over the exclusion outside the breast) loses, one side at a time, the edge
    // row or column holding the most of them, never the cluster's centre; a cluster whose centre pixel is itself
    // left out has no box. (A mass box is a candidate's own square, taken only when >= 90 % of it is included.
    // Trimming those too cost the gate's films a lesion: a mass by the pectoral edge lost the side holding its
    // centre.)
    const auto trimToIncluded = [&](int& x, int& y, int& w, int& h, int cx, int cy) {
        const auto outOf = [&](int x0, int y0, int x1, int y1) { // excluded pixels in [x0, x1] x [y0, y1]
            int n = 0;
            for (int yy = y0; yy <= y1; ++yy)
                for (int xx = x0; xx <= x1; ++xx) n += inc.at<float>(yy, xx) <= 0 ? 1 : 0;
            return n;
        };
        if (inc.at<float>(cy, cx) <= 0) return false;
        while (w > 0 && h > 0 && outOf(x, y, x + w - 1, y + h - 1) > 0) {
            const int left = x < cx ? outOf(x, y, x, y + h - 1) : -1, right = x + w - 1 > cx ? outOf(x + w - 1, y, x + w - 1, y + h - 1) : -1;
            const int top = y < cy ? outOf(x, y, x + w - 1, y) : -1, bottom = y + h - 1 > cy ? outOf(x, y + h - 1, x + w - 1, y + h - 1) : -1;
            const int most = std::max({left, right, top, bottom});
            if (most < 0) return false; // only the centre's own row and column are left, and they hold excluded pixels
            if (most == left) ++x, --w;
            else if (most == right) --w;
            else if (most == top) ++y, --h;
            else --h;
        }
        return w > 0 && h > 0;
    };
    int masses = 0;
    for (const Candidate& c : kept) {
        if (static_cast<int>(result.regions.size()) >= params.k) break;
        BrightestRegion r;
        r.rank = static_cast<int>(result.regions.size()) + 1;
        r.x = c.box.x * factor;
        r.y = c.box.y * factor;
        r.width = std::min(W - r.x, c.box.width * factor);
        r.height = std::min(H - r.y, c.box.height * factor);
        const int centreX = std::clamp(static_cast<int>(std::lround(c.cx * factor)), r.x, r.x + r.width - 1);
        const int centreY = std::clamp(static_cast<int>(std::lround(c.cy * factor)), r.y, r.y + r.height - 1);
        if (c.cluster && !trimToIncluded(r.x, r.y, r.width, r.height, centreX, centreY)) continue;
        r.measured = true;
        r.snr = std::numeric_limits<double>::quiet_NaN();
        r.contrast = c.contrast;
        r.meanBackground = c.ring;
        double flux = 0.0, peak = -std::numeric_limits<double>::infinity(), wsum = 0.0, wx = 0.0, wy = 0.0;
        for (int y = r.y; y < r.y + r.height; ++y)
            for (int x = r.x; x < r.x + r.width; ++x) {
                if (inc.at<float>(y, x) <= 0) continue;
                const double a = full.at<float>(y, x) - c.ring;
                flux += a;
                if (a > peak) {
                    peak = a;
                    r.peakX = x;
                    r.peakY = y;
                }
                if (a > 0) {
                    wsum += a;
                    wx += a * x;
                    wy += a * y;
                }
            }
        r.flux = flux;
        r.sum = flux;
        r.peak = std::isfinite(peak) ? peak : 0.0;
        r.centroidX = wsum > 0 ? wx / wsum : r.x + (r.width - 1) / 2.0;
        r.centroidY = wsum > 0 ? wy / wsum : r.y + (r.height - 1) / 2.0;
        if (r.x == 0 || r.y == 0 || r.x + r.width == W || r.y + r.height == H) r.flags |= kRegionFlagEdge;
        if (!c.cluster) ++masses;
        result.regions.push_back(r);
    }
    std::ostringstream note;
    note << "ranked by contrast against the surrounding tissue (mammogram findings: masses 2-30 mm, calcification clusters); "
         << masses << " mass and " << (result.regions.size() - static_cast<std::size_t>(masses)) << " cluster box(es) of "
         << candidates.size() << " candidates; pixel " << std::setprecision(3) << mm << std::setprecision(6) << " mm" << (spacingSource.empty() ? " (assumed: the file gives no pixel size)" : " (" + spacingSource + ")");
    if (result.regions.empty()) note << "; no region: no finding stands out from the tissue";
    result.note = note.str();
    result.rounds = 1;
    return result;
}

} // namespace glint
