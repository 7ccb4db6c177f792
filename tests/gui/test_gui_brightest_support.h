// Helpers of test_gui_brightest_{panel,results,overlays}.cpp: the CLI's regions for a file, the regions the window shows, text
// matrices written exactly, driving the panel and the canvas tools, and waiting for a run to end.
#pragma once

#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "core/algo/brightest/Brightest.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/modules/BrightestLayers.h"
#include "ui/modules/BrightestModule.h"
#include "ui/modules/BrightestPanel.h"
#include "ui/results/ResultsModel.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QSignalSpy>

#include <cmath>
#include <functional>

namespace glint::test::brightest {

using namespace glint;
using namespace glint::ui;

struct Region {
    int rank = 0;
    QRect rect;
    double sum = 0.0;
};

inline QString describe(const QVector<Region>& regions) {
    QStringList parts;
    for (const Region& r : regions)
        parts << QStringLiteral("#%1 (%2,%3 %4x%5) %6")
                     .arg(r.rank).arg(r.rect.x()).arg(r.rect.y()).arg(r.rect.width()).arg(r.rect.height())
                     .arg(r.sum, 0, 'g', 17);
    return parts.join(QStringLiteral("; "));
}

// `glint-cli brightest FILE ARGS --json -`: the regions it reports (empty + a message on failure).
inline QVector<Region> cliRegions(const QString& file, QStringList args, QString* error) {
    args.prepend(file);
    args.prepend(QStringLiteral("brightest"));
    args << QStringLiteral("--json") << QStringLiteral("-");
    const test::CliResult run = test::runCli(args);
    QVector<Region> out;
    if (run.exitCode != 0) {
        *error = QStringLiteral("glint-cli %1 exited %2: %3").arg(args.join(' ')).arg(run.exitCode).arg(QString::fromUtf8(run.err));
        return out;
    }
    const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
    for (const QJsonValue& v : doc.value(QStringLiteral("regions")).toArray()) {
        const QJsonObject o = v.toObject();
        out.append({o[QStringLiteral("rank")].toInt(),
                    QRect(o[QStringLiteral("x")].toInt(), o[QStringLiteral("y")].toInt(), o[QStringLiteral("width")].toInt(),
                          o[QStringLiteral("height")].toInt()),
                    o[QStringLiteral("sum")].toDouble()});
    }
    return out;
}

// What the module shows: the layer's rectangles with the sums of the result rows.
inline QVector<Region> shownRegions(const BrightestRegionLayer* layer, const ResultsModel* model, int firstRow = 0, int sumColumn = 5) {
    QVector<Region> out;
    for (int i = 0; i < layer->itemCount(); ++i) {
        const RegionMark& m = layer->regions()[i];
        const int row = model->rowForOverlayItem(firstRow + i);
        out.append({m.rank, m.pixels, row >= 0 ? model->value(row, sumColumn).toDouble() : std::nan("")});
    }
    return out;
}

inline bool sameRegions(const QVector<Region>& a, const QVector<Region>& b) {
    if (a.size() != b.size()) return false;
    for (int i = 0; i < a.size(); ++i)
        if (a[i].rank != b[i].rank || a[i].rect != b[i].rect || a[i].sum != b[i].sum) return false;
    return true;
}

inline QString formatExact(double v) { return QString::number(v, 'g', 17); }

// A text matrix Glint reads back exactly (NaN = blank).
inline QString writeMatrix(const Image& image, const QString& name) {
    const QString path = QDir(test::tempDir()).filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
    QByteArray text;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            if (x) text += ',';
            text += image.isBlank(x, y) ? QByteArray("nan") : formatExact(image.value(x, y)).toLatin1();
        }
        text += '\n';
    }
    file.write(text);
    return path;
}

