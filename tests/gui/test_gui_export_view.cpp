// Exports of the view from the window: as PNG (the image's full size, the display's pixels, overlays on the
// pixels the results name, y-up as displayed, the overlay scale, a second image beside the first) and as SVG
// (the shapes at the same coordinates, as vectors); pictures of the samples.
// Set GLINT_SCREENSHOT_DIR to keep exported pictures of the samples.
#include "tests/gui/test_gui_export_support.h"

#include "ui/canvas/ImageCanvas.h"
#include "ui/modules/CommonComponentLayers.h"
#include "ui/modules/TraceTool.h"

#include <QPainter>
#include <QSvgRenderer>

#include <cmath>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::exports;

namespace {

bool orange(QRgb c) {
    return qRed(c) - qBlue(c) > 80 && qGreen(c) - qBlue(c) > 30;
}

// The output rectangle of whole image pixels (their outer edges), through the picture's mapping.
QRectF outputRect(const ViewPicture& picture, const QRect& pixels) {
    const QRectF area = ViewTransform::pixelArea(pixels);
    return QRectF(picture.toOutput(area.topLeft()), picture.toOutput(area.bottomRight())).normalized();
}

// How many rows in the middle half of a rectangle's left and right edges have the region colour in the
// pixel column on either side of the edge line.
int colouredEdgeRows(const QImage& png, const QRectF& r) {
    int hits = 0;
    const int top = static_cast<int>(r.top() + r.height() / 4), bottom = static_cast<int>(r.bottom() - r.height() / 4);
    for (int y = top; y < bottom; ++y)
        for (double edge : {r.left(), r.right()}) {
            const int x = static_cast<int>(std::lround(edge));
            if (orange(png.pixel(x - 1, y)) || orange(png.pixel(x, y))) ++hits;
        }
    return hits;
}

QImage decodePng(const QString& path) {
    QImage image(path, "PNG");
    return image.convertToFormat(QImage::Format_RGB32);
}

void saveShot(const QString& source, const QString& name) {
    const QString dir = qEnvironmentVariable("GLINT_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    QFile::remove(QDir(dir).filePath(name));
    QFile::copy(source, QDir(dir).filePath(name));
}

} // namespace

class TestGuiExportView : public QObject {
    Q_OBJECT

    QString dir_;

private slots:
    void initTestCase() {
        dir_ = test::tempDir();
    }

    // The PNG is the display at 1:1: the image's size, the frame's pixels where no overlay is, and the
    // regions' outlines on the edges of the pixels the results name (flipped for y-up as on screen).
    void viewPng_data() {
        test::addBoolRows("yUp", "rows down", "FITS y-up");
    }
    void viewPng() {
        QFETCH(bool, yUp);
        MainWindow window({false, false});
        Image image = scene(300, 200, 7);
        image.meta.displayYUp = yUp;
        QVERIFY(showImage(window, std::move(image)));
        QString message;
        QVERIFY2(runBrightest(window, 2, QStringLiteral("mean"), QStringLiteral("cpu"), &message), qPrintable(message));
        const auto& regions = test::findModule<BrightestModule>(window)->runs().back().results.front().regions;
        QCOMPARE(regions.size(), std::size_t(2));

        const QString path = QDir(dir_).filePath(QStringLiteral("view-%1.png").arg(yUp));
        QVERIFY2(window.exports()->exportViewPng(path, {1.0}), qPrintable(window.exports()->lastError()));
        const QImage png = decodePng(path);
        QCOMPARE(png.size(), QSize(300, 200));
        saveShot(path, QStringLiteral("export-view-%1.png").arg(yUp ? QStringLiteral("yup") : QStringLiteral("down")));

        // Without the overlays the picture is the rendered frame, pixel for pixel.
        for (OverlayLayer* layer : window.context().layers()->layers())
            layer->setVisible(false);
        const QImage plain = ViewPicture(window.context(), {1.0}).toImage().convertToFormat(QImage::Format_RGB32);
        QCOMPARE(plain, window.context().frame()->pixels.convertToFormat(QImage::Format_RGB32));

        const ViewPicture picture(window.context(), {1.0});
        for (const BrightestRegion& r : regions) {
            const QRectF box = outputRect(picture, QRect(r.x, r.y, r.width, r.height));
            // Output pixel (i, j) is image pixel (i, j), or (i, H-1-j) with y up: the box's edges by hand.
            QCOMPARE(box, QRectF(r.x, yUp ? 200 - r.y - r.height : r.y, r.width, r.height));
            const int rows =
                static_cast<int>(box.bottom() - box.height() / 4) - static_cast<int>(box.top() + box.height() / 4);
            QVERIFY2(
                colouredEdgeRows(png, box) >= 2 * rows - 2,
                qPrintable(
                    QStringLiteral("region #%1: %2 of %3").arg(r.rank).arg(colouredEdgeRows(png, box)).arg(2 * rows)));
            // The middle of a region is the image's own pixel (a tiny region is all outline).
            const QPoint centre = box.center().toPoint();
            if (box.width() >= 8 && box.height() >= 8) QCOMPARE(png.pixel(centre), plain.pixel(centre));
            if (yUp) { // stored row 0 is at the bottom: the same rectangle unflipped is not outlined
                const QRectF unflipped(box.left(), r.y, box.width(), box.height());
                if (rows > 4 && !unflipped.intersects(box.adjusted(-3, -3, 3, 3)))
                    QVERIFY(colouredEdgeRows(png, unflipped) < rows / 2);
            }
        }
    }

