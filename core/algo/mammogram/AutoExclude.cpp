// Mammogram auto-exclusion: outside of the breast, labels and markers, pectoral muscle (AutoExclude.h).
#include "core/algo/mammogram/AutoExclude.h"

#include "core/algo/regions/WorkArray.h"
#include "core/io/Image.h"
#include "core/util/EnumNames.h"
#include "core/util/Errors.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>

namespace glint {

namespace {

// The analysis runs on an image whose longer side is at most this (area-averaged).
constexpr int kAnalysisSide = 512;

struct Reduced {
    cv::Mat small; // CV_32F, blanks and non-finite samples at the lowest finite value
    double sx = 1.0, sy = 1.0; // full pixels per reduced pixel
    int factor = 1;
};

Reduced reduce(const Image& image) {
    const int w = image.width(), h = image.height();
    cv::Mat full(h, w, CV_32F);
    image.visit([&](const auto* samples) {
        const std::size_t count = image.pixelCount();
        double lo = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < count; ++i) {
            const double v = static_cast<double>(samples[i]);
            if (std::isfinite(v) && !image.isBlank(i)) lo = std::min(lo, v);
        }
        if (!std::isfinite(lo)) lo = 0.0;
        float* out = full.ptr<float>(0); // continuous: allocated just above
        for (std::size_t i = 0; i < count; ++i) {
            const double v = static_cast<double>(samples[i]);
            out[i] = static_cast<float>(!std::isfinite(v) || image.isBlank(i) ? lo : v);
        }
    });
    Reduced r;
    r.factor = std::max(1, (std::max(w, h) + kAnalysisSide - 1) / kAnalysisSide);
    if (r.factor == 1) {
        r.small = full;
        return r;
    }
    const int ws = (w + r.factor - 1) / r.factor, hs = (h + r.factor - 1) / r.factor;
    cv::resize(full, r.small, cv::Size(ws, hs), 0, 0, cv::INTER_AREA);
    r.sx = static_cast<double>(w) / ws;
    r.sy = static_cast<double>(h) / hs;
    return r;
}

// Otsu's threshold over a 1024-bin histogram of the values.
double otsu(const cv::Mat& m, double lo, double hi) {
    constexpr int bins = 1024;
    std::vector<double> hist(bins, 0.0);
    const double scale = bins / (hi - lo);
    for (int y = 0; y < m.rows; ++y) {
        const float* row = m.ptr<float>(y);
        for (int x = 0; x < m.cols; ++x)
            hist[static_cast<std::size_t>(std::clamp(static_cast<int>((row[x] - lo) * scale), 0, bins - 1))] += 1.0;
    }
    double total = 0.0, sumAll = 0.0;
    for (int i = 0; i < bins; ++i) {
        total += hist[i];
        sumAll += i * hist[i];
    }
    double w0 = 0.0, sum0 = 0.0, best = -1.0;
    int bestBin = 0;
    for (int i = 0; i < bins - 1; ++i) {
        w0 += hist[i];
        sum0 += i * hist[i];
        const double w1 = total - w0;
        if (w0 <= 0.0 || w1 <= 0.0) continue;
        const double m0 = sum0 / w0, m1 = (sumAll - sum0) / w1;
        const double between = w0 * w1 * (m0 - m1) * (m0 - m1);
        if (between > best) {
            best = between;
            bestBin = i;
        }
    }
    return lo + (bestBin + 1) / scale;
}

double quantile(std::vector<float> v, double q) {
    if (v.empty()) return 0.0;
    const std::size_t k = std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size() - 1)));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

std::vector<float> valuesWhere(const cv::Mat& m, const cv::Mat& mask) {
    std::vector<float> v;
    for (int y = 0; y < m.rows; ++y)
        for (int x = 0; x < m.cols; ++x)
            if (mask.at<std::uint8_t>(y, x)) v.push_back(m.at<float>(y, x));
    return v;
}

// Reduced pixel centre -> full-image coordinate; the first and last reduced rows/columns map past the
// image edge so that polygons along the border cover the border pixels.
double toFull(int i, int n, double s, int fullSize) {
    if (i <= 0) return -1.0;
    if (i >= n - 1) return fullSize;
    return (i + 0.5) * s - 0.5;
}