inline void saveShot(QWidget& widget, const QString& name) {
    const QString dir = qEnvironmentVariable("GLINT_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    widget.grab().save(QDir(dir).filePath(name + QStringLiteral(".png")));
}

inline BrightestModule* findModule(MainWindow& window) { return test::findModule<BrightestModule>(window); }

inline void setPivot(BrightestPanel* panel, const QString& pivot) {
    QComboBox* kind = panel->pivotBox();
    if (pivot == QLatin1String("mean") || pivot == QLatin1String("median")) {
        kind->setCurrentIndex(kind->findData(pivot));
    } else if (pivot.startsWith(QLatin1Char('p'))) {
        kind->setCurrentIndex(kind->findData(QStringLiteral("percentile")));
        panel->percentileBox()->setValue(pivot.mid(1).toDouble());
    } else {
        kind->setCurrentIndex(kind->findData(QStringLiteral("number")));
        panel->numberEdit()->setText(pivot);
    }
}

// Drags a rectangle over whole pixels a..b with the active rectangle tool.
inline void dragPixels(ImageCanvas* canvas, QPoint a, QPoint b) {
    const ViewTransform v = canvas->view();
    QTest::mousePress(canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(QPointF(a)).toPoint());
    QTest::mouseMove(canvas, v.imageToWidget(QPointF(b)).toPoint());
    QTest::mouseRelease(canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(QPointF(b)).toPoint());
}

// True when no pixel of the region is an excluded one (pixel centre inside a polygon, even-odd; or in a rectangle).
inline bool avoids(const QRect& region, const glint::BrightestParams& params) {
    for (const glint::PixelRect& e : params.excludeRects)
        if (region.intersects(QRect(e.x, e.y, e.width, e.height))) return false;
    for (const glint::PixelPolygon& p : params.excludePolygons) {
        QPolygonF polygon;
        for (const auto& [x, y] : p.points) polygon << QPointF(x, y);
        for (int y = region.top(); y <= region.bottom(); ++y)
            for (int x = region.left(); x <= region.right(); ++x)
                if (polygon.containsPoint(QPointF(x, y), Qt::OddEvenFill)) return false;
    }
    return true;
}

// Runs what `trigger` starts and waits for its end; false (with the message) when it did not finish.
inline bool runAndWait(BrightestModule* module, const std::function<void()>& trigger, QString* message, int timeoutMs = 120000) {
    QSignalSpy finished(module, &BrightestModule::runFinished);
    QSignalSpy failed(module, &BrightestModule::runFailed);
    trigger();
    QElapsedTimer clock;
    clock.start();
    while (finished.isEmpty() && failed.isEmpty() && clock.elapsed() < timeoutMs) QTest::qWait(20);
    if (!failed.isEmpty()) *message = failed.first().first().toString();
    else if (finished.isEmpty()) *message = QStringLiteral("no result after %1 ms").arg(timeoutMs);
    return !finished.isEmpty();
}

// Waits until the auto-exclusion the opened image started (mammograms) has added its shapes.
inline bool waitForAutoExclusion(BrightestModule* module, int timeoutMs = 60000) {
    QElapsedTimer clock;
    clock.start();
    while (module->autoExclusionPending() && clock.elapsed() < timeoutMs) QTest::qWait(20);
    return !module->autoExclusionPending();
}

// The panel as it was before per-image defaults: no exclusions, mean pivot, ranked by sum, no threshold or SNR
// filter, no search bound (for tests of the plain search on images that get the source finder's or the
// mammogram's defaults).
inline void plainSearch(BrightestModule* module) {
    QVERIFY(waitForAutoExclusion(module));
    module->clearExclusions();
    BrightestPanel* panel = module->panel();
    setPivot(panel, QStringLiteral("mean"));
    panel->rankBox()->setCurrentIndex(panel->rankBox()->findData(QStringLiteral("sum")));
    QCOMPARE(panel->rankBox()->currentData().toString(), QStringLiteral("sum"));
    panel->thresholdBox()->setValue(0.0);
    panel->minSnrBox()->setValue(0.0);
    panel->maxBoxBox()->setValue(0);
}

inline void showWindow(MainWindow& window) {
    QVERIFY(test::showExposed(window, QSize(1280, 860)));
}

// Shows the window, opens a file in it (as File ▸ Open does) and waits until it is drawn.
inline bool showAndOpen(MainWindow& window, const QString& path) {
    showWindow(window);
    window.openFile(path);
    return QTest::qWaitFor([&] { return imageShown(window.context()); }, 30000);
}

} // namespace glint::test::brightest