    // A larger overlay scale draws thicker lines and larger labels on the same pixels.
    void overlayScaleKeepsGeometry() {
        MainWindow window({false, false});
        QVERIFY(showImage(window, scene(240, 180, 3)));
        QString message;
        QVERIFY2(runBrightest(window, 1, QStringLiteral("mean"), QStringLiteral("cpu"), &message), qPrintable(message));
        const BrightestRegion r = test::findModule<BrightestModule>(window)->runs().back().results.front().regions.front();
        const QString thin = QDir(dir_).filePath(QStringLiteral("thin.png")),
                      thick = QDir(dir_).filePath(QStringLiteral("thick.png"));
        QVERIFY(window.exports()->exportViewPng(thin, {1.0}));
        QVERIFY(window.exports()->exportViewPng(thick, {3.0}));
        const QImage a = decodePng(thin), b = decodePng(thick);
        QCOMPARE(b.size(), a.size());
        const int y = r.y + r.height / 2;
        QVERIFY(orange(b.pixel(r.x - 1, y)) || orange(b.pixel(r.x, y)));
        QVERIFY(orange(b.pixel(r.x + 1, y)) && !orange(a.pixel(r.x + 1, y))); // 4.5 px wide against 1.5
        // The automatic scale is 1 up to 1000 pixels, then grows with the image.
        QCOMPARE(ViewPicture(window.context()).overlayScale(), 1.0);
        window.context().setImage(scene(2400, 2000, 3), QStringLiteral("large"));
        QCOMPARE(ViewPicture(window.context()).overlayScale(), 2.0);
    }