// The outer contours of a 0/255 mask's components as polygons; a component with holes is split in two
// along its longer side first (a polygon here is one ring).
void polygonsOf(const cv::Mat& mask, const Reduced& r, int fullW, int fullH, int depth,
                std::vector<PixelPolygon>& out) {
    std::vector<std::vector<cv::Point>> contours;
    std::vector<cv::Vec4i> hierarchy;
    cv::findContours(mask.clone(), contours, hierarchy, cv::RETR_CCOMP, cv::CHAIN_APPROX_SIMPLE);
    for (std::size_t i = 0; i < contours.size(); ++i) {
        if (hierarchy[i][3] >= 0) continue; // a hole: handled with its outer contour
        const bool holes = hierarchy[i][2] >= 0;
        if (holes && depth < 4) {
            cv::Mat one = cv::Mat::zeros(mask.size(), CV_8U);
            cv::drawContours(one, contours, static_cast<int>(i), cv::Scalar(255), cv::FILLED, cv::LINE_8, hierarchy, 1);
            one &= mask;
            const cv::Rect box = cv::boundingRect(contours[i]);
            cv::Mat a = one.clone(), b = one.clone();
            if (box.width >= box.height) {
                const int mid = box.x + box.width / 2;
                a.colRange(mid + 1, a.cols).setTo(0);
                b.colRange(0, mid).setTo(0);
            } else {
                const int mid = box.y + box.height / 2;
                a.rowRange(mid + 1, a.rows).setTo(0);
                b.rowRange(0, mid).setTo(0);
            }
            polygonsOf(a, r, fullW, fullH, depth + 1, out);
            polygonsOf(b, r, fullW, fullH, depth + 1, out);
            continue;
        }
        std::vector<cv::Point> simple;
        cv::approxPolyDP(contours[i], simple, 0.75, true);
        if (simple.size() < 3) simple = contours[i];
        if (simple.size() < 3) {
            // A thin sliver: its bounding box as a polygon.
            const cv::Rect box = cv::boundingRect(contours[i]);
            simple = {box.tl(), {box.x + box.width - 1, box.y}, box.br() - cv::Point(1, 1), {box.x, box.y + box.height - 1}};
            if (box.width == 1 || box.height == 1) {
                simple = {{box.x - 1, box.y - 1}, {box.x + box.width, box.y - 1}, {box.x + box.width, box.y + box.height},
                          {box.x - 1, box.y + box.height}};
            }
        }
        PixelPolygon polygon;
        for (const cv::Point& p : simple)
            polygon.points.emplace_back(toFull(p.x, mask.cols, r.sx, fullW), toFull(p.y, mask.rows, r.sy, fullH));
        out.push_back(std::move(polygon));
    }
}

// Rectangles (full pixels, padded by pad reduced pixels, clipped) around the components of a mask, after a
// dilation of `merge` reduced pixels that joins the letters of a word.
std::vector<PixelRect> boxesOf(const cv::Mat& mask, int merge, int pad, const Reduced& r, int fullW, int fullH,
                               double maxAreaFraction) {
    std::vector<PixelRect> boxes;
    if (cv::countNonZero(mask) == 0) return boxes;
    cv::Mat joined;
    cv::dilate(mask, joined, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * merge + 1, 2 * merge + 1)));
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(joined, labels, stats, centroids, 8, CV_32S);
    for (int i = 1; i < n; ++i) {
        // The box of the original pixels of this merged component.
        int x0 = mask.cols, y0 = mask.rows, x1 = -1, y1 = -1;
        const int bx = stats.at<int>(i, cv::CC_STAT_LEFT), by = stats.at<int>(i, cv::CC_STAT_TOP);
        const int bw = stats.at<int>(i, cv::CC_STAT_WIDTH), bh = stats.at<int>(i, cv::CC_STAT_HEIGHT);
        for (int y = by; y < by + bh; ++y)
            for (int x = bx; x < bx + bw; ++x)
                if (labels.at<int>(y, x) == i && mask.at<std::uint8_t>(y, x)) {
                    x0 = std::min(x0, x);
                    y0 = std::min(y0, y);
                    x1 = std::max(x1, x);
                    y1 = std::max(y1, y);
                }
        if (x1 < 0) continue;
        if (static_cast<double>(x1 - x0 + 1) * (y1 - y0 + 1) > maxAreaFraction * mask.cols * mask.rows) continue;
        const int fx0 = std::max(0, static_cast<int>(std::floor((x0 - pad) * r.sx)));
        const int fy0 = std::max(0, static_cast<int>(std::floor((y0 - pad) * r.sy)));
        const int fx1 = std::min(fullW, static_cast<int>(std::ceil((x1 + 1 + pad) * r.sx)));
        const int fy1 = std::min(fullH, static_cast<int>(std::ceil((y1 + 1 + pad) * r.sy)));
        if (fx1 > fx0 && fy1 > fy0) boxes.push_back({fx0, fy0, fx1 - fx0, fy1 - fy0});
    }
    return boxes;
}

