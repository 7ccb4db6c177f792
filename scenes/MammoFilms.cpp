// Generated screen-film mammograms with a truth list (MammoFilms.h). SYNTHETIC drawings, not patient images.
#include "scenes/MammoFilms.h"

#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"
#include "scenes/SyntheticNoise.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace glint {

namespace {

constexpr double kPi = 3.14159265358979323846;

double smoothstep(double e0, double e1, double x) {
    const double t = std::clamp((x - e0) / (e1 - e0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

bool boxFree(const cv::Mat& occupied, const cv::Rect& box) {
    const cv::Rect inside = box & cv::Rect(0, 0, occupied.cols, occupied.rows);
    return inside == box && cv::countNonZero(occupied(box)) == 0;
}

} // namespace

MammoFilm makeMammoFilm(int index, std::uint64_t seed, int side) {
    cv::RNG rng(seed * 1000003ULL + static_cast<std::uint64_t>(index) * 7919ULL + 1ULL);
    MammoFilm film;
    film.left = (index % 2) == 1;
    film.mlo = (index % 4) < 2;
    const double s = side / 1024.0; // everything below is drawn for 1024 px and scaled
    const int n = side;

    // Anatomy in the frame with the chest wall on the left (x = 0); mirrored for a left breast at the end.
    const double cy = n * rng.uniform(0.46, 0.56);
    const double reach = n * rng.uniform(0.48, 0.66);
    // MLO: the outline runs off the top edge (the axilla), wide there; CC: a half-ellipse inside the film.
    const double up = film.mlo ? n * rng.uniform(0.75, 0.95) : n * rng.uniform(0.36, 0.44);
    const double down = film.mlo ? n * rng.uniform(0.36, 0.44) : n * rng.uniform(0.36, 0.44);
    const double ph0 = rng.uniform(0.0, 2 * kPi), ph1 = rng.uniform(0.0, 2 * kPi);
    std::vector<cv::Point> outline;
    for (int i = 0; i <= 720; ++i) {
        const double phi = -kPi / 2 + kPi * i / 720.0;
        const double wob = 1.0 + 0.02 * std::sin(3 * phi + ph0) + 0.01 * std::sin(7 * phi + ph1);
        outline.emplace_back(cvRound(reach * std::cos(phi) * wob), cvRound(cy + (phi < 0 ? up : down) * std::sin(phi) * wob));
    }
    outline.emplace_back(-5, cvRound(cy + down));
    outline.emplace_back(-5, cvRound(cy - up));
    cv::Mat breast = cv::Mat::zeros(n, n, CV_8U);
    cv::fillPoly(breast, std::vector<std::vector<cv::Point>>{outline}, cv::Scalar(255));
    cv::Mat padded, dist;
    cv::copyMakeBorder(breast, padded, n / 4, 0, n / 4, 0, cv::BORDER_REPLICATE);
    cv::distanceTransform(padded, dist, cv::DIST_L2, 5);
    const cv::Mat depth = dist(cv::Rect(n / 4, n / 4, n, n)).clone();

    // Pectoral wedge (MLO): from (top, 0) down the chest wall to (0, bottom).
    cv::Mat muscle = cv::Mat::zeros(n, n, CV_32F);
    // The muscle's top lies inside the breast's top row (as on a film: the axilla runs off the top edge).
    const double topWidth = cv::countNonZero(breast.row(0));
    const double pecTop = std::min(n * rng.uniform(0.22, 0.34), 0.6 * topWidth), pecBottom = n * rng.uniform(0.45, 0.62);
    if (film.mlo)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const double t = y / pecBottom;
                const double edge = pecTop * (1.0 - t) + 0.04 * n * std::sin(kPi * std::clamp(t, 0.0, 1.0));
                muscle.at<float>(y, x) = static_cast<float>(1.0 - smoothstep(edge - 4.0 * s, edge + 4.0 * s, x));
            }

    // Tissue density 0..1: a glandular region behind the nipple, fatty periphery; texture.
    const cv::Mat texture = synthetic::bandPassNoise(rng, cv::Size(n, n), 3.0 * s, 24.0 * s);
    const cv::Mat fine = synthetic::bandPassNoise(rng, cv::Size(n, n), 1.0, 3.0 * s);
    const double denseShare = rng.uniform(0.3, 1.1); // fatty to dense breasts
    const double gx0 = reach * rng.uniform(0.35, 0.55), gy0 = cy + n * rng.uniform(-0.05, 0.05);
    cv::Mat tissue(n, n, CV_32F);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double gx = (x - gx0) / (0.28 * n), gy = (y - gy0) / (0.30 * n);
            const double base = denseShare * std::exp(-0.5 * (gx * gx + gy * gy)) * smoothstep(0.03 * n, 0.16 * n, depth.at<float>(y, x));
            tissue.at<float>(y, x) = static_cast<float>(std::clamp(base + 0.22 * texture.at<float>(y, x) * (0.35 + base), 0.0, 1.2));
        }

    // Lesions: about two films in three hold one (a mass or a cluster), placed inside the breast off the muscle.
    const double u = rng.uniform(0.0, 1.0);
    cv::Mat calcs = cv::Mat::zeros(n, n, CV_32F);
    cv::Mat lesionMap = cv::Mat::zeros(n, n, CV_32F);
    if (u < 0.66) {
        MammoLesion l;
        l.kind = u < 0.42 ? MammoLesionKind::Mass : MammoLesionKind::Calcifications;
        const double radius = l.kind == MammoLesionKind::Mass ? std::exp(rng.uniform(std::log(5.0), std::log(75.0))) * s : 25.0 * s;
        for (int attempt = 0; attempt < 400; ++attempt) {
            const double x = rng.uniform(0.0, reach), y = rng.uniform(cy - up, cy + down);
            const int xi = cvRound(x), yi = cvRound(y);
            if (xi < 0 || yi < 0 || xi >= n || yi >= n) continue;
            if (depth.at<float>(yi, xi) < radius + 25.0 * s || muscle.at<float>(yi, xi) > 0.01f) continue;
            if (film.mlo && x < pecTop * (1.0 - y / pecBottom) + 0.06 * n + radius) continue;
            l.x = x;
            l.y = y;
            break;
        }
        if (l.x > 0.0) {
            if (l.kind == MammoLesionKind::Mass) {
                l.radius = radius;
                const double a = rng.uniform(0.0, 2 * kPi), b = rng.uniform(0.0, 2 * kPi);
                // Low contrast: 0.10-0.30 of the fat/dense difference, a soft irregular edge.
                const double amp = rng.uniform(0.10, 0.30);
                l.strength = amp;
                for (int y = std::max(0, cvRound(l.y - 2 * radius)); y < std::min(n, cvRound(l.y + 2 * radius)); ++y)
                    for (int x = std::max(0, cvRound(l.x - 2 * radius)); x < std::min(n, cvRound(l.x + 2 * radius)); ++x) {
                        const double dx = x - l.x, dy = y - l.y, r = std::hypot(dx, dy), th = std::atan2(dy, dx);
                        const double edge = radius * (1.0 + 0.12 * std::sin(3 * th + a) + 0.06 * std::sin(5 * th + b));
                        lesionMap.at<float>(y, x) = static_cast<float>(amp * (1.0 - smoothstep(0.6 * edge, edge + 2.0, r)) *
                                                                       (0.8 + 0.2 * std::cos(std::min(1.0, r / edge) * kPi / 2)));
                    }
            } else {
                const int count = 5 + rng.uniform(0, 11); // 5..15 specks
                double reachMax = 0.0;
                for (int i = 0; i < count; ++i) {
                    const double rr = 22.0 * s * std::sqrt(rng.uniform(0.0, 1.0)), th = rng.uniform(0.0, 2 * kPi);
                    const cv::Point2d at(l.x + rr * std::cos(th), l.y + rr * std::sin(th));
                    reachMax = std::max(reachMax, rr);
                    const double r = rng.uniform(0.6, 2.0) * s;
                    cv::circle(calcs, cv::Point(cvRound(at.x * 4), cvRound(at.y * 4)), std::max(1, cvRound(r * 4)),
                               cv::Scalar(rng.uniform(0.6, 1.0)), cv::FILLED, cv::LINE_AA, 2);
                }
                l.radius = reachMax + 3.0 * s;
                l.strength = count;
            }
            film.lesions.push_back(l);
        }
    }
    cv::GaussianBlur(calcs, calcs, cv::Size(), 0.6);

    // Film density in 8 bits: background ~ 12-30, fat ~ 80-110, dense ~ 170-200, muscle ~ 170-215.
    const double bgLevel = rng.uniform(12.0, 30.0), fat = rng.uniform(80.0, 110.0), dense = rng.uniform(165.0, 195.0);
    const double muscleLevel = rng.uniform(170.0, 215.0), calcLevel = rng.uniform(45.0, 80.0);
    cv::Mat img(n, n, CV_32F);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double d = depth.at<float>(y, x);
            double v = bgLevel;
            if (d > 0.0) {
                const double thick = 1.0 - std::exp(-d / (35.0 * s));
                const double t = tissue.at<float>(y, x) + lesionMap.at<float>(y, x);
                const double m = muscle.at<float>(y, x);
                const double tv = fat + (dense - fat) * t;
                v = bgLevel + thick * ((1.0 - m) * (tv - bgLevel) + m * (muscleLevel - bgLevel + 8.0 * texture.at<float>(y, x)));
                v += calcLevel * calcs.at<float>(y, x) + 3.0 * fine.at<float>(y, x);
            }
            img.at<float>(y, x) = static_cast<float>(v);
        }
    cv::Mat noise(n, n, CV_32F);
    rng.fill(noise, cv::RNG::NORMAL, 0.0, 1.6);
    img += noise;

