// Window = CLI (issue 29): the window's first answer on an image is what `glint-cli ... --preset auto` prints for
// it. On the bundled samples and on real files of each kind (a sky frame, a CT slice), the brightest regions of the
// window's first run (Ctrl+B right after opening, nothing changed) equal the CLI's region for region, sums to the
// bit; the window's first trace with its default settings equals `glint-cli trace --preset auto` with the same
// clicks (also with the ridge score and width auto, measured at the first click in both); the common component with
// the window's defaults equals `glint-cli common --preset auto`.
#include "tests/gui/test_gui_brightest_support.h"

#include "core/params/ImageKind.h"
#include "ui/modules/CommonComponentModule.h"
#include "ui/modules/CommonComponentPanel.h"
#include "ui/modules/TraceModule.h"
#include "ui/modules/TracePanel.h"
#include "ui/params/SpecForm.h"
#include "ui/session/SessionJson.h"

#include <QComboBox>
#include <QImage>
#include <QJsonArray>

using namespace glint::test::brightest;

namespace {

QPoint widgetAt(const ImageCanvas* canvas, QPointF image) { return canvas->view().imageToWidget(image).toPoint(); }
QPointF imageAt(const ImageCanvas* canvas, QPoint widget) { return canvas->view().widgetToImage(QPointF(widget)); }

QString point(QPointF p) { return formatExact(p.x()) + QLatin1Char(',') + formatExact(p.y()); }

// The path or sample a row names: "sample:NAME" (resources/samples) or a file the real_data fixture fetched.
QString pathOf(const QString& source) {
    if (source.startsWith(QLatin1String("sample:"))) return test::samplePath(source.mid(7));
    return test::fetchedPath(source);
}

} // namespace

