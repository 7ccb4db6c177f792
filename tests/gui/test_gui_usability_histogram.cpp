// The histogram as users meet it (issue 17), driven through the real window on the offscreen platform at
// 1280 × 800: its log/asinh axes, its zoom to the limits and bins of whole levels (no comb).
#include "tests/gui/test_gui_usability_support.h"
#include "tests/gui/GuiTestSupport.h"
#include "tests/gui/test_gui_brightest_support.h"
#include "tests/support/TestSupport.h"

#include "core/display/Histogram.h"
#include "ui/display/HistogramWidget.h"
#include "ui/docks/DisplayDock.h"

#include <QCheckBox>
#include <QComboBox>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::brightest;
using namespace glint::test::usability;

class TestGuiUsabilityHistogram : public QObject {
    Q_OBJECT

private slots:
    // (9) The histogram: on a FITS frame the limits' handles stand well inside the plot with the zoom, or
    // with a log or asinh axis; integer data give bins of whole levels, so no comb.
    void histogramAxesAndZoom() {
        MainWindow window({false, false});
        QVERIFY(showWithSample(window, QStringLiteral("ngc1316o.fit")));
        DisplayDock* dock = window.displayDock();
        HistogramWidget* histogram = dock->histogram();
        const auto handleShare = [&](double value) {
            const QRectF r = histogram->plotRect();
            return (histogram->valueToX(value) - r.left()) / r.width();
        };
        const auto waitHistogram = [&] { QTRY_VERIFY(!dock->histogramPending()); };
        // Zoomed to the limits (the default): both handles well inside.
        QVERIFY(dock->zoomedToLimits());
        waitHistogram();
        glint::DisplayLimits l = window.context().displayLimits();
        QVERIFY2(handleShare(l.low) > 0.05 && handleShare(l.high) < 0.95 && handleShare(l.high) - handleShare(l.low) > 0.4,
                 qPrintable(QStringLiteral("%1 %2").arg(handleShare(l.low)).arg(handleShare(l.high))));
        QVERIFY(histogram->histogram().below > 0 || histogram->histogram().above > 0); // data beyond: arrows
        // A sky frame (background 1000 ± 15 and bright stars): over the whole range, linear, the handles
        // crowd the left (the issue); log and asinh spread them.
        {
            std::mt19937 rng(11);
            std::normal_distribution<double> sky(1000.0, 15.0);
            std::uniform_real_distribution<double> where(0.0, 512.0);
            std::vector<float> frame(512 * 512);
            for (float& v : frame) v = static_cast<float>(sky(rng));
            for (int s = 0; s < 30; ++s) {
                const double cx = where(rng), cy = where(rng);
                for (int y = std::max(0, static_cast<int>(cy) - 8); y < std::min(512, static_cast<int>(cy) + 9); ++y)
                    for (int x = std::max(0, static_cast<int>(cx) - 8); x < std::min(512, static_cast<int>(cx) + 9); ++x)
                        frame[static_cast<std::size_t>(y) * 512 + x] +=
                            static_cast<float>(50000.0 * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / 8.0));
            }
            Image image = Image::fromSamples<float>(512, 512, std::move(frame));
            image.meta.displayYUp = true;
            image.meta.format = "FITS";
            window.context().setImage(std::move(image), QStringLiteral("sky.fits"));
        }
        GLINT_WAIT_FOR_IMAGE(window);
        l = window.context().displayLimits();
        dock->zoomToLimitsBox()->setChecked(false);
        waitHistogram();
        const double linearLow = handleShare(l.low);
        for (auto axis : {glint::HistogramAxis::Log, glint::HistogramAxis::Asinh}) {
            dock->histogramAxisBox()->setCurrentIndex(dock->histogramAxisBox()->findData(static_cast<int>(axis)));
            waitHistogram();
            QCOMPARE(histogram->histogram().axis, axis);
            // The faint end widened: the low handle (on the sky) moves right, both stay inside the plot.
            QVERIFY2(handleShare(l.low) > 2.0 * linearLow && (axis != glint::HistogramAxis::Log || handleShare(l.low) > 0.01) && handleShare(l.high) < 0.99 &&
                         handleShare(l.high) - handleShare(l.low) > 0.2,
                     qPrintable(QStringLiteral("%1: %2 … %3 (linear low %4)").arg(glint::histogramAxisName(axis)).arg(handleShare(l.low))
                                    .arg(handleShare(l.high)).arg(linearLow)));
            // Positions and values map back and forth.
            const double v = l.low + 0.3 * (l.high - l.low);
            QVERIFY(std::abs(histogram->xToValue(histogram->valueToX(v)) - v) <= 1e-6 * std::max(1.0, std::abs(v)));
        }
        // Dragging the high handle on the asinh axis sets that value.
        {
            const QRectF r = histogram->plotRect();
            const QPoint grip(static_cast<int>(std::round(histogram->valueToX(l.high))), static_cast<int>(r.center().y()));
            const QPoint to(static_cast<int>(r.left() + 0.8 * r.width()), grip.y());
            QTest::mousePress(histogram, Qt::LeftButton, Qt::NoModifier, grip);
            QTest::mouseMove(histogram, to);
            QTest::mouseRelease(histogram, Qt::LeftButton, Qt::NoModifier, to);
            QVERIFY(std::abs(window.context().displayLimits().high - histogram->xToValue(to.x())) <= 1e-6 * std::max(1.0, std::abs(histogram->xToValue(to.x()))));
        }
        saveShot(window, QStringLiteral("usability-histogram"));