    if (film.left) { // mirror: chest wall on the right
        cv::flip(img, img, 1);
        cv::flip(breast, breast, 1);
        for (MammoLesion& l : film.lesions) l.x = n - 1.0 - l.x;
    }

    // Film artefacts, outside the breast: a label (any brightness, text strokes), a lead marker, a scanner border
    // and the top edge's 148×1 strip.
    cv::Mat occupied;
    cv::dilate(breast, occupied, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(cvRound(30 * s) | 1, cvRound(30 * s) | 1)));
    const std::string view = std::string(film.left ? "L" : "R") + (film.mlo ? " MLO" : " CC");
    const auto place = [&](int w, int h) -> cv::Rect {
        for (int attempt = 0; attempt < 300; ++attempt) {
            const cv::Rect box(rng.uniform(cvRound(20 * s), n - w - cvRound(20 * s)), rng.uniform(cvRound(20 * s), n - h - cvRound(20 * s)), w, h);
            if (boxFree(occupied, box)) {
                occupied(box).setTo(255);
                return box;
            }
        }
        return {};
    };
    {
        const cv::Rect label = place(cvRound(rng.uniform(150.0, 240.0) * s), cvRound(rng.uniform(60.0, 110.0) * s));
        if (label.area() > 0) {
            const int style = index % 3; // bright paper, grey paper (as bright as tissue), dark with bright text
            const double paper = style == 0 ? rng.uniform(215.0, 250.0) : style == 1 ? rng.uniform(110.0, 150.0) : bgLevel + 6.0;
            const double ink = style == 2 ? rng.uniform(200.0, 250.0) : paper - rng.uniform(60.0, 90.0);
            img(label).setTo(cv::Scalar(paper));
            cv::putText(img, "MAMMO " + std::to_string(100 + index), {label.x + cvRound(8 * s), label.y + label.height / 2 - cvRound(4 * s)},
                        cv::FONT_HERSHEY_SIMPLEX, 0.7 * s, cv::Scalar(ink), std::max(1, cvRound(2 * s)), cv::LINE_AA);
            cv::putText(img, view, {label.x + cvRound(8 * s), label.y + label.height - cvRound(12 * s)}, cv::FONT_HERSHEY_SIMPLEX,
                        0.6 * s, cv::Scalar(ink), std::max(1, cvRound(2 * s)), cv::LINE_AA);
            film.artefacts.push_back({"label", label.x, label.y, label.width, label.height});
        }
        const cv::Rect marker = place(cvRound(130 * s), cvRound(50 * s));
        if (marker.area() > 0) {
            cv::putText(img, view, {marker.x + cvRound(4 * s), marker.y + marker.height - cvRound(10 * s)}, cv::FONT_HERSHEY_DUPLEX,
                        1.1 * s, cv::Scalar(rng.uniform(225.0, 255.0)), std::max(2, cvRound(3 * s)), cv::LINE_AA);
            film.artefacts.push_back({"marker", marker.x, marker.y, marker.width, marker.height});
        }
    }
    // A scanner border on the side away from the chest wall (bright or dark), on some films.
    if (index % 3 != 2) {
        const int w = cvRound(rng.uniform(6.0, 18.0) * s);
        const int x = film.left ? 0 : n - w;
        img(cv::Rect(x, 0, w, n)).setTo(cv::Scalar(index % 3 == 0 ? rng.uniform(200.0, 240.0) : 2.0));
        film.artefacts.push_back({"border", x, 0, w, n});
    }
    // The top edge's strip, 148×1, bright (a film edge the scanner caught).
    {
        const int w = std::min(n, cvRound(148 * s));
        const int x = rng.uniform(n / 4, n - w - 1);
        img(cv::Rect(x, 0, w, 1)).setTo(cv::Scalar(rng.uniform(150.0, 230.0)));
        film.artefacts.push_back({"edge strip", x, 0, w, 1});
    }

    cv::Mat u8;
    img.convertTo(u8, CV_8U); // rounds and saturates
    std::vector<std::uint8_t> px(u8.datastart, u8.dataend);
    film.image = Image::fromSamples<std::uint8_t>(n, n, std::move(px));
    film.name = "film" + std::string(index < 10 ? "0" : "") + std::to_string(index) + "-" + (film.left ? "L" : "R") + "-" +
                (film.mlo ? "MLO" : "CC");
    return film;
}

std::vector<MammoFilm> makeMammoFilmSet(int count, std::uint64_t seed, int side) {
    std::vector<MammoFilm> films;
    for (int i = 0; i < count; ++i) films.push_back(makeMammoFilm(i, seed, side));
    return films;
}

void writeMammoFilmPgm(const MammoFilm& film, const std::string& path) {
    const int w = film.image.width(), h = film.image.height();
    std::string bytes = "P5\n" + std::to_string(w) + " " + std::to_string(h) + "\n255\n";
    film.image.visit([&](const auto* samples) {
        for (std::size_t i = 0; i < film.image.pixelCount(); ++i)
            bytes.push_back(static_cast<char>(std::clamp(static_cast<int>(samples[i]), 0, 255)));
    });
    writeFileAtomically(path, bytes);
}

} // namespace glint