class TestGuiPresets : public QObject {
    Q_OBJECT

private slots:
    void brightestFirstRun_data() {
        // kind: what the image is recognised as, by the window and by --preset auto
        test::columns<QString, QString>({"source", "kind"});
        QTest::newRow("bundled sky frame") << QStringLiteral("sample:ngc1316o.fit") << QStringLiteral("sky");
        QTest::newRow("bundled mammogram") << QStringLiteral("sample:synthetic-mammogram.png") << QStringLiteral("mammogram");
        QTest::newRow("bundled aerial photograph") << QStringLiteral("sample:aero.png") << QStringLiteral("other");
        QTest::newRow("real sky frame (HST, 47 Tuc)") << QStringLiteral("j8bt06nyq_flt.fits") << QStringLiteral("sky");
        QTest::newRow("real CT slice (DICOM)") << QStringLiteral("CT_small.dcm") << QStringLiteral("other");
    }
    void brightestFirstRun() {
        QFETCH(QString, source);
        QFETCH(QString, kind);
        if (!GLINT_WITH_IMGCODECS && source.endsWith(QLatin1String(".png"))) QSKIP("this build reads no PNG files");
        const QString path = pathOf(source);
        if (path.isEmpty() || !QFile::exists(path)) QSKIP(qPrintable(source + QStringLiteral(" is missing")));
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, path));
        BrightestModule* module = findModule(window);
        QVERIFY(waitForAutoExclusion(module)); // a mammogram's shapes are part of its first answer
        QCOMPARE(QString::fromLatin1(imageKindName(classifyImage(*window.context().image()).kind)), kind);
        QAction* kBrightest = nullptr;
        for (QAction* a : module->actions())
            if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_B)) kBrightest = a;
        QVERIFY(kBrightest);
        QString message;
        QVERIFY2(runAndWait(module, [&] { kBrightest->trigger(); }, &message), qPrintable(message));
        const QVector<Region> shown = shownRegions(module->regionLayer(), module->model());
        QVERIFY(!shown.isEmpty());

        QString error;
        const QVector<Region> cli = cliRegions(path, {QStringLiteral("--preset"), QStringLiteral("auto")}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(sameRegions(shown, cli), qPrintable(QStringLiteral("window: %1\ncli:    %2").arg(describe(shown), describe(cli))));
        // The run's resolved parameters are the CLI's too (what a session records and --params replays).
        const test::CliResult run = test::runCli({QStringLiteral("brightest"), path, QStringLiteral("--preset"), QStringLiteral("auto"),
                                                  QStringLiteral("--json"), QStringLiteral("-")});
        const QJsonObject cliParameters = QJsonDocument::fromJson(run.out).object()[QStringLiteral("parameters")].toObject();
        QCOMPARE(cliParameters[QStringLiteral("preset")].toString(), kind);
        QJsonObject windowParameters = sessionjson::fromJson(module->runs().back().parameters);
        QCOMPARE(windowParameters[QStringLiteral("preset")].toString(), kind);
        // The window lists a mammogram's automatic shapes as exclusions (editable), the CLI finds them itself:
        // the same shapes either way, so compare the rest.
        QJsonObject cliRest = cliParameters;
        for (const char* key : {"exclude", "exclude_polygon", "auto_exclude"}) {
            windowParameters.remove(QLatin1String(key));
            cliRest.remove(QLatin1String(key));
        }
        QCOMPARE(windowParameters, cliRest);
    }

    void traceFirstRun_data() {
        // score: empty: the window's default
        test::columns<QString, QString, QPolygonF>({"source", "score", "clicks"});
        QTest::newRow("aerial road, defaults") << QStringLiteral("sample:aero.png") << QString()
                                               << QPolygonF{{4, 431}, {150, 453}, {300, 506}};
        QTest::newRow("aerial road, ridge, width auto")
            << QStringLiteral("sample:aero.png") << QStringLiteral("ridge") << QPolygonF{{4, 431}, {150, 453}, {300, 506}};
        QTest::newRow("mammogram skin line, defaults") << QStringLiteral("sample:synthetic-mammogram.png") << QString()
                                                       << QPolygonF{{385, 6}, {640, 190}, {688, 500}};
        QTest::newRow("sky frame, defaults") << QStringLiteral("sample:ngc1316o.fit") << QString()
                                             << QPolygonF{{60, 60}, {380, 240}};
    }
    void traceFirstRun() {
        QFETCH(QString, source);
        QFETCH(QString, score);
        QFETCH(QPolygonF, clicks);
        if (!GLINT_WITH_IMGCODECS && source.endsWith(QLatin1String(".png"))) QSKIP("this build reads no PNG files");
        const QString path = pathOf(source);
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, path));
        auto* m = test::findModule<TraceModule>(window);
        QVERIFY(m);
        if (!score.isEmpty()) {
            window.parametersDock()->showPanel(m->name());
            auto* box = window.parametersDock()->findChild<QComboBox*>(QStringLiteral("score"));
            QVERIFY(box);
            box->setCurrentIndex(box->findData(score));
            QVERIFY(m->settings().autoWidth); // the window's default width: measured at the first click
        }
        m->actions().first()->trigger();
        ImageCanvas* canvas = window.canvas();
        QStringList args{QStringLiteral("trace"), path, QStringLiteral("--preset"), QStringLiteral("auto")};
        if (!score.isEmpty()) args << QStringLiteral("--score") << score;
        for (qsizetype i = 0; i < clicks.size(); ++i) {
            const QPoint w = widgetAt(canvas, clicks[i]);
            QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w);
            // The point the window was given (the canvas's pixel under the click), at full precision for the CLI.
            const QString at = point(imageAt(canvas, w));
            args << (i == 0 ? QStringLiteral("--from") : i + 1 == clicks.size() ? QStringLiteral("--to") : QStringLiteral("--via")) << at;
        }
        QTest::keyClick(canvas, Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(m->traces().size() == 1, 120000);
        const std::vector<TracePoint> shown = m->traces().front().result.polyline();

        args << QStringLiteral("--json") << QStringLiteral("-");
        const test::CliResult run = test::runCli(args);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        const QJsonArray points = doc[QStringLiteral("points")].toArray();
        QCOMPARE(static_cast<std::size_t>(points.size()), shown.size());
        for (std::size_t i = 0; i < shown.size(); ++i) {
            const QJsonArray p = points[static_cast<qsizetype>(i)].toArray();
            QVERIFY2(p[0].toDouble() == shown[i].x && p[1].toDouble() == shown[i].y,
                     qPrintable(QStringLiteral("point %1: window %2,%3, cli %4,%5")
                                    .arg(i).arg(shown[i].x, 0, 'g', 17).arg(shown[i].y, 0, 'g', 17)
                                    .arg(p[0].toDouble(), 0, 'g', 17).arg(p[1].toDouble(), 0, 'g', 17)));
        }
        // The width the window measured is the CLI's (both at the first click).
        const QJsonObject cliParameters = doc[QStringLiteral("parameters")].toObject();
        const QJsonObject windowParameters = sessionjson::fromJson(m->traces().front().request);
        QCOMPARE(windowParameters[QStringLiteral("width")].toDouble(), cliParameters[QStringLiteral("width")].toDouble());
        QCOMPARE(windowParameters[QStringLiteral("guides")], cliParameters[QStringLiteral("guides")]);
        QCOMPARE(windowParameters[QStringLiteral("snap")], cliParameters[QStringLiteral("snap")]);
    }

    void commonFirstRun() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PNG files");
        // Two overlapping crops of the aerial photograph, B brightened: the window's defaults map B onto A.
        const QImage aero(test::samplePath(QStringLiteral("aero.png")));
        QVERIFY(!aero.isNull());
        const QImage gray = aero.convertToFormat(QImage::Format_Grayscale8);
        QImage b = gray.copy(40, 30, 200, 160);
        for (int y = 0; y < b.height(); ++y)
            for (int x = 0; x < b.width(); ++x) b.scanLine(y)[x] = static_cast<uchar>(std::min(255, b.scanLine(y)[x] / 2 + 20));
        const QString pathA = QDir(test::tempDir()).filePath(QStringLiteral("presets-a.png"));
        const QString pathB = QDir(test::tempDir()).filePath(QStringLiteral("presets-b.png"));
        QVERIFY(gray.copy(0, 0, 260, 220).save(pathA) && b.save(pathB));

        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, pathA));
        auto* m = test::findModule<CommonComponentModule>(window);
        QVERIFY(m);
        m->openSecondImage(pathB);
        QTRY_VERIFY_WITH_TIMEOUT(m->secondImage() != nullptr, 30000);
        QSignalSpy shown(m, &CommonComponentModule::resultShown);
        QVERIFY(m->run());
        QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), 120000);
        const CommonComponentResult& r = *m->result();
        QVERIFY(r.found);

        const test::CliResult run = test::runCli({QStringLiteral("common"), pathA, pathB, QStringLiteral("--preset"), QStringLiteral("auto"),
                                                  QStringLiteral("--json"), QStringLiteral("-")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc[QStringLiteral("parameters")].toObject()[QStringLiteral("normalize")].toString(), QStringLiteral("linear"));
        QCOMPARE(doc[QStringLiteral("offset")].toObject()[QStringLiteral("dx")].toInt(), r.dx);
        QCOMPARE(doc[QStringLiteral("offset")].toObject()[QStringLiteral("dy")].toInt(), r.dy);
        QCOMPARE(static_cast<std::uint64_t>(doc[QStringLiteral("size")].toDouble()), r.size);
    }
};

GLINT_GUI_TEST_MAIN(TestGuiPresets)
#include "test_gui_presets.moc"
