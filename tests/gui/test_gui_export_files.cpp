// Exports of results from the window: result files equal to what glint-cli writes for the same analysis
// (DS9, GeoJSON, CSV, the component mask); all visible results or one chosen set; the GeoJSON's coordinates
// of a georeferenced image; the timing report with every step; and exports to a place that cannot be
// written: a message, no file, no temporary.
#include "tests/gui/test_gui_export_support.h"

#include "ui/docks/TimingDock.h"
#include "core/export/CsvTable.h"
#include "core/io/Georef.h"
#include "ui/export/ExportResultsDialog.h"
#include "ui/export/TimingExport.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QStatusBar>
#include <QTimer>
#include <QToolButton>

#include <cmath>
#include <csignal>
#include <functional>
#include <sys/resource.h>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::exports;

class TestGuiExportFiles : public QObject {
    Q_OBJECT

    QString dir_;

private slots:
    void initTestCase() {
        dir_ = test::tempDir();
    }

    // The region files the window writes for a brightest run are the files glint-cli writes for the same
    // file and parameters: image coordinates for a text matrix, fk5 for the FITS sample with its WCS.
    void regionFilesEqualTheCli_data() {
        test::columns<QString, int, QString>({"file", "k", "pivot"});
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
        QCOMPARE(all[0].title, test::findModule<TraceModule>(window)->name());
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
        test::findModule<TraceModule>(window)->layer()->setVisible(false);
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
        const BrightestRegion& r = test::findModule<BrightestModule>(window)->lastResults().front().regions.front();
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
        QVERIFY(test::findModule<RegionStatisticsModule>(window)->measure(QRect(3, 4, 50, 40)));
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
};

GLINT_GUI_TEST_MAIN(TestGuiExportFiles)
#include "test_gui_export_files.moc"
