// Issue 32, "width along the path (measured from the profile) reported": measureTraceWidth (TraceWidth.h) on
// synthetic roads and rivers of known widths along their true centre lines, on a real road of aero.png through
// glint-cli trace (JSON width_px per leg and per trace), and the --network layer's width equal to the JSON's.
#include "tests/support/TestSupport.h"

#include "core/algo/trace/TraceWidth.h"
#include "core/util/Errors.h"
#include "scenes/TraceScenes.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

using namespace glint;

class TestTraceWidth : public QObject {
    Q_OBJECT
private slots:
    // Roads (bright) and rivers (dark) of 2, 5, 10 and 20 px: the mean and median width along the centre line
    // within 15 % of the true width, with the scene's polarity and with "both" (resolved at the clicks).
    void synthetic_data() {
        test::columns<double, bool>({"width", "bright"});
        for (double w : {2.0, 5.0, 10.0, 20.0})
            for (bool bright : {true, false}) QTest::addRow("%s %g", bright ? "road" : "river", w) << w << bright;
    }
    void synthetic() {
        QFETCH(double, width);
        QFETCH(bool, bright);
        const TraceScene scene =
            makeTraceScene(bright ? TraceSceneKind::BrightRoad : TraceSceneKind::DarkRiver, width, 7u);
        // The path: the true centre line between the clicks, as one leg (the trace itself is tested elsewhere).
        TraceResult result;
        TraceLeg leg;
        leg.from = scene.trueFrom;
        leg.to = scene.trueTo;
        leg.points = scene.centre;
        result.legs = {leg};
        for (TracePolarity polarity : {bright ? TracePolarity::Bright : TracePolarity::Dark, TracePolarity::Both}) {
            const TraceWidth w = measureTraceWidth(scene.image, result, polarity);
            QCOMPARE(w.polarity, bright ? TracePolarity::Bright : TracePolarity::Dark);
            QCOMPARE(w.legs.size(), std::size_t(1));
            QVERIFY(w.legs[0].samples >= 10);
            QVERIFY(w.legs[0].widths.size() * 10 >= static_cast<std::size_t>(w.legs[0].samples) * 9);
            QVERIFY(w.meanPx && w.medianPx && w.legs[0].meanPx);
            const QString got = QString("mean %1 median %2").arg(*w.meanPx).arg(*w.medianPx);
            qInfo("%s %g px: %s (%d of %d samples)", bright ? "road" : "river", width, qPrintable(got),
                  static_cast<int>(w.legs[0].widths.size()), w.legs[0].samples);
            QVERIFY2(std::abs(*w.meanPx - width) <= 0.15 * width, qPrintable(got));
            QVERIFY2(std::abs(*w.medianPx - width) <= 0.15 * width, qPrintable(got));
            QCOMPARE(*w.legs[0].meanPx, *w.meanPx);
        }
    }

    // An empty image is refused.
    void emptyImage() {
        TraceResult result;
        TraceLeg leg;
        leg.from = {5, 5};
        leg.to = {60, 40};
        leg.points = {leg.from, leg.to};
        result.legs = {leg};
        QVERIFY_THROWS_EXCEPTION(InputError, measureTraceWidth(Image(), result, TracePolarity::Bright));
    }

    // aero.png's 5-px bright road (east; tests/data/trace-real/README.md) traced from two clicks with the
    // defaults: the width within 25 % of 5 px; the --network layer (GeoJSON) carries the JSON's width.
    void realRoad() {
        const QString aero = QStringLiteral(GLINT_SOURCE_DIR) + "/resources/samples/aero.png";
        const QString dir = test::tempDir() + "/trace-width";
        QDir(dir).removeRecursively();
        QDir().mkpath(dir);
        const QString network = dir + "/road.geojson";
        // The case "road-east 0-0.97" of tests/data/trace-real/cases.json.
        const QStringList args{"trace", aero, "--from", "340.1,449.8", "--to", "506.8,446.3", "--json", "-"};
        const QJsonObject doc = test::runCliJson(args);
        const double width = doc["width_px"].toDouble();
        qInfo("aero road-east (5 px): width_px %g, median %g, leg samples %d found %d", width,
              doc["width_median_px"].toDouble(), doc["legs"][0]["width_samples"].toInt(),
              doc["legs"][0]["width_found"].toInt());
        QCOMPARE(doc["width_polarity"].toString(), QString("bright"));
        QVERIFY2(std::abs(width - 5.0) <= 0.25 * 5.0, qPrintable(QString::number(width)));
        QVERIFY(std::abs(doc["width_median_px"].toDouble() - 5.0) <= 0.25 * 5.0);
        QCOMPARE(doc["legs"][0]["width_px"].toDouble(), width); // one leg: the trace's mean is the leg's
        QVERIFY(!doc.contains("map_width")); // a PNG has no georeference

        const test::CliResult r = test::runCli(QStringList(args) << "--network" << network);
        if (r.exitCode != 0 && r.err.contains("GDAL")) QSKIP("this build has no GDAL for --network");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QFile file(network);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject layer = QJsonDocument::fromJson(file.readAll()).object();
        const QJsonObject props = layer["features"].toArray().at(0).toObject()["properties"].toObject();
        QVERIFY2(std::abs(props["width_px"].toDouble() - width) <= 1e-9 * width, qPrintable(QString::number(props["width_px"].toDouble())));
        // Pixel frame: the width in the unit of length is the width in pixels.
        QVERIFY(std::abs(props["width"].toDouble() - width) <= 1e-9 * width);
    }
};

QTEST_GUILESS_MAIN(TestTraceWidth)
#include "test_trace_width.moc"
