// Helpers of test_gui_export_{files,view}.cpp and test_gui_session.cpp: test images written as files the window and
// glint-cli both open, running each analysis in the window and waiting for it, and reading exported
// pictures (PNG pixels, SVG shapes with their transforms resolved).
#pragma once

#include "tests/gui/test_gui_brightest_support.h"

#include "ui/docks/ResultsDock.h"
#include "ui/export/ExportActions.h"
#include "core/io/ImageLoader.h"
#include "ui/jobs/JobRunner.h"
#include "ui/modules/CommonComponentModule.h"
#include "ui/modules/RegionStatisticsModule.h"
#include "ui/modules/TraceModule.h"
#include "ui/overlay/LayerStack.h"
#include "ui/results/TimingLog.h"
#include "ui/session/Session.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QTransform>
#include <QXmlStreamReader>

#include <random>

namespace glint::test::exports {

using namespace glint;
using namespace glint::ui;
// The brightest module's helpers, brightest::… to these and to the suites that use them.
namespace brightest = glint::test::brightest;

// Grey noise 0..60 with bright blocks: integer values (the CLI and the window read them exactly), and a
// picture in which anything coloured is an overlay.
inline Image scene(int width, int height, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(0, 60);
    std::vector<std::int32_t> v(static_cast<std::size_t>(width) * height);
    for (auto& s : v)
        s = noise(rng);
    const auto block = [&](int x0, int y0, int w, int h, int value) {
        for (int y = y0; y < y0 + h && y < height; ++y)
            for (int x = x0; x < x0 + w && x < width; ++x)
                v[static_cast<std::size_t>(y) * width + x] = value;
    };
    block(width / 5, height / 4, width / 6, height / 5, 220);
    block(width * 3 / 5, height / 2, width / 8, height / 4, 180);
    block(width / 3, height * 3 / 4, width / 10, height / 10, 150);
    return Image::fromSamples<std::int32_t>(width, height, std::move(v));
}

// Opens a file in the window (as File ▸ Open does) and waits until it is drawn.
inline bool openAndWait(MainWindow& window, const QString& path) {
    window.openFile(path);
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 30000) {
        if (imageShown(window.context()) && window.context().imagePath() == path) return true;
        QTest::qWait(20);
    }
    return false;
}

// Shows the window, gives it a generated image (named `name`) and waits until it is drawn.
inline bool showImage(MainWindow& window, Image image, const QString& name = QStringLiteral("scene")) {
    brightest::showWindow(window);
    window.context().setImage(std::move(image), name);
    return QTest::qWaitFor([&] { return imageShown(window.context()); }, 30000);
}

// K brightest regions with the panel: pivot, K, backend; false (message) when the run did not finish.
inline bool runBrightest(MainWindow& window, int k, const QString& pivot, const QString& backend, QString* message) {
    BrightestModule* m = test::findModule<BrightestModule>(window);
    m->panel()->kBox()->setValue(k);
    brightest::setPivot(m->panel(), pivot);
    // The CLI's defaults, not the FITS image's (threshold 3, min SNR 5, max box = the mesh).
    m->panel()->thresholdBox()->setValue(0.0);
    m->panel()->minSnrBox()->setValue(0.0);
    m->panel()->maxBoxBox()->setValue(0);
    m->panel()->backendBox()->setCurrentText(backend);
    return brightest::runAndWait(
        m, [&] { m->run(k); }, message);
}

inline bool runCommon(MainWindow& window, const QString& pathB, double tolerance) {
    auto* m = test::findModule<CommonComponentModule>(window);
    m->openSecondImage(pathB);
    QElapsedTimer clock;
    clock.start();
    while (!m->isSecondImageShown() && clock.elapsed() < 30000)
        QTest::qWait(20);
    if (!m->isSecondImageShown()) return false;
    glint::CommonComponentParams params;
    params.tolerance = tolerance;
    m->setParameters(params);
    m->setBackend(glint::Backend::Cpu);
    QSignalSpy shown(m, &CommonComponentModule::resultShown);
    if (!m->run()) return false;
    return shown.wait(60000) || shown.count() > 0;
}

// A trace through clicked points (image coordinates), finished as Enter does.
inline bool runTrace(MainWindow& window, const QVector<QPointF>& clicks) {
    auto* m = test::findModule<TraceModule>(window);
    QSignalSpy finished(m, &TraceModule::traceFinished);
    m->startTool();
    for (const QPointF& p : clicks)
        m->click(p);
    QElapsedTimer clock;
    clock.start();
    while (m->fixedLegCount() < clicks.size() - 1 && clock.elapsed() < 30000)
        QTest::qWait(20);
    m->finishTrace();
    return finished.count() > 0 || finished.wait(30000);
}