    // Side by side, the picture holds image B beside A, and the component's tint lies on A's pixels.
    void secondImageBeside() {
        MainWindow window({false, false});
        brightest::showWindow(window);
        const Image a = scene(120, 80, 5);
        std::vector<std::int32_t> bs;
        for (int y = 10; y < 60; ++y)
            for (int x = 20; x < 80; ++x)
                bs.push_back(static_cast<std::int32_t>(a.value(x, y)));
        window.context().setImage(Image(a), QStringLiteral("A"));
        GLINT_WAIT_FOR_IMAGE(window);
        auto* common = test::findModule<CommonComponentModule>(window);
        common->setSecondImage(Image::fromSamples<std::int32_t>(60, 50, std::move(bs)), QStringLiteral("B"));
        QTRY_VERIFY_WITH_TIMEOUT(common->isSecondImageShown(), 20000);
        common->setBackend(Backend::Cpu);
        QSignalSpy shown(common, &CommonComponentModule::resultShown);
        QVERIFY(common->run());
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
        QVERIFY(common->result()->found);
        QCOMPARE(common->result()->size, std::uint64_t(3000));
        const QString path = QDir(dir_).filePath(QStringLiteral("side.png"));
        QVERIFY(window.exports()->exportViewPng(path, {1.0}));
        const QImage png = decodePng(path);
        QCOMPARE(png.size(), QSize(120 + 4 + 60, 80));
        saveShot(path, QStringLiteral("export-side-by-side.png"));
        const QRgb tint = png.pixel(50, 35); // inside the component on A
        QVERIFY2(qBlue(tint) - qRed(tint) > 60, qPrintable(QColor(tint).name()));
        QVERIFY(qBlue(png.pixel(10, 5)) - qRed(png.pixel(10, 5)) < 10); // A outside it: grey
        const QRgb onB = png.pixel(124 + 30, 25);
        QVERIFY2(qBlue(onB) - qRed(onB) > 60, qPrintable(QColor(onB).name())); // B's side tinted too

        // B belongs to that analysis: the pictures of the next image hold that image alone.
        window.context().setImage(scene(90, 70, 6), QStringLiteral("next"));
        GLINT_WAIT_FOR_IMAGE(window);
        QVERIFY(!common->secondImage());
        const QString next = QDir(dir_).filePath(QStringLiteral("next.png"));
        QVERIFY(window.exports()->exportViewPng(next, {1.0}));
        QCOMPARE(decodePng(next).size(), QSize(90, 70));
        const QString nextSvg = QDir(dir_).filePath(QStringLiteral("next.svg"));
        QVERIFY2(window.exports()->exportViewSvg(nextSvg, {1.0}), qPrintable(window.exports()->lastError()));
        int images = 0;
        for (const SvgShape& s : svgShapes(readAll(nextSvg)))
            if (s.element == QLatin1String("image")) {
                ++images;
                QCOMPARE(s.box(), QRectF(0, 0, 90, 70));
            }
        QCOMPARE(images, 1);
    }

    // The SVG embeds the image at its full size and draws the rectangles and the trace as vectors at the
    // PNG's coordinates.
    void svgExport() {
        MainWindow window({false, false});
        QVERIFY(showImage(window, scene(300, 200, 11)));
        QString message;
        QVERIFY2(runBrightest(window, 2, QStringLiteral("mean"), QStringLiteral("cpu"), &message), qPrintable(message));
        QVERIFY(runTrace(window, {QPointF(20.3, 30.7), QPointF(150.2, 60.5), QPointF(280.0, 170.25)}));
        const QString path = QDir(dir_).filePath(QStringLiteral("view.svg"));
        QVERIFY2(window.exports()->exportViewSvg(path, {1.0}), qPrintable(window.exports()->lastError()));
        const QByteArray svg = readAll(path);
        saveShot(path, QStringLiteral("export-view.svg"));
        QVERIFY(svg.startsWith("<?xml"));
        const QVector<SvgShape> shapes = svgShapes(svg);
        QVERIFY(!shapes.isEmpty());

        // The image: one raster of the image's size at the origin.
        int images = 0;
        for (const SvgShape& s : shapes)
            if (s.element == QLatin1String("image")) {
                ++images;
                QCOMPARE(s.box(), QRectF(0, 0, 300, 200));
            }
        QCOMPARE(images, 1);

        const ViewPicture picture(window.context(), {1.0});
        const QString regionColour = colourName(test::findModule<BrightestModule>(window)->regionLayer()->colour());
        for (const BrightestRegion& r : test::findModule<BrightestModule>(window)->runs().back().results.front().regions) {
            const QRectF expected = outputRect(picture, QRect(r.x, r.y, r.width, r.height));
            bool found = false;
            for (const SvgShape& s : shapes) {
                if (s.stroke.compare(regionColour, Qt::CaseInsensitive) != 0) continue;
                const QRectF b = s.box();
                found =
                    found ||
                    (std::abs(b.left() - expected.left()) < 1e-3 && std::abs(b.top() - expected.top()) < 1e-3 &&
                     std::abs(b.right() - expected.right()) < 1e-3 && std::abs(b.bottom() - expected.bottom()) < 1e-3);
            }
            QVERIFY2(found, qPrintable(QStringLiteral("no %1 rectangle at %2,%3 %4x%5")
                                           .arg(regionColour)
                                           .arg(expected.left())
                                           .arg(expected.top())
                                           .arg(expected.width())
                                           .arg(expected.height())));
        }
        // The trace: a polyline in the trace colour through the trace's points (pixel centres at +0.5).
        const TraceModule* trace = test::findModule<TraceModule>(window);
        const QPolygonF line = trace->layer()->shape(0).points;
        bool traced = false;
        for (const SvgShape& s : shapes) {
            if (s.stroke.compare(colourName(TraceTool::traceColour()), Qt::CaseInsensitive) != 0 ||
                s.points.size() != line.size())
                continue;
            bool same = true;
            for (qsizetype i = 0; i < line.size(); ++i)
                same = same && QLineF(s.points[i], picture.toOutput(line[i])).length() < 1e-3;
            traced = traced || same;
        }
        QVERIFY(traced);
        // Labels are text, not pixels.
        bool label = false;
        for (const SvgShape& s : shapes)
            label = label || s.text.startsWith(QStringLiteral("#1"));
        QVERIFY(label);

        // Drawn by an SVG renderer, it is the PNG export (up to antialiasing and text rendering).
        QSvgRenderer renderer(svg);
        QVERIFY(renderer.isValid());
        QImage rendered(300, 200, QImage::Format_ARGB32);
        rendered.fill(Qt::black);
        QPainter painter(&rendered);
        renderer.render(&painter);
        painter.end();
        const QImage png = picture.toImage();
        int different = 0;
        for (int y = 0; y < 200; ++y)
            for (int x = 0; x < 300; ++x) {
                const QRgb a = rendered.pixel(x, y), b = png.pixel(x, y);
                different +=
                    std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) + std::abs(qBlue(a) - qBlue(b)) > 90;
            }
        QVERIFY2(different < 300 * 200 / 50, qPrintable(QString::number(different)));
        const QString dir = qEnvironmentVariable("GLINT_SCREENSHOT_DIR");
        if (!dir.isEmpty()) rendered.save(QDir(dir).filePath(QStringLiteral("export-view-svg-rendered.png")));
    }