bool viewIsCranioCaudal(const Image& image) {
    for (const HeaderCard& card : image.meta.header) {
        if (card.key.rfind("(0018,5101)", 0) != 0) continue;
        std::string v = card.value;
        for (char& c : v) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return v.find("CC") != std::string::npos && v.find("MLO") == std::string::npos;
    }
    return false;
}

// The pectoral muscle of an MLO view in a reduced image whose chest wall is on the left (the caller
// mirrors). Returns, per reduced row, the edge column (0 = no muscle in that row); empty when none found.
std::vector<int> pectoralEdge(const cv::Mat& small, const cv::Mat& breast, double spread, std::string& why) {
    const int rows = small.rows, cols = small.cols;
    cv::Mat blurred;
    cv::GaussianBlur(small, blurred, cv::Size(0, 0), 1.5);
    const int w = std::max(3, cols / 40);
    // Per row: the columns where an edge may lie: the right window inside the breast's run from the chest wall.
    std::vector<int> xmax(static_cast<std::size_t>(rows), 0);
    for (int y = 0; y < rows; ++y) {
        int run = 0;
        while (run < cols && breast.at<std::uint8_t>(y, run)) ++run;
        xmax[static_cast<std::size_t>(y)] = std::max(0, run - w);
    }
    int firstRow = 0;
    while (firstRow < rows && xmax[static_cast<std::size_t>(firstRow)] < 1) ++firstRow;
    if (firstRow >= rows || firstRow > rows / 4) {
        why = "no breast along the chest wall at the top";
        return {};
    }
    // The muscle's lower end: along the chest wall the bright wedge gives way to tissue. The row with the
    // largest drop of the chest-wall band's mean (h rows above against h rows below).
    const int h = std::max(4, rows / 25);
    std::vector<double> wall(static_cast<std::size_t>(rows), std::numeric_limits<double>::quiet_NaN());
    for (int y = 0; y < rows; ++y) {
        if (!breast.at<std::uint8_t>(y, 0)) continue;
        double sum = 0.0;
        for (int x = 0; x < w; ++x) sum += blurred.at<float>(y, x);
        wall[static_cast<std::size_t>(y)] = sum / w;
    }
    // The drop at each row; the muscle's end is the first local maximum that reaches 0.6 of the largest
    // (tissue lower down may drop further, but the muscle ends first).
    std::vector<double> drops(static_cast<std::size_t>(rows), 0.0);
    double largest = 0.0;
    const int yFrom = firstRow + std::max(h, rows / 10), yTo = static_cast<int>(0.85 * rows) - h;
    for (int y = yFrom; y <= yTo; ++y) {
        double above = 0.0, below = 0.0;
        bool valid = true;
        for (int i = 0; i < h && valid; ++i) {
            above += wall[static_cast<std::size_t>(y - 1 - i)];
            below += wall[static_cast<std::size_t>(y + i)];
            valid = std::isfinite(above) && std::isfinite(below);
        }
        if (!valid) continue;
        drops[static_cast<std::size_t>(y)] = (above - below) / h / spread;
        largest = std::max(largest, drops[static_cast<std::size_t>(y)]);
    }
    int yEnd = -1;
    double step = 0.0;
    for (int y = yFrom; y <= yTo && yEnd < 0; ++y) {
        const double d = drops[static_cast<std::size_t>(y)];
        if (d < 0.6 * largest) continue;
        // Climb to the local maximum.
        int at = y;
        while (at + 1 <= yTo && drops[static_cast<std::size_t>(at) + 1] >= drops[static_cast<std::size_t>(at)]) ++at;
        yEnd = at;
        step = drops[static_cast<std::size_t>(at)];
    }
    if (yEnd < 0 || step < 0.15) {
        std::ostringstream s;
        s << "no bright wedge ending along the chest wall (step " << step << ")";
        why = s.str();
        return {};
    }
    // The edge from the top down to yEnd: the path of maximal left/right contrast that moves at most
    // `move` columns towards the chest wall (and at most one away) per row and ends at the chest wall.
    const int move = 2;
    const int n = yEnd - firstRow;
    std::vector<std::vector<double>> score(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(cols), -1e300));
    std::vector<std::vector<int>> from(static_cast<std::size_t>(n), std::vector<int>(static_cast<std::size_t>(cols), 0));
    std::vector<double> prefix(static_cast<std::size_t>(cols) + 1);
    for (int i = 0; i < n; ++i) {
        const int y = firstRow + i;
        const float* row = blurred.ptr<float>(y);
        for (int x = 0; x < cols; ++x) prefix[static_cast<std::size_t>(x) + 1] = prefix[static_cast<std::size_t>(x)] + row[x];
        const int xm = std::max(1, xmax[static_cast<std::size_t>(y)]);
        auto& s = score[static_cast<std::size_t>(i)];
        auto& f = from[static_cast<std::size_t>(i)];
        for (int x = 1; x <= xm; ++x) {
            const int l0 = std::max(0, x - w), r1 = std::min(cols, x + w);
            const double left = (prefix[static_cast<std::size_t>(x)] - prefix[static_cast<std::size_t>(l0)]) / (x - l0);
            const double right = (prefix[static_cast<std::size_t>(r1)] - prefix[static_cast<std::size_t>(x)]) / (r1 - x);
            const double gain = (left - right) / spread;
            if (i == 0) {
                s[static_cast<std::size_t>(x)] = gain;
                f[static_cast<std::size_t>(x)] = x;
                continue;
            }
            const auto& prev = score[static_cast<std::size_t>(i) - 1];
            double best = -1e300;
            int arg = x;
            for (int p = std::max(1, x - 1); p <= std::min(cols - 1, x + move); ++p)
                if (prev[static_cast<std::size_t>(p)] > best) {
                    best = prev[static_cast<std::size_t>(p)];
                    arg = p;
                }
            if (best <= -1e299) continue;
            s[static_cast<std::size_t>(x)] = best + gain;
            f[static_cast<std::size_t>(x)] = arg;
        }
    }
    const auto& last = score[static_cast<std::size_t>(n) - 1];
    const int endMax = std::max(1, w / 2);
    int x = 1;
    for (int c = 1; c <= endMax; ++c)
        if (last[static_cast<std::size_t>(c)] > last[static_cast<std::size_t>(x)]) x = c;
    if (last[static_cast<std::size_t>(x)] <= -1e299) {
        why = "no pectoral edge reaches the chest wall";
        return {};
    }
    std::vector<int> edge(static_cast<std::size_t>(rows), 0);
    std::vector<double> gains(static_cast<std::size_t>(n), 0.0);
    for (int i = n - 1; i >= 0; --i) {
        edge[static_cast<std::size_t>(firstRow + i)] = x;
        const int p = from[static_cast<std::size_t>(i)][static_cast<std::size_t>(x)];
        gains[static_cast<std::size_t>(i)] = score[static_cast<std::size_t>(i)][static_cast<std::size_t>(x)] -
                                             (i > 0 ? score[static_cast<std::size_t>(i) - 1][static_cast<std::size_t>(p)] : 0.0);
        x = p;
    }
    // The edge is clear at the top (the wedge meets fat there); lower down, where the muscle can be as
    // bright as the tissue beside it, the path may follow texture: it may not run more than a small
    // allowance beyond the straight line from its top to its lower end (the muscle's edge is near straight).
    // At the top the wedge meets the (fatty) axillary tissue: it must be clearly brighter than what lies
    // beside it there (by 0.4 of the breast's p10-p90 spread, median over the top h rows), or this is no
    // muscle. On the test scenes muscles give 0.52-0.62, breasts without one 0.16-0.27.
    std::vector<float> top;
    for (int i = 0; i < std::min(n, h); ++i) top.push_back(static_cast<float>(gains[static_cast<std::size_t>(i)]));
    const double g0 = quantile(top, 0.5);
    if (g0 < 0.4) {
        std::ostringstream s;
        s << "no clear pectoral edge at the top (contrast " << g0 << ")";
        why = s.str();
        return {};
    }
    // The line through the lower end that clears every path point of the top third.
    const int yl = firstRow + n - 1;
    const double xl = edge[static_cast<std::size_t>(yl)];
    double slope = 0.0; // columns per row, upwards
    for (int y = firstRow; y < firstRow + std::max(1, n / 3); ++y)
        slope = std::max(slope, (edge[static_cast<std::size_t>(y)] - xl) / std::max(1, yl - y));
    const double allowance = 0.02 * cols;
    for (int y = firstRow; y <= yl; ++y) {
        auto& e = edge[static_cast<std::size_t>(y)];
        e = std::max(1, std::min(e, static_cast<int>(std::lround(xl + slope * (yl - y) + allowance))));
    }
    long long inN = 0;
    for (int y = 0; y < rows; ++y) inN += edge[static_cast<std::size_t>(y)];
    const double breastArea = cv::countNonZero(breast);
    if (inN < 0.01 * breastArea || inN > 0.5 * breastArea) {
        why = "pectoral candidate of implausible size";
        return {};
    }
    return edge;
}

} // namespace

