// Generates resources/samples/synthetic-mammogram.png: a SYNTHETIC, deterministic 1024×1024 16-bit
// mammogram-like image (no patient data exists in it), so that Glint can ship a mammogram sample.
//
//   glint-make-mammogram OUT.png
//
// Model (a right breast, mediolateral-oblique view, chest wall on the left, 0.15 mm per pixel, so the
// field is 154 mm wide): a breast outline whose compressed thickness falls off over the last ~15 mm
// towards a faint skin line; fibroglandular density that rises from the fatty periphery to a dense
// central region, textured with band-pass noise and radial strands converging on the nipple; a pectoral
// muscle wedge in the upper corner; a film label and a lead marker outside the breast; one irregular
// spiculated mass of ~15 mm (100 px across) and a cluster of 8 microcalcifications of 0.2–1 mm
// (1.3–6.7 px). Quantum-like noise and a slight blur for the detector finish it. cv::RNG is used
// because, unlike <random>'s distributions, it gives the same numbers with every standard library.
#include "core/io/Codecs.h"
#include "core/util/AtomicFile.h"
#include "scenes/SyntheticNoise.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr int kSize = 1024;
constexpr double kPixelMm = 0.15;
constexpr double kPi = 3.14159265358979323846;

double smoothstep(double edge0, double edge1, double x) {
    const double t = std::clamp((x - edge0) / (edge1 - edge0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

// Zero-mean noise of the image's size with structure between sigmaFine and sigmaCoarse pixels.
cv::Mat bandPassNoise(cv::RNG& rng, double sigmaFine, double sigmaCoarse) {
    return glint::synthetic::bandPassNoise(rng, cv::Size(kSize, kSize), sigmaFine, sigmaCoarse);
}

// Noise stretched along rays from the nipple: strands of ducts and Cooper's ligaments.
cv::Mat radialStrands(cv::RNG& rng, cv::Point2d nipple) {
    const int radii = 1100, angles = 1440;
    cv::Mat polar(angles, radii, CV_32F);
    rng.fill(polar, cv::RNG::NORMAL, 0.0, 1.0);
    cv::GaussianBlur(polar, polar, cv::Size(0, 0), 18.0, 1.2); // long along r (x), thin across θ (y)
    cv::Mat mapX(kSize, kSize, CV_32F), mapY(kSize, kSize, CV_32F);
    for (int y = 0; y < kSize; ++y)
        for (int x = 0; x < kSize; ++x) {
            const double dx = x - nipple.x, dy = y - nipple.y;
            const double theta = std::atan2(dy, dx) + kPi; // 0..2π
            mapX.at<float>(y, x) = static_cast<float>(std::hypot(dx, dy));
            mapY.at<float>(y, x) = static_cast<float>(theta / (2.0 * kPi) * (angles - 1));
        }
    cv::Mat strands;
    cv::remap(polar, strands, mapX, mapY, cv::INTER_LINEAR, cv::BORDER_REFLECT);
    cv::Scalar mean, stddev;
    cv::meanStdDev(strands, mean, stddev);
    return (strands - mean[0]) / stddev[0];
}

struct Anatomy {
    cv::Mat breast;    // CV_8U mask
    cv::Mat depth;     // CV_32F distance inside the outline, pixels
    cv::Mat muscle;    // CV_32F 0..1, soft-edged pectoral wedge
    cv::Point2d nipple;
};

Anatomy anatomy(cv::RNG& rng) {
    Anatomy a;
    // Outline: a half-ellipse on the chest wall (x = 0), longer upwards towards the axilla, wobbled a little.
    const cv::Point2d centre(0.0, 470.0);
    const double reach = 700.0, up = 560.0, down = 480.0;
    const std::array<double, 3> phase = {rng.uniform(0.0, 2 * kPi), rng.uniform(0.0, 2 * kPi), rng.uniform(0.0, 2 * kPi)};
    std::vector<cv::Point> outline;
    for (int i = 0; i <= 720; ++i) {
        const double phi = -kPi / 2 + kPi * i / 720.0;
        const double wobble = 1.0 + 0.018 * std::sin(3 * phi + phase[0]) + 0.012 * std::sin(7 * phi + phase[1]) +
                              0.006 * std::sin(13 * phi + phase[2]);
        const double x = reach * std::cos(phi) * wobble;
        const double y = centre.y + (phi < 0 ? up : down) * std::sin(phi) * wobble;
        outline.emplace_back(cvRound(x), cvRound(y));
    }
    a.nipple = {reach * 1.0, centre.y};
    outline.emplace_back(-5, cvRound(centre.y + down));
    outline.emplace_back(-5, cvRound(centre.y - up));
    a.breast = cv::Mat::zeros(kSize, kSize, CV_8U);
    cv::fillPoly(a.breast, std::vector<std::vector<cv::Point>>{outline}, cv::Scalar(255), cv::LINE_AA);
    cv::threshold(a.breast, a.breast, 127, 255, cv::THRESH_BINARY);
    // Distance to the outline, but not to the image border the breast runs into (chest wall, top edge).
    cv::Mat padded;
    cv::copyMakeBorder(a.breast, padded, 200, 0, 200, 0, cv::BORDER_REPLICATE);
    cv::Mat distance;
    cv::distanceTransform(padded, distance, cv::DIST_L2, 5);
    a.depth = distance(cv::Rect(200, 200, kSize, kSize)).clone();

    // Pectoral muscle: upper-left wedge, its edge slightly convex, from (300, 0) down to (0, 640).
    a.muscle = cv::Mat::zeros(kSize, kSize, CV_32F);
    for (int y = 0; y < kSize; ++y)
        for (int x = 0; x < kSize; ++x) {
            const double t = y / 640.0;
            const double edge = 300.0 * (1.0 - t) + 40.0 * std::sin(kPi * std::clamp(t, 0.0, 1.0));
            a.muscle.at<float>(y, x) = static_cast<float>(1.0 - smoothstep(edge - 6.0, edge + 6.0, x));
        }
    return a;
}

// Muscle fibres: noise stretched along the wedge's edge (which runs down and to the left).
cv::Mat muscleFibres(cv::RNG& rng) {
    cv::Mat white(kSize * 2, kSize * 2, CV_32F);
    rng.fill(white, cv::RNG::NORMAL, 0.0, 1.0);
    cv::GaussianBlur(white, white, cv::Size(0, 0), 1.5, 16.0); // long in y
    const double angle = std::atan2(300.0, 640.0) * 180.0 / kPi; // the edge's tilt from vertical
    const cv::Mat turn = cv::getRotationMatrix2D(cv::Point2f(kSize, kSize), -angle, 1.0);
    cv::Mat turned;
    cv::warpAffine(white, turned, turn, white.size(), cv::INTER_LINEAR, cv::BORDER_REFLECT);
    cv::Mat fibres = turned(cv::Rect(kSize / 2, kSize / 2, kSize, kSize)).clone();
    cv::Scalar mean, stddev;
    cv::meanStdDev(fibres, mean, stddev);
    return (fibres - mean[0]) / stddev[0];
}

// Fibroglandular density 0..1: dense centre behind the nipple, fatty periphery and retromammary fat.
cv::Mat density(const Anatomy& a, const cv::Mat& texture, const cv::Mat& strands) {
    cv::Mat d(kSize, kSize, CV_32F);
    for (int y = 0; y < kSize; ++y)
        for (int x = 0; x < kSize; ++x) {
            const double gx = (x - 330.0) / 260.0, gy = (y - 430.0) / 300.0;
            const double glandular = std::exp(-0.5 * (gx * gx + gy * gy));
            const double subcutaneousFat = smoothstep(50.0, 190.0, a.depth.at<float>(y, x));
            const double retromammaryFat = 1.0 - 0.8 * a.muscle.at<float>(y, x);
            const double base = glandular * subcutaneousFat * retromammaryFat;
            const double tex = 0.6 * texture.at<float>(y, x) + 0.25 * strands.at<float>(y, x);
            // Texture switches tissue on and off: dense islands in fat where the base is low, fat lobules in
            // dense tissue where it is high.
            d.at<float>(y, x) = static_cast<float>(std::clamp(1.15 * base + 0.30 * tex * (0.3 + base) - 0.05, 0.0, 1.0));
        }
    return d;
}

void addMass(cv::Mat& tissue, cv::RNG& rng, cv::Point2d centre) {
    const double radius = 50.0; // 15 mm across at 0.15 mm per pixel
    std::array<double, 4> phase{};
    for (double& p : phase) p = rng.uniform(0.0, 2 * kPi);
    cv::Mat mass = cv::Mat::zeros(kSize, kSize, CV_32F);
    for (int y = 0; y < kSize; ++y)
        for (int x = 0; x < kSize; ++x) {
            const double dx = x - centre.x, dy = y - centre.y;
            const double r = std::hypot(dx, dy);
            if (r > 2.5 * radius) continue;
            const double th = std::atan2(dy, dx);
            const double edge = radius * (1.0 + 0.10 * std::sin(3 * th + phase[0]) + 0.07 * std::sin(5 * th + phase[1]) +
                                          0.05 * std::sin(9 * th + phase[2]));
            mass.at<float>(y, x) = static_cast<float>(0.55 * (1.0 - smoothstep(edge - 8.0, edge + 4.0, r)) *
                                                      (0.85 + 0.15 * std::cos(r / edge * kPi / 2)));
        }
    // Spicules: thin strands radiating from the margin.
    for (int i = 0; i < 11; ++i) {
        const double th = 2 * kPi * i / 11.0 + rng.uniform(-0.2, 0.2);
        const double length = rng.uniform(25.0, 65.0);
        const cv::Point2d from = centre + cv::Point2d(std::cos(th), std::sin(th)) * (radius * 0.8);
        const cv::Point2d to = centre + cv::Point2d(std::cos(th), std::sin(th)) * (radius + length);
        cv::line(mass, from, to, cv::Scalar(0.30), 2, cv::LINE_AA);
    }
    cv::GaussianBlur(mass, mass, cv::Size(), 1.5);
    tissue += mass;
}

void addCalcifications(cv::Mat& calcs, cv::RNG& rng, cv::Point2d centre) {
    for (int i = 0; i < 8; ++i) {
        const cv::Point2d at = centre + cv::Point2d(rng.uniform(-30.0, 30.0), rng.uniform(-22.0, 22.0));
        const double diameterMm = rng.uniform(0.2, 1.0);
        const double r = std::max(0.65, diameterMm / kPixelMm / 2.0);
        const cv::Size axes(std::max(1, cvRound(r)), std::max(1, cvRound(r * rng.uniform(0.6, 1.0))));
        cv::ellipse(calcs, at, axes, rng.uniform(0.0, 180.0), 0, 360, cv::Scalar(1.0), cv::FILLED, cv::LINE_AA);
    }
    cv::GaussianBlur(calcs, calcs, cv::Size(), 0.7);
}

void drawLabel(cv::Mat& image) {
    // A paper film label in the lower right, outside the breast, and a lead side marker top right.
    const cv::Rect label(742, 872, 262, 132);
    image(label).setTo(cv::Scalar(50000.0));
    const cv::Scalar ink(9000.0);
    cv::rectangle(image, label, ink, 2);
    const auto text = [&](const char* s, int y, double scale, int thick) {
        cv::putText(image, s, cv::Point(label.x + 12, label.y + y), cv::FONT_HERSHEY_SIMPLEX, scale, ink, thick, cv::LINE_AA);
    };
    text("SYNTHETIC IMAGE", 32, 0.75, 2);
    text("NOT A PATIENT", 62, 0.75, 2);
    text("Glint sample  R MLO", 92, 0.55, 1);
    text("0.15 mm/pixel", 118, 0.55, 1);
    cv::putText(image, "R MLO", cv::Point(862, 92), cv::FONT_HERSHEY_DUPLEX, 1.4, cv::Scalar(56000.0), 3, cv::LINE_AA);
}

cv::Mat makeMammogram() {
    cv::RNG rng(0x6C696E74); // "lint": fixed seed, same image every run
    const Anatomy a = anatomy(rng);
    const cv::Mat texture = bandPassNoise(rng, 3.5, 22.0);
    const cv::Mat strands = radialStrands(rng, a.nipple);
    cv::Mat tissue = density(a, texture, strands);
    addMass(tissue, rng, {520.0, 330.0});
    cv::Mat calcs = cv::Mat::zeros(kSize, kSize, CV_32F);
    addCalcifications(calcs, rng, {585.0, 655.0});
    const cv::Mat fine = bandPassNoise(rng, 1.0, 4.0);
    const cv::Mat fibres = muscleFibres(rng);

    // Signal, in detector units: background ~ 400, fat ~ 9000, dense tissue ~ 33000, muscle 26000-31000,
    // calcifications up to ~ 50000.
    cv::Mat image(kSize, kSize, CV_32F);
    for (int y = 0; y < kSize; ++y)
        for (int x = 0; x < kSize; ++x) {
            const double depth = a.depth.at<float>(y, x);
            if (depth <= 0.0) {
                image.at<float>(y, x) = 400.0f;
                continue;
            }
            const double thickness = 1.0 - std::exp(-depth / 55.0); // the compressed breast thins at its edge
            const double skin = 3500.0 * std::exp(-0.5 * std::pow((depth - 2.0) / 1.3, 2.0));
            const double tissueValue = 9000.0 + 24000.0 * std::min(1.7, static_cast<double>(tissue.at<float>(y, x)));
            const double m = a.muscle.at<float>(y, x);
            // The muscle is thickest in the corner; its fibres show faintly.
            const double muscle = 26000.0 + 5000.0 * std::exp(-std::hypot(x, y) / 350.0) + 1400.0 * fibres.at<float>(y, x);
            double v = 400.0 + thickness * ((1.0 - m) * tissueValue + m * muscle) + skin;
            v += 1200.0 * fine.at<float>(y, x) * thickness;
            v += 18000.0 * calcs.at<float>(y, x);
            image.at<float>(y, x) = static_cast<float>(v);
        }
    // Quantum noise grows with the square root of the signal; then the detector's blur.
    glint::synthetic::addQuantumNoise(image, rng);
    drawLabel(image);
    cv::GaussianBlur(image, image, cv::Size(), 0.6);
    cv::Mat out;
    image.convertTo(out, CV_16U); // saturates at 0 and 65535
    return out;
}

std::uint32_t crc32(const std::string& bytes) {
    std::uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char c : bytes) {
        crc ^= c;
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xFFFFFFFFu;
}

// v as 4 bytes, most significant first (PNG's byte order).
std::string be32(std::uint32_t v) {
    return std::string{char(v >> 24), char((v >> 16) & 0xFF), char((v >> 8) & 0xFF), char(v & 0xFF)};
}

std::string pngChunk(const std::string& type, const std::string& data) {
    return be32(static_cast<std::uint32_t>(data.size())) + type + data + be32(crc32(type + data));
}

// OpenCV writes no text chunks nor a physical pixel size: insert pHYs (0.15 mm: 6667 pixels per metre, read by
// the mammogram ranking) and tEXt chunks after IHDR (signature 8 bytes + IHDR 25 bytes).
std::string withTextChunks(const std::vector<unsigned char>& png) {
    const std::string bytes(png.begin(), png.end());
    const std::uint32_t perMetre = 6667; // 1000 mm / 0.15 mm
    std::string text = pngChunk("pHYs", be32(perMetre) + be32(perMetre) + std::string(1, '\x01'));
    const auto add = [&](const std::string& key, const std::string& value) { text += pngChunk("tEXt", key + '\0' + value); };
    add("Title", "Synthetic mammogram (SYNTHETIC - not a patient image)");
    add("Description",
        "Synthetic mammogram-like image generated by Glint's tools/samples/make_synthetic_mammogram.cpp: right breast, "
        "MLO view, one ~15 mm spiculated mass and a cluster of 8 microcalcifications. No patient data.");
    add("Pixel size", "0.15 mm");
    add("Software", "Glint glint-make-mammogram");
    return bytes.substr(0, 33) + text + bytes.substr(33);
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: glint-make-mammogram OUT.png\n";
        return 2;
    }
    try {
        const glint::Codecs* codecs = glint::codecs();
        if (!codecs) throw std::runtime_error(glint::codecsError());
        const std::vector<std::uint8_t> png = codecs->encodePng(makeMammogram(), 9);
        if (png.empty()) throw std::runtime_error("PNG encoding failed");
        glint::writeFileAtomically(argv[1], withTextChunks(png));
    } catch (const std::exception& e) {
        std::cerr << "glint-make-mammogram: " << e.what() << "\n";
        return 3;
    }
    return 0;
}