    // Pictures to look at: the synthetic mammogram with its five brightest regions, the FITS sample with
    // a pivot sweep (y up), exported at full resolution.
    void samplePictures() {
        if (qEnvironmentVariableIsEmpty("GLINT_SCREENSHOT_DIR")) QSKIP("set GLINT_SCREENSHOT_DIR to keep the pictures");
        MainWindow window({false, false});
        brightest::showWindow(window);
        QVERIFY(openAndWait(window, test::samplePath(QStringLiteral("synthetic-mammogram.png"))));
        QString message;
        QVERIFY2(runBrightest(window, 5, QStringLiteral("p99"), QStringLiteral("cpu"), &message), qPrintable(message));
        const QString mammogram = QDir(dir_).filePath(QStringLiteral("mammogram.png"));
        QVERIFY(window.exports()->exportViewPng(mammogram));
        saveShot(mammogram, QStringLiteral("export-mammogram.png"));
        QVERIFY(openAndWait(window, test::samplePath(QStringLiteral("ngc1316o.fit"))));
        auto* m = test::findModule<BrightestModule>(window);
        m->panel()->sweepEdit()->setText(QStringLiteral("median, p90, p99"));
        m->panel()->kBox()->setValue(2);
        QVERIFY(brightest::runAndWait(
            m, [&] { m->runSweep(); }, &message));
        const QString fits = QDir(dir_).filePath(QStringLiteral("ngc1316o.png"));
        QVERIFY(window.exports()->exportViewPng(fits));
        saveShot(fits, QStringLiteral("export-ngc1316o-sweep.png"));
        QVERIFY(window.exports()->exportViewSvg(QDir(dir_).filePath(QStringLiteral("ngc1316o.svg"))));
        saveShot(QDir(dir_).filePath(QStringLiteral("ngc1316o.svg")), QStringLiteral("export-ngc1316o-sweep.svg"));
    }
};

GLINT_GUI_TEST_MAIN(TestGuiExportView)
#include "test_gui_export_view.moc"