constexpr EnumName<AutoExclusionKind> kKindNames[] = {
    {AutoExclusionKind::OutsideBreast, "outside-breast"}, {AutoExclusionKind::Label, "label"}, {AutoExclusionKind::Pectoral, "pectoral"},
    {AutoExclusionKind::FilmEdge, "film-edge"}};

const char* autoExclusionKindName(AutoExclusionKind kind) { return enumName(kKindNames, kind); }

MammogramExclusions mammogramAutoExclusions(const Image& image) {
    MammogramExclusions result;
    if (image.empty()) return result;
    const int fullW = image.width(), fullH = image.height();
    const Reduced r = reduce(image);
    result.downsample = r.factor;
    const cv::Mat& small = r.small;
    double lo = 0.0, hi = 0.0;
    cv::minMaxLoc(small, &lo, &hi);
    if (!(hi > lo)) {
        result.note = "constant image: no breast";
        return result;
    }

    // (1) Breast / background: Otsu, lowered towards the background level so that the thin breast edge
    // stays in the breast, but never into the background's noise.
    const double t0 = otsu(small, lo, hi);
    cv::Mat below = small < t0;
    std::vector<float> bg = valuesWhere(small, below);
    const double bgMedian = quantile(bg, 0.5);
    for (float& v : bg) v = std::abs(v - static_cast<float>(bgMedian));
    const double bgSigma = 1.4826 * quantile(bg, 0.5);
    const double t = std::min(t0, bgMedian + std::max(0.1 * (t0 - bgMedian), 5.0 * bgSigma));
    result.backgroundThreshold = t;
    cv::Mat fg = small > t;
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(fg, labels, stats, centroids, 8, CV_32S);
    int breastLabel = -1, breastArea = 0;
    for (int i = 1; i < n; ++i)
        if (stats.at<int>(i, cv::CC_STAT_AREA) > breastArea) {
            breastArea = stats.at<int>(i, cv::CC_STAT_AREA);
            breastLabel = i;
        }
    if (breastLabel < 0 || breastArea < 0.01 * small.rows * small.cols) {
        result.note = "no breast-sized foreground";
        return result;
    }
    result.foundBreast = true;
    cv::Mat breast = labels == breastLabel;
    // Fill the breast's holes: background components that do not touch the border.
    {
        cv::Mat outsideLabels;
        cv::Mat notBreast = breast == 0;
        const int m = cv::connectedComponents(notBreast, outsideLabels, 4, CV_32S);
        std::vector<char> touches(static_cast<std::size_t>(m), 0);
        for (int y = 0; y < small.rows; ++y)
            for (int x = 0; x < small.cols; ++x)
                if (y == 0 || x == 0 || y == small.rows - 1 || x == small.cols - 1)
                    touches[static_cast<std::size_t>(outsideLabels.at<int>(y, x))] = 1;
        for (int y = 0; y < small.rows; ++y)
            for (int x = 0; x < small.cols; ++x) {
                const int l = outsideLabels.at<int>(y, x);
                if (l > 0 && !touches[static_cast<std::size_t>(l)]) breast.at<std::uint8_t>(y, x) = 255;
            }
    }
    cv::Mat outside = breast == 0;
    cv::Mat outsideMargin;
    cv::dilate(outside, outsideMargin, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
    std::vector<PixelPolygon> outsidePolygons;
    polygonsOf(outsideMargin, r, fullW, fullH, 0, outsidePolygons);
    for (PixelPolygon& p : outsidePolygons) {
        AutoExclusion e;
        e.kind = AutoExclusionKind::OutsideBreast;
        e.polygon = std::move(p);
        result.shapes.push_back(std::move(e));
    }

    // (2) Labels and markers: the other foreground components, and very bright blobs at the breast's border.
    const int side = std::max(small.cols, small.rows);
    const int merge = std::max(1, static_cast<int>(std::lround(0.01 * side)));
    cv::Mat others = fg & outside;
    // Specks of a few reduced pixels are noise, not labels (they are excluded with the outside anyway).
    {
        cv::Mat l2, s2, c2;
        const int m = cv::connectedComponentsWithStats(others, l2, s2, c2, 8, CV_32S);
        for (int i = 1; i < m; ++i)
            if (s2.at<int>(i, cv::CC_STAT_AREA) < 3) others.setTo(0, l2 == i);
    }
    std::vector<PixelRect> labelBoxes = boxesOf(others, merge, 1, r, fullW, fullH, 0.25);
    const std::vector<float> tissue = valuesWhere(small, breast);
    const double tissueHigh = quantile(tissue, 0.99);
    const double spread = std::max(quantile(tissue, 0.9) - quantile(tissue, 0.1), 1e-12 * std::max(1.0, std::abs(hi)));
    double breastMax = lo;
    cv::minMaxLoc(small, nullptr, &breastMax, nullptr, nullptr, breast);
    if (breastMax - tissueHigh > 0.1 * (tissueHigh - bgMedian)) {
        const double tb = tissueHigh + 0.5 * (breastMax - tissueHigh);
        cv::Mat padded;
        cv::copyMakeBorder(breast, padded, 1, 1, 1, 1, cv::BORDER_REPLICATE);
        cv::Mat dist;
        cv::distanceTransform(padded, dist, cv::DIST_L2, 3);
        dist = dist(cv::Rect(1, 1, small.cols, small.rows)).clone();
        const float zone = static_cast<float>(0.03 * side);
        cv::Mat bright = (small >= tb) & breast;
        cv::Mat bl;
        const int m = cv::connectedComponents(bright, bl, 8, CV_32S);
        std::vector<char> nearBorder(static_cast<std::size_t>(m), 0);
        for (int y = 0; y < small.rows; ++y)
            for (int x = 0; x < small.cols; ++x) {
                const int l = bl.at<int>(y, x);
                if (l > 0 && dist.at<float>(y, x) <= zone) nearBorder[static_cast<std::size_t>(l)] = 1;
            }
        cv::Mat atBorder = cv::Mat::zeros(small.size(), CV_8U);
        for (int y = 0; y < small.rows; ++y)
            for (int x = 0; x < small.cols; ++x)
                if (nearBorder[static_cast<std::size_t>(bl.at<int>(y, x))] && bl.at<int>(y, x) > 0) atBorder.at<std::uint8_t>(y, x) = 255;
        for (const PixelRect& box : boxesOf(atBorder, merge, 1, r, fullW, fullH, 0.02)) labelBoxes.push_back(box);
    }
    for (const PixelRect& box : labelBoxes) {
        AutoExclusion e;
        e.kind = AutoExclusionKind::Label;
        e.isRect = true;
        e.rect = box;
        result.shapes.push_back(std::move(e));
    }

    // (3) The pectoral muscle, on the chest-wall side (where the breast meets the image edge).
    const int leftCount = cv::countNonZero(breast.col(0)), rightCount = cv::countNonZero(breast.col(small.cols - 1));
    result.chestWallLeft = leftCount >= rightCount;
    std::string why;
    if (viewIsCranioCaudal(image)) {
        why = "CC view: no pectoral muscle sought";
    } else {
        cv::Mat s = small, b = breast;
        if (!result.chestWallLeft) {
            cv::flip(small, s, 1);
            cv::flip(breast, b, 1);
        }
        const std::vector<int> edge = pectoralEdge(s, b, spread, why);
        if (!edge.empty()) {
            result.foundPectoral = true;
            const double margin = 0.01 * fullW;
            std::vector<cv::Point2f> pts;
            int first = -1, lastRow = -1;
            for (int y = 0; y < static_cast<int>(edge.size()); ++y) {
                if (edge[static_cast<std::size_t>(y)] <= 0) continue;
                if (first < 0) first = y;
                lastRow = y;
            }
            const auto edgeX = [&](int y) { return edge[static_cast<std::size_t>(y)] * r.sx - 0.5 + margin; };
            pts.emplace_back(-1.0f, -1.0f);
            pts.emplace_back(static_cast<float>(edgeX(first)), first == 0 ? -1.0f : static_cast<float>(first * r.sy - 0.5));
            for (int y = first; y <= lastRow; ++y)
                if (edge[static_cast<std::size_t>(y)] > 0)
                    pts.emplace_back(static_cast<float>(edgeX(y)), static_cast<float>((y + 0.5) * r.sy - 0.5));
            pts.emplace_back(static_cast<float>(edgeX(lastRow)), static_cast<float>((lastRow + 1) * r.sy - 0.5 + margin));
            pts.emplace_back(-1.0f, static_cast<float>((lastRow + 1) * r.sy - 0.5 + margin));
            std::vector<cv::Point2f> simple;
            cv::approxPolyDP(pts, simple, 1.0, true);
            AutoExclusion e;
            e.kind = AutoExclusionKind::Pectoral;
            for (const cv::Point2f& p : simple) {
                const double x = result.chestWallLeft ? p.x : fullW - 1.0 - p.x;
                e.polygon.points.emplace_back(x, p.y);
            }
            result.shapes.push_back(std::move(e));
            why = "pectoral muscle found";
        }
    }

    // (4) The film's edges.
    {
        const int band = std::max(2, static_cast<int>(std::lround(0.005 * std::max(fullW, fullH))));
        for (const PixelRect& edge : {PixelRect{0, 0, fullW, std::min(band, fullH)}, PixelRect{0, std::max(0, fullH - band), fullW, std::min(band, fullH)},
                                      PixelRect{0, 0, std::min(band, fullW), fullH}, PixelRect{std::max(0, fullW - band), 0, std::min(band, fullW), fullH}}) {
            AutoExclusion e;
            e.kind = AutoExclusionKind::FilmEdge;
            e.isRect = true;
            e.rect = edge;
            result.shapes.push_back(std::move(e));
        }
    }

    std::ostringstream note;
    note << "breast on the " << (result.chestWallLeft ? "left" : "right") << " (threshold " << t << "), "
         << labelBoxes.size() << " label/marker box(es), " << why;
    result.note = note.str();
    return result;
}

void appendAutoExclusions(const MammogramExclusions& exclusions, BrightestParams& params) {
    for (const AutoExclusion& e : exclusions.shapes) {
        if (e.isRect) params.excludeRects.push_back(e.rect);
        else params.excludePolygons.push_back(e.polygon);
    }
}

std::vector<unsigned char> autoExclusionMask(const MammogramExclusions& exclusions, int width, int height) {
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), 0);
    for (const AutoExclusion& e : exclusions.shapes) {
        if (e.isRect) {
            const int x0 = std::max(0, e.rect.x), y0 = std::max(0, e.rect.y);
            const int x1 = std::min(width, e.rect.x + e.rect.width), y1 = std::min(height, e.rect.y + e.rect.height);
            for (int y = y0; y < y1; ++y)
                for (int x = x0; x < x1; ++x) mask[static_cast<std::size_t>(y) * width + x] = 1;
        } else {
            rasterizePolygon(e.polygon, width, height, mask);
        }
    }
    return mask;
}

} // namespace glint