        // No comb: 12-bit values stored ×16 (every 16th level) and 8-bit data; bins of whole levels.
        std::mt19937 rng(4);
        std::normal_distribution<double> bulk(2000.0, 600.0);
        std::vector<std::uint16_t> shifted(200 * 200);
        for (auto& v : shifted) v = static_cast<std::uint16_t>(16 * std::clamp(static_cast<int>(bulk(rng)), 0, 4095));
        Image twelve = Image::fromSamples<std::uint16_t>(200, 200, std::move(shifted));
        const std::optional<LevelGrid> grid = integerLevelGrid(twelve);
        QVERIFY(grid && grid->step == 16.0);
        for (auto axis : {glint::HistogramAxis::Linear, glint::HistogramAxis::Asinh}) {
            const Histogram h = computeAxisHistogram(twelve, 0.0, 65535.0, 512, axis, grid);
            // Every edge halfway between two levels, every bin at least one level wide.
            for (std::size_t i = 0; i < h.counts.size(); ++i) {
                const double lo = h.binLow(i), hi = h.binHigh(i);
                QVERIFY(std::abs(std::fmod(lo - grid->origin + 8.0, 16.0)) < 1e-6);
                QVERIFY(hi - lo >= 16.0 - 1e-9);
            }
            // Around the bulk (where every level is used) the densities run smoothly: no comb.
            double worst = 1.0;
            for (std::size_t i = 1; i + 1 < h.counts.size(); ++i) {
                const double centre = (h.binLow(i) + h.binHigh(i)) / 2.0;
                if (std::abs(centre - 32000.0) > 8000.0 || h.counts[i] < 200) continue;
                const double a = h.axisDensity(i), b = h.axisDensity(i + 1);
                if (a > 0 && b > 0) worst = std::max(worst, std::max(a, b) / std::min(a, b));
            }
            QVERIFY2(worst < 1.6, qPrintable(QStringLiteral("%1: neighbouring bins differ %2×").arg(glint::histogramAxisName(axis)).arg(worst)));
        }
        window.openFile(test::samplePath(QStringLiteral("aero.png")));
        GLINT_WAIT_FOR_IMAGE(window);
        dock->histogramAxisBox()->setCurrentIndex(0);
        waitHistogram();
        const Histogram& h8 = histogram->histogram();
        QVERIFY(h8.levelStep >= 1.0);
        for (std::size_t i = 0; i < h8.counts.size(); ++i) QVERIFY(h8.binHigh(i) - h8.binLow(i) >= h8.levelStep - 1e-9);
    }
};

GLINT_GUI_TEST_MAIN(TestGuiUsabilityHistogram)
#include "test_gui_usability_histogram.moc"