inline bool waitIdle(MainWindow& window) {
    QElapsedTimer clock;
    clock.start();
    while (window.context().jobs()->isBusy() && clock.elapsed() < 60000)
        QTest::qWait(20);
    return !window.context().jobs()->isBusy();
}

inline QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The files in a folder (names), to check that a failed export left nothing behind.
inline QStringList folderEntries(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

// --- SVG -------------------------------------------------------------------------------------------------

// A shape of an SVG as drawn: its points (output pixels, every transform applied) and its stroke/fill.
struct SvgShape {
    QString element;
    QPolygonF points;
    QString stroke;
    QString fill;
    QString text;
    QRectF box() const { return points.boundingRect(); }
};

inline QTransform parseTransform(const QString& text) {
    QTransform t;
    static const QRegularExpression item(QStringLiteral("(matrix|translate|scale)\\s*\\(([^)]*)\\)"));
    for (auto it = item.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        QList<double> n;
        for (const QString& s : m.captured(2).split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts))
            n << s.toDouble();
        QTransform step;
        if (m.captured(1) == QLatin1String("matrix") && n.size() == 6)
            step = QTransform(n[0], n[1], n[2], n[3], n[4], n[5]);
        else if (m.captured(1) == QLatin1String("translate") && !n.isEmpty())
            step = QTransform::fromTranslate(n[0], n.value(1));
        else if (m.captured(1) == QLatin1String("scale") && !n.isEmpty())
            step = QTransform::fromScale(n[0], n.value(1, n[0]));
        t = step * t;
    }
    return t;
}

inline QPolygonF parseNumbersAsPoints(const QString& text) {
    QPolygonF out;
    static const QRegularExpression number(QStringLiteral("-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?"));
    QList<double> n;
    for (auto it = number.globalMatch(text); it.hasNext();)
        n << it.next().captured(0).toDouble();
    for (qsizetype i = 0; i + 1 < n.size(); i += 2)
        out << QPointF(n[i], n[i + 1]);
    return out;
}

// Every rect, polygon, polyline, path, line, image and text of the document with its points mapped to the
// output (transforms of the enclosing groups and of the element applied; strokes and fills inherited).
inline QVector<SvgShape> svgShapes(const QByteArray& svg) {
    QVector<SvgShape> out;
    QXmlStreamReader xml(svg);
    struct Frame {
        QTransform transform;
        QString stroke, fill;
    };
    QVector<Frame> stack{{}};
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isEndElement()) {
            if (stack.size() > 1) stack.removeLast();
            continue;
        }
        if (!xml.isStartElement()) continue;
        const QXmlStreamAttributes a = xml.attributes();
        Frame f = stack.last();
        if (a.hasAttribute(QStringLiteral("transform")))
            f.transform = parseTransform(a.value(QStringLiteral("transform")).toString()) * f.transform;
        if (a.hasAttribute(QStringLiteral("stroke"))) f.stroke = a.value(QStringLiteral("stroke")).toString();
        if (a.hasAttribute(QStringLiteral("fill"))) f.fill = a.value(QStringLiteral("fill")).toString();
        stack.append(f);
        const QString name = xml.name().toString();
        SvgShape s{name, {}, f.stroke, f.fill, {}};
        const auto num = [&](const char* key) { return a.value(QLatin1String(key)).toDouble(); };
        if (name == QLatin1String("rect") || name == QLatin1String("image")) {
            const QRectF r(num("x"), num("y"), num("width"), num("height"));
            s.points = QPolygonF(r);
        } else if (name == QLatin1String("polygon") || name == QLatin1String("polyline")) {
            s.points = parseNumbersAsPoints(a.value(QStringLiteral("points")).toString());
        } else if (name == QLatin1String("path")) {
            s.points = parseNumbersAsPoints(a.value(QStringLiteral("d")).toString());
        } else if (name == QLatin1String("line")) {
            s.points << QPointF(num("x1"), num("y1")) << QPointF(num("x2"), num("y2"));
        } else if (name == QLatin1String("text")) {
            s.points << QPointF(num("x"), num("y"));
            s.text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
            stack.removeLast(); // readElementText consumed the end element
        } else {
            continue;
        }
        s.points = f.transform.map(s.points);
        out.append(s);
    }
    return out;
}

inline QString colourName(const QColor& c) {
    return c.name(QColor::HexRgb);
}

} // namespace glint::test::exports
