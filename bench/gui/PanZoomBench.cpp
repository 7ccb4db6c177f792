// glint-gui-bench: frames per second of the window's canvas while panning and zooming over a 4096² image with
// 10 000 brightest-region boxes and their (thinned) labels drawn (issue 34: smooth pan/zoom at ≥ 30 frames/s).
// A bench of its own, since glint-cli has no Qt: it paints the real ImageCanvas (image from its mipmaps, then the
// overlay layers) offscreen, one frame per view step, and reports rows like `glint-cli bench` does (median frame
// time; frames/s in the note and in extra). Not a test: nothing here asserts a time.
//
//   glint-gui-bench [--regions N] [--size S] [--frames F] [--out report.json|.csv|.md|.html]
#include "bench/Bench.h"

#include "core/display/Display.h"
#include "core/io/Image.h"
#include "core/util/Errors.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/display/DisplayPipeline.h"
#include "ui/modules/BrightestLayers.h"
#include "ui/overlay/LayerStack.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <cmath>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <thread>

using namespace glint;
using namespace glint::ui;

namespace {

struct Options {
    int regions = 10000;
    int size = 4096;
    int frames = 120;
    std::string out;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto next = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError(a + " needs a value");
            return argv[++i];
        };
        const auto number = [&](int lo, int hi) {
            const std::string v = next();
            char* end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || n < lo || n > hi)
                throw UsageError(a + " takes a number from " + std::to_string(lo) + " to " + std::to_string(hi) + " (got '" + v + "')");
            return static_cast<int>(n);
        };
        if (a == "--regions") o.regions = number(0, 1000000);
        else if (a == "--size") o.size = number(256, 16384);
        else if (a == "--frames") o.frames = number(2, 100000);
        else if (a == "--out") o.out = next();
        else throw UsageError("unknown option '" + a + "' (glint-gui-bench [--regions N] [--size S] [--frames F] [--out FILE])");
    }
    return o;
}

// A star field: a smooth background, noise and a few thousand Gaussian stars (a realistic mipmapped frame).
std::shared_ptr<const Image> starField(int side) {
    Image image(side, side, SampleType::Float32);
    float* p = image.mutableSamples<float>();
    std::mt19937 rng(7);
    std::normal_distribution<float> noise(0.0f, 3.0f);
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x) p[static_cast<std::size_t>(y) * side + x] = 100.0f + 0.002f * static_cast<float>(x + y) + noise(rng);
    std::uniform_int_distribution<int> at(4, side - 5);
    std::uniform_real_distribution<float> flux(50.0f, 5000.0f);
    for (int s = 0; s < side; ++s) {
        const int cx = at(rng), cy = at(rng);
        const float f = flux(rng);
        for (int dy = -4; dy <= 4; ++dy)
            for (int dx = -4; dx <= 4; ++dx)
                p[static_cast<std::size_t>(cy + dy) * side + cx + dx] += f * std::exp(-0.5f * static_cast<float>(dx * dx + dy * dy) / 2.0f);
    }
    image.updateIntegerValued();
    return std::make_shared<const Image>(std::move(image));
}

QVector<RegionMark> randomRegions(int count, int side) {
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> at(0, side - 40), edge(4, 40);
    QVector<RegionMark> marks;
    marks.reserve(count);
    for (int rank = 1; rank <= count; ++rank)
        marks.append({rank, QRect(at(rng), at(rng), edge(rng), edge(rng)),
                      QStringLiteral("#%1  %2").arg(rank).arg(QString::number(5.0e6 / rank, 'g', 6))});
    return marks;
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    try {
        const Options options = parse(argc, argv);
        std::cerr << "rendering a " << options.size << "² frame...\n";
        DisplaySettings settings;
        settings.scale = DisplayScale::Asinh;
        const auto frame = std::make_shared<const DisplayFrame>(DisplayPipeline::render(starField(options.size), settings));

        ImageCanvas canvas;
        canvas.resize(1100, 700); // the canvas of a 1280×800 window
        LayerStack stack;
        canvas.setLayers(&stack);
        canvas.setImageGeometry(QSize(options.size, options.size), false);
        canvas.setFrame(frame);
        auto* layer = new BrightestRegionLayer(QStringLiteral("Brightest regions"), QColor(255, 176, 0));
        layer->setRegions(randomRegions(options.regions, options.size));
        layer->setSelected(-1);
        stack.add(layer);
        QImage target(canvas.size(), QImage::Format_ARGB32_Premultiplied);

        // One frame per step: a pan of 40 px, or a wheel notch in or out, cycling between the fitted view and
        // about 8x more (where the labels are re-placed at every zoom).
        const auto drive = [&](int step) {
            const int phase = step % 64;
            const QPointF centre(canvas.width() / 2.0, canvas.height() / 2.0);
            if (step % 2) canvas.panBy(QPointF(phase < 32 ? 40.0 : -40.0, phase < 32 ? 25.0 : -25.0));
            else canvas.zoomAt(centre, phase < 32 ? 1.15 : 1.0 / 1.15);
            canvas.render(&target);
        };
        std::vector<BenchRow> rows;
        const unsigned threads = std::thread::hardware_concurrency();
        const auto row = [&](const std::string& name, const std::function<void()>& setUp) {
            setUp();
            canvas.fitToWindow();
            int step = 0;
            BenchRow r = measure("gui-panzoom", name, Backend::Cpu, options.frames, [&](JobControl&) { drive(step++); });
            r.device = "CPU (Qt raster, offscreen), " + std::to_string(threads) + " cores";
            r.params = {{"regions", layer->itemCount()}, {"image", options.size}, {"frames", options.frames}, {"canvas", "1100x700"}};
            const double fps = r.totalMs > 0.0 ? 1000.0 / r.totalMs : 0.0;
            r.extra = {{"frames_per_second", fps}};
            r.note = "median frame " + std::to_string(r.totalMs).substr(0, 6) + " ms = " + std::to_string(fps).substr(0, 5) +
                     " frames/s while panning and zooming";
            r.verified = true; // the canvas painted every frame of the sequence (no reference to compare with)
            std::cerr << name << ": " << r.note << "\n";
            rows.push_back(std::move(r));
        };
        const std::string n = std::to_string(options.regions);
        row(n + " regions, boxes and labels (thinned)", [&] { layer->setLabelMode(OverlayLayer::LabelMode::BoxesAndLabels); });
        row(n + " regions, boxes only", [&] { layer->setLabelMode(OverlayLayer::LabelMode::BoxesOnly); });
        row("image only", [&] { layer->setVisible(false); });
        std::cout << benchTextTable(rows);
        if (!options.out.empty()) writeBenchReport(rows, options.out);
        return 0;
    } catch (const UsageError& e) {
        std::cerr << "glint-gui-bench: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "glint-gui-bench: " << e.what() << "\n";
        return 3;
    }
}
