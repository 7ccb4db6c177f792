// Exports from the window: the view as PNG (the image's full size, the display's pixels, overlays on the
// pixels the results name, y-up as displayed, a second image beside the first) and as SVG (the shapes at
// the same coordinates, as vectors); result files equal to what glint-cli writes for the same analysis
// (DS9, GeoJSON, CSV, the component mask); all visible results or one chosen set; the timing report with
// every step; and exports to a place that cannot be written: a message, no file, no temporary.
// Set GLINT_SCREENSHOT_DIR to keep exported pictures of the samples.
#include "tests/gui/test_gui_export_support.h"

#include "ui/canvas/ImageCanvas.h"
#include "ui/docks/TimingDock.h"
#include "core/export/CsvTable.h"
#include "core/io/Georef.h"
#include "ui/export/ExportResultsDialog.h"
#include "ui/export/TimingExport.h"
#include "ui/modules/CommonComponentLayers.h"
#include "ui/modules/TraceTool.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QStatusBar>
#include <QSvgRenderer>
#include <QTimer>
#include <QToolButton>

#include <csignal>
#include <sys/resource.h>

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

class TestGuiExport : public QObject {
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
        const auto& regions = module<BrightestModule>(window)->runs().back().results.front().regions;
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
        const BrightestRegion r = module<BrightestModule>(window)->runs().back().results.front().regions.front();
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
        auto* common = module<CommonComponentModule>(window);
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
        const QString regionColour = colourName(module<BrightestModule>(window)->regionLayer()->colour());
        for (const BrightestRegion& r : module<BrightestModule>(window)->runs().back().results.front().regions) {
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
        const TraceModule* trace = module<TraceModule>(window);
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

    // The region files the window writes for a brightest run are the files glint-cli writes for the same
    // file and parameters: image coordinates for a text matrix, fk5 for the FITS sample with its WCS.
    void regionFilesEqualTheCli_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("k");
        QTest::addColumn<QString>("pivot");
        const QString matrix = brightest::writeMatrix(scene(90, 70, 21), QStringLiteral("regions.csv"));
        QTest::newRow("matrix K=3 mean") << matrix << 3 << QStringLiteral("mean");
        QTest::newRow("matrix K=1 p90") << matrix << 1 << QStringLiteral("p90");
        QTest::newRow("FITS with WCS K=2")
            << test::samplePath(QStringLiteral("ngc1316o.fit")) << 2 << QStringLiteral("median");
    }
    void regionFilesEqualTheCli() {
        QFETCH(QString, file);
        QFETCH(int, k);
        QFETCH(QString, pivot);
        MainWindow window({false, false});
        brightest::showWindow(window);
        QVERIFY(openAndWait(window, file));
        QString message;
        QVERIFY2(runBrightest(window, k, pivot, QStringLiteral("cpu"), &message), qPrintable(message));
        const QString base = QDir(dir_).filePath(
            QStringLiteral("gui-%1").arg(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_')));
        const QVector<ExportableResults> visible = visibleResults(window.exports()->results());
        QCOMPARE(visible.size(), 1);
        QVERIFY2(window.exports()->exportResults(visible, resultFilesFor(base, visible)),
                 qPrintable(window.exports()->lastError()));
        QCOMPARE(window.exports()->lastWritten().size(), 3);

        const QString cli = QDir(dir_).filePath(QStringLiteral("cli"));
        const test::CliResult run =
            test::runCli({QStringLiteral("brightest"), file, QStringLiteral("--k"), QString::number(k),
                          QStringLiteral("--pivot"), pivot, QStringLiteral("--backend"), QStringLiteral("cpu"),
                          QStringLiteral("--regions"), cli + QStringLiteral(".reg"), QStringLiteral("--regions"),
                          cli + QStringLiteral(".geojson"), QStringLiteral("--regions"), cli + QStringLiteral(".csv")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        for (const char* ext : {".reg", ".geojson", ".csv"}) {
            const QByteArray gui = readAll(base + QLatin1String(ext)), expected = readAll(cli + QLatin1String(ext));
            QVERIFY2(!gui.isEmpty(), ext);
            QCOMPARE(gui, expected);
        }
        if (file.endsWith(QLatin1String(".fit"))) QVERIFY(readAll(base + QStringLiteral(".reg")).contains("\nfk5\n"));
    }

    // The component mask PNG equals glint-cli common --mask for the same pair, and its region (outline
    // polygon) is in the DS9 file.
    void componentMaskEqualsTheCli() {
        const Image a = scene(64, 48, 9);
        QImage qa(64, 48, QImage::Format_Grayscale8), qb(40, 30, QImage::Format_Grayscale8);
        for (int y = 0; y < 48; ++y)
            for (int x = 0; x < 64; ++x)
                qa.scanLine(y)[x] = static_cast<uchar>(a.value(x, y));
        for (int y = 0; y < 30; ++y)
            for (int x = 0; x < 40; ++x)
                qb.scanLine(y)[x] = static_cast<uchar>(a.value(x + 12, y + 9));
        qb.scanLine(5)[5] = 255; // one pixel that does not match
        const QString pathA = QDir(dir_).filePath(QStringLiteral("mask-a.png")),
                      pathB = QDir(dir_).filePath(QStringLiteral("mask-b.png"));
        QVERIFY(qa.save(pathA) && qb.save(pathB));
        MainWindow window({false, false});
        brightest::showWindow(window);
        QVERIFY(openAndWait(window, pathA));
        QVERIFY(runCommon(window, pathB, 0.0));
        const QVector<ExportableResults> sets = visibleResults(window.exports()->results());
        QCOMPARE(sets.size(), 1);
        const QString base = QDir(dir_).filePath(QStringLiteral("component"));
        const ResultFiles files = resultFilesFor(base, sets);
        QCOMPARE(files.maskPng, base + QStringLiteral("-mask.png"));
        QVERIFY2(window.exports()->exportResults(sets, files), qPrintable(window.exports()->lastError()));
        QCOMPARE(window.exports()->lastWritten().size(), 4);
        const QString cliMask = QDir(dir_).filePath(QStringLiteral("cli-mask.png"));
        const test::CliResult run = test::runCli({QStringLiteral("common"), pathA, pathB, QStringLiteral("--backend"),
                                                  QStringLiteral("cpu"), QStringLiteral("--mask"), cliMask});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QImage gui(files.maskPng), cli(cliMask);
        QCOMPARE(gui.size(), QSize(64, 48));
        QCOMPARE(gui.convertToFormat(QImage::Format_Grayscale8), cli.convertToFormat(QImage::Format_Grayscale8));
        const QByteArray reg = readAll(files.ds9);
        QVERIFY(reg.contains("polygon("));
        QVERIFY(reg.contains("tag={common 1}"));
    }

    // "All visible results" follows the Layers dock; one chosen set is exported whether shown or not.
    void visibleOrChosenSet() {
        MainWindow window({false, false});
        QVERIFY(showImage(window, scene(100, 80, 13)));
        QString message;
        QVERIFY(runBrightest(window, 1, QStringLiteral("mean"), QStringLiteral("cpu"), &message));
        QVERIFY(runBrightest(window, 3, QStringLiteral("p90"), QStringLiteral("cpu"), &message));
        QVERIFY(runTrace(window, {QPointF(5, 5), QPointF(90, 70)}));
        const QVector<ExportableResults> all = window.exports()->results();
        QCOMPARE(all.size(), 3); // the traces, two brightest runs (in the order of the modules)
        QCOMPARE(all[0].title, module<TraceModule>(window)->name());
        QVERIFY(all[1].title.startsWith(QStringLiteral("Brightest #1")));
        QVERIFY(!all[1].isVisible()); // the older run is hidden when the next one shows
        QVERIFY(all[2].isVisible());
        QCOMPARE(visibleResults(all).size(), 2);
        const auto csvRows = [](const QString& path) { return readAll(path).trimmed().split('\n').size() - 1; };
        const QString visibleBase = QDir(dir_).filePath(QStringLiteral("visible"));
        QVERIFY(window.exports()->exportResults(visibleResults(all), resultFilesFor(visibleBase, visibleResults(all))));
        QCOMPARE(csvRows(visibleBase + QStringLiteral(".csv")), 3 + 1);
        QVERIFY(readAll(visibleBase + QStringLiteral(".csv")).contains("\ntrace,1,"));

        // The dialog offers the same choice.
        ExportResultsDialog dialog(all, false, nullptr, QDir(dir_).filePath(QStringLiteral("first")));
        QCOMPARE(dialog.scopeBox()->count(), 4);
        // Counted in words: "2 sets", "1 result set", never "set(s)".
        QVERIFY2(dialog.scopeBox()->itemText(0).startsWith(QStringLiteral("All visible results (2 sets, ")), qPrintable(dialog.scopeBox()->itemText(0)));
        QVERIFY(!dialog.scopeBox()->itemText(0).contains(QStringLiteral("(s)")));
        QVERIFY(!dialog.geoJsonCrsBox()->isVisibleTo(&dialog)); // not georeferenced: GeoJSON in pixels, no choice
        QCOMPARE(dialog.files().geoJsonCrs, GeoJsonCrs::Pixel);
        QVERIFY(dialog.scopeBox()->itemText(2).endsWith(QStringLiteral("(hidden)")));
        QCOMPARE(dialog.chosenSets().size(), 2);
        dialog.scopeBox()->setCurrentIndex(2);
        QCOMPARE(dialog.chosenSets().size(), 1);
        QVERIFY2(dialog.summaryLabel()->text().endsWith(QStringLiteral(" from 1 result set.")), qPrintable(dialog.summaryLabel()->text()));
        QVERIFY(!dialog.summaryLabel()->text().contains(QStringLiteral("(s)")));
        QCOMPARE(dialog.chosenSets().front().title, all[1].title);
        const ResultFiles files = dialog.files();
        QVERIFY(files.maskPng.isEmpty()); // no component: no mask
        QVERIFY(window.exports()->exportResults(dialog.chosenSets(), files));
        QCOMPARE(csvRows(QDir(dir_).filePath(QStringLiteral("first.csv"))), 1);

        // Hiding the trace layer in the Layers dock takes it out of "all visible".
        module<TraceModule>(window)->layer()->setVisible(false);
        QCOMPARE(visibleResults(window.exports()->results()).size(), 1);
    }

    // A georeferenced image: the dialog offers the GeoJSON's coordinates as --geojson-crs does (the image's
    // CRS, WGS 84, pixels), and the file written has them.
    void geoJsonCrsChoice() {
        if (!georefAvailable()) QSKIP("this build has no GDAL: no image is georeferenced");
        MainWindow window({false, false});
        Image image = scene(120, 90, 23);
        // 10 m pixels of UTM zone 33N; the first pixel's corner at (500000, 5000000).
        image.meta.georef = Georef::create({500000, 10, 0, 5000000, 0, -10}, "EPSG:32633");
        QVERIFY(image.meta.georef && image.meta.georef->hasLonLat());
        QVERIFY(showImage(window, std::move(image), QStringLiteral("utm")));
        QString message;
        QVERIFY2(runBrightest(window, 1, QStringLiteral("mean"), QStringLiteral("cpu"), &message), qPrintable(message));
        const auto georef = window.context().image()->meta.georef;
        ExportResultsDialog dialog(window.exports()->results(), false, georef, QDir(dir_).filePath(QStringLiteral("geo")));
        QComboBox* crs = dialog.geoJsonCrsBox();
        QVERIFY(crs->isVisibleTo(&dialog));
        QCOMPARE(crs->count(), 3);
        QVERIFY2(crs->itemText(0).contains(QStringLiteral("UTM zone 33N")), qPrintable(crs->itemText(0)));
        QCOMPARE(dialog.files().geoJsonCrs, GeoJsonCrs::Image); // the default: what lines up in QGIS
        const BrightestRegion& r = module<BrightestModule>(window)->lastResults().front().regions.front();
        const auto firstPoint = [](const QByteArray& geojson) {
            const QJsonArray ring = QJsonDocument::fromJson(geojson).object()["features"].toArray().first().toObject()
                                        ["geometry"].toObject()["coordinates"].toArray().first().toArray();
            const QJsonArray p = ring.first().toArray();
            return QPointF(p[0].toDouble(), p[1].toDouble());
        };
        // The image's CRS: metres.
        QVERIFY(window.exports()->exportResults(dialog.chosenSets(), dialog.files()));
        const QPointF utm = firstPoint(readAll(dialog.files().geoJson));
        QVERIFY2(utm.x() >= 500000 && utm.x() <= 501200 && utm.y() <= 5000000 && utm.y() >= 4999100,
                 qPrintable(QStringLiteral("%1 %2").arg(utm.x()).arg(utm.y())));
        // WGS 84: degrees, the same place.
        crs->setCurrentIndex(crs->findData(static_cast<int>(GeoJsonCrs::Wgs84)));
        QCOMPARE(dialog.files().geoJsonCrs, GeoJsonCrs::Wgs84);
        QVERIFY(window.exports()->exportResults(dialog.chosenSets(), dialog.files()));
        const QPointF ll = firstPoint(readAll(dialog.files().geoJson));
        const auto expected = georef->mapToLonLat({utm.x(), utm.y()});
        QVERIFY(expected);
        QVERIFY2(std::abs(ll.x() - expected->lon) < 1e-9 && std::abs(ll.y() - expected->lat) < 1e-9,
                 qPrintable(QStringLiteral("%1 %2 (region x %3)").arg(ll.x(), 0, 'f', 9).arg(ll.y(), 0, 'f', 9).arg(r.x)));
        QVERIFY(std::abs(ll.x() - 15.0) < 0.1 && std::abs(ll.y() - 45.1) < 0.2);
        // Pixels.
        crs->setCurrentIndex(crs->findData(static_cast<int>(GeoJsonCrs::Pixel)));
        QVERIFY(window.exports()->exportResults(dialog.chosenSets(), dialog.files()));
        const QPointF px = firstPoint(readAll(dialog.files().geoJson));
        QVERIFY(px.x() >= 0 && px.x() <= 120 && px.y() >= 0 && px.y() <= 90);
        // GeoJSON not written: no coordinates to choose.
        dialog.geoJsonCheck()->setChecked(false);
        QVERIFY(!crs->isEnabled());
    }

    // The timing report: HTML, JSON and CSV beside each other, every run and every step with its time.
    void timingReportHasEveryStep() {
        MainWindow window({false, false});
        QVERIFY(showImage(window, scene(120, 90, 17)));
        QVERIFY(!window.exports()->timingReportAction()->isEnabled());
        QString message;
        QVERIFY(runBrightest(window, 2, QStringLiteral("mean"), QStringLiteral("cpu"), &message));
        QVERIFY(runBrightest(window, 2, QStringLiteral("mean"), QStringLiteral("reference"), &message));
        QVERIFY(module<RegionStatisticsModule>(window)->measure(QRect(3, 4, 50, 40)));
        QVERIFY(waitIdle(window));
        QVERIFY(runTrace(window, {QPointF(5, 5), QPointF(100, 80)}));
        // The trace field's record comes from the worker: wait for it rather than for a fixed time.
        QTRY_VERIFY_WITH_TIMEOUT(window.context().timingLog()->records().size() >= 4, 30000);
        const std::vector<RunRecord>& records = window.context().timingLog()->records();
        QVERIFY(window.exports()->timingReportAction()->isEnabled());
        QCOMPARE(window.timingDock()->exportButton()->defaultAction(), window.exports()->timingReportAction());

        const QString base = QDir(dir_).filePath(QStringLiteral("timing"));
        QVERIFY2(window.exports()->exportTimingReport(base + QStringLiteral(".html")),
                 qPrintable(window.exports()->lastError()));
        QCOMPARE(window.exports()->lastWritten(),
                 QStringList(
                     {base + QStringLiteral(".html"), base + QStringLiteral(".json"), base + QStringLiteral(".csv")}));
        const QByteArray html = readAll(base + QStringLiteral(".html"));
        const QJsonObject json = QJsonDocument::fromJson(readAll(base + QStringLiteral(".json"))).object();
        const QList<QByteArray> csv = readAll(base + QStringLiteral(".csv")).trimmed().split('\n');
        const QJsonArray rows = json[QStringLiteral("rows")].toArray();
        QCOMPARE(rows.size(), static_cast<qsizetype>(records.size()));
        QCOMPARE(csv.size(), static_cast<qsizetype>(records.size()) + 1);
        for (std::size_t i = 0; i < records.size(); ++i) {
            const RunRecord& r = records[i];
            const QJsonObject row = rows[static_cast<qsizetype>(i)].toObject();
            QCOMPARE(row[QStringLiteral("algorithm")].toString(), r.algorithm);
            QCOMPARE(row[QStringLiteral("backend")].toString(), r.backend);
            const QJsonObject timing = row[QStringLiteral("timing_ms")].toObject();
            QCOMPARE(timing[QStringLiteral("total")].toDouble(), r.totalMs);
            QVERIFY(html.contains(QByteArray("data-ms=\"") + glint::formatNumber(r.totalMs).c_str() + '"'));
            QVERIFY(!r.steps.empty());
            QMap<QString, double> last; // a JSON object keeps one value per name: the last
            for (const TimingStep& s : r.steps)
                last[QString::fromStdString(s.name)] = s.ms;
            for (auto it = last.cbegin(); it != last.cend(); ++it) {
                QCOMPARE(timing[QStringLiteral("steps")].toObject()[it.key()].toDouble(), it.value());
                QVERIFY2(html.contains(it.key().toUtf8()), qPrintable(it.key()));
                QVERIFY(csv.first().contains("step:" + it.key().toUtf8()));
            }
            for (const TimingStep& s : r.steps)
                QVERIFY2(html.contains(QByteArray("data-ms=\"") + glint::formatNumber(s.ms).c_str() + '"'),
                         s.name.c_str());
        }
        // The cpu run of the brightest region is compared with the reference run of the same case.
        QVERIFY(rows[0].toObject()[QStringLiteral("speedup_vs_reference")].isDouble());
        QVERIFY(html.contains("<svg"));
        QVERIFY(!html.contains("<script"));
    }

    // Exports to a place that cannot be written (a path through a plain file: tests run as root, so a
    // read-only folder would not stop them): false, the message in the status bar, nothing left behind.
    void unwritablePlace() {
        MainWindow window({false, false});
        brightest::showWindow(window);
        QVERIFY(openAndWait(window, brightest::writeMatrix(scene(80, 60, 19), QStringLiteral("unwritable.csv"))));
        QString message;
        QVERIFY(runBrightest(window, 1, QStringLiteral("mean"), QStringLiteral("cpu"), &message));
        const QString folder = QDir(dir_).filePath(QStringLiteral("unwritable"));
        QVERIFY(QDir().mkpath(folder));
        QFile blocker(QDir(folder).filePath(QStringLiteral("plain")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.write("not a folder");
        blocker.close();
        const QString inside = QDir(blocker.fileName()).filePath(QStringLiteral("out"));
        ExportActions* e = window.exports();
        const QVector<ExportableResults> sets = visibleResults(e->results());
        const QList<std::function<bool()>> attempts = {
            [&] { return e->exportViewPng(inside + QStringLiteral(".png")); },
            [&] { return e->exportViewSvg(inside + QStringLiteral(".svg")); },
            [&] { return e->exportResults(sets, resultFilesFor(inside, sets)); },
            [&] { return e->exportTimingReport(inside); },
        };
        for (const auto& attempt : attempts) {
            QSignalSpy failed(e, &ExportActions::exportFailed);
            QVERIFY(!attempt());
            QCOMPARE(failed.count(), 1);
            QVERIFY(!e->lastError().isEmpty());
            QVERIFY2(e->lastError().contains(inside), qPrintable(e->lastError()));
            QCOMPARE(window.statusBar()->currentMessage(), ui::asSentence(e->lastError())); // shown as a sentence
            QCOMPARE(folderEntries(folder), QStringList{QStringLiteral("plain")});
            QCOMPARE(readAll(blocker.fileName()), QByteArray("not a folder"));
        }
        QVERIFY_THROWS_EXCEPTION(glint::OutputError, window.sessions()->save(inside + QStringLiteral(".json")));
        QCOMPARE(folderEntries(folder), QStringList{QStringLiteral("plain")});

        // A full disk, as the file size limit makes one: the same, and an older file of that name stays.
        const QString full = QDir(folder).filePath(QStringLiteral("full"));
        QFile older(full + QStringLiteral(".png"));
        QVERIFY(older.open(QIODevice::WriteOnly));
        older.write("older");
        older.close();
        rlimit saved{};
        QCOMPARE(getrlimit(RLIMIT_FSIZE, &saved), 0);
        const auto previous = std::signal(SIGXFSZ, SIG_IGN); // a write past the limit fails instead of killing us
        rlimit small = saved;
        small.rlim_cur = 2048;
        QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
        const bool png = e->exportViewPng(full + QStringLiteral(".png"));
        const bool svg = e->exportViewSvg(full + QStringLiteral(".svg"));
        const bool timing = e->exportTimingReport(full);
        setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, previous);
        QVERIFY(!png && !svg && !timing);
        QCOMPARE(folderEntries(folder), QStringList({QStringLiteral("full.png"), QStringLiteral("plain")}));
        QCOMPARE(readAll(full + QStringLiteral(".png")), QByteArray("older"));
    }

    // In an interactive window the failure is a message box naming the file.
    void unwritablePlaceShowsABox() {
        MainWindow window({false, true});
        QVERIFY(showImage(window, scene(40, 30, 23)));
        QFile blocker(QDir(dir_).filePath(QStringLiteral("blocker")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        QString shown;
        QTimer poll;
        connect(&poll, &QTimer::timeout, this, [&] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                shown = box->text();
                box->accept();
            }
        });
        poll.start(20);
        QVERIFY(!window.exports()->exportViewPng(QDir(blocker.fileName()).filePath(QStringLiteral("view.png"))));
        poll.stop();
        QVERIFY2(shown.contains(QStringLiteral("view.png")), qPrintable(shown));
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
        auto* m = module<BrightestModule>(window);
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

GLINT_GUI_TEST_MAIN(TestGuiExport)
#include "test_gui_export.moc"
