// Issue 32, "width along the path (measured from the profile) reported": measureTraceWidth (TraceWidth.h) on
// synthetic roads and rivers of known widths along their true centre lines, a road whose width changes along
// it, a narrow road on a broad bright verge, the real evaluation set (aero.png, widths read by eye), a real road
// through glint-cli trace (JSON width_px per leg and per trace, width_along), and the --network layer's width
// equal to the JSON's.
#include "tests/support/TestSupport.h"

#include "core/algo/trace/TraceWidth.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"
#include "scenes/TraceRealCases.h"
#include "scenes/TraceScenes.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <random>

using namespace glint;

namespace {

TraceResult oneLeg(std::vector<TracePoint> points) {
    TraceResult result;
    TraceLeg leg;
    leg.from = points.front();
    leg.to = points.back();
    leg.points = std::move(points);
    result.legs = {leg};
    return result;
}

// A horizontal bar at row cy on a noisy background: its half-width at column x is halfWidth(x); `verge` (when
// > 0) adds a wider plateau of half-width verge and value `vergeValue` under it. Edges are anti-aliased by
// coverage (4x4 supersampling).
template <class F>
Image barImage(int w, int h, double cy, F halfWidth, double bar, double background, double verge = 0.0,
               double vergeValue = 0.0, unsigned seed = 3) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0.0, 3.0);
    std::vector<float> px(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double v = 0.0;
            for (int sy = 0; sy < 4; ++sy)
                for (int sx = 0; sx < 4; ++sx) {
                    const double fx = x - 0.375 + 0.25 * sx, fy = y - 0.375 + 0.25 * sy;
                    const double d = std::abs(fy - cy);
                    v += d <= halfWidth(fx) ? bar : (verge > 0.0 && d <= verge) ? vergeValue : background;
                }
            px[static_cast<std::size_t>(y) * w + x] = static_cast<float>(v / 16.0 + noise(rng));
        }
    return Image::fromSamples(w, h, std::move(px));
}

} // namespace

class TestTraceWidth : public QObject {
    Q_OBJECT
private slots:
    // Roads (bright) and rivers (dark) of 2, 5, 10 and 20 px: the median width along the centre line within 5 %
    // of the true width and the mean within 8 %, with the scene's polarity and with "both" (resolved at the clicks).
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
        const TraceResult result = oneLeg(scene.centre);
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
            QVERIFY2(std::abs(*w.meanPx - width) <= 0.08 * width, qPrintable(got));
            QVERIFY2(std::abs(*w.medianPx - width) <= 0.05 * width, qPrintable(got));
            QCOMPARE(*w.legs[0].meanPx, *w.meanPx);
        }
    }

    // A road widening from 3 to 15 px along its 300 px: each sample's width within 1 px or 12 % of the road's
    // width there (the width is reported along the path, not only as one figure), and the samples in order.
    void alongThePath() {
        const auto half = [](double x) { return 0.5 * (3.0 + 12.0 * std::clamp((x - 40.0) / 300.0, 0.0, 1.0)); };
        const Image image = barImage(380, 120, 60.3, half, 180.0, 60.0);
        const TraceWidth w = measureTraceWidth(image, oneLeg({{40, 60.3}, {340, 60.3}}), TracePolarity::Bright);
        QCOMPARE(w.legs.size(), std::size_t(1));
        const TraceLegWidth& leg = w.legs[0];
        QCOMPARE(leg.samples, 76); // every 4 px over 300 px, both ends
        QCOMPARE(static_cast<int>(leg.along.size()), leg.samples);
        int found = 0;
        for (std::size_t i = 0; i < leg.along.size(); ++i) {
            const TraceWidthSample& s = leg.along[i];
            QVERIFY(i == 0 || s.arc > leg.along[i - 1].arc);
            QVERIFY(std::abs(s.x - (40.0 + s.arc)) < 1e-9 && std::abs(s.y - 60.3) < 1e-9);
            if (!s.width) continue;
            ++found;
            const double truth = 2.0 * half(s.x);
            QVERIFY2(std::abs(*s.width - truth) <= std::max(1.0, 0.12 * truth),
                     qPrintable(QString("at x %1: width %2, truth %3").arg(s.x).arg(*s.width).arg(truth)));
        }
        QVERIFY(found >= 72);
    }

    // A 3-px road down the middle of a 40-px bright verge (a road with its shoulders, a path on a dyke): the
    // road's width, not the verge's; with the road dimmed to the verge's level only the verge is there to measure.
    void roadOnVerge() {
        const auto half = [](double) { return 1.5; };
        const Image road = barImage(300, 160, 80.0, half, 170.0, 50.0, 20.0, 110.0);
        const TraceWidth w = measureTraceWidth(road, oneLeg({{20, 80}, {280, 80}}), TracePolarity::Bright);
        QVERIFY(w.medianPx);
        QVERIFY2(std::abs(*w.medianPx - 3.0) <= 0.6, qPrintable(QString::number(*w.medianPx)));
        const Image verge = barImage(300, 160, 80.0, half, 110.0, 50.0, 20.0, 110.0);
        const TraceWidth v = measureTraceWidth(verge, oneLeg({{20, 80}, {280, 80}}), TracePolarity::Bright);
        QVERIFY(v.medianPx);
        QVERIFY2(std::abs(*v.medianPx - 40.0) <= 2.0, qPrintable(QString::number(*v.medianPx)));
    }

    // A path along the image's edge or through blank pixels: samples whose profile leaves the image before the
    // bar's flanks are skipped, never read outside; a path entirely outside the feature finds nothing wider than
    // the image allows.
    void edgesAndBlanks() {
        const auto half = [](double) { return 2.5; };
        const Image image = barImage(200, 40, 2.0, half, 180.0, 60.0);
        const TraceWidth w = measureTraceWidth(image, oneLeg({{10, 2}, {190, 2}}), TracePolarity::Bright);
        for (const TraceWidthSample& s : w.legs[0].along)
            if (s.width) QVERIFY(*s.width < 40.0);
        std::vector<double> values(100 * 100, 5.0);
        std::vector<std::uint8_t> blank(values.size(), 0);
        for (int y = 0; y < 100; ++y)
            for (int x = 45; x < 55; ++x) blank[static_cast<std::size_t>(y) * 100 + x] = 1;
        Image blanks = Image::fromSamples(100, 100, std::move(values));
        blanks.setBlankMask(std::move(blank));
        const TraceWidth b = measureTraceWidth(blanks, oneLeg({{50, 10}, {50, 90}}), TracePolarity::Dark);
        QCOMPARE(b.legs[0].widths.size(), std::size_t(0)); // the path lies on blank pixels
        QVERIFY(!b.medianPx && !b.meanPx);
    }

    // The real evaluation set (tests/data/trace-real, widths read by eye): along the --preset auto traces at
    // least 26 of the 31 cases within 25 % (1 px under 4 px) and a median error of at most 10 % (measured: 27/31,
    // 3 %; the misses are the gully and a tree belt, whose edges are themselves unclear, and a trace starting
    // where the curved road merges with the wide one).
    void realSet() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PNG (aero.png)");
        const TraceRealSet set = loadTraceRealSet(GLINT_SOURCE_DIR);
        const Image image = loadImage(set.imagePath);
        const TraceRealWidths w = evaluateTraceRealWidths(image, set.cases, Backend::Cpu);
        for (const TraceRealWidthCase& c : w.cases)
            qInfo("%-26s truth %5.1f px, along the trace %6.2f px (%d of %d samples), along the centre line %6.2f px",
                  c.name.c_str(), c.truth, c.trace, c.found, c.samples, c.centreLine);
        qInfo("within %d of %zu, median error %.3f", w.within, w.cases.size(), w.medianError);
        QCOMPARE(w.cases.size(), std::size_t(31));
        QVERIFY(w.within >= 26);
        QVERIFY(w.medianError <= 0.10);
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
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PNG (aero.png)");
        const QString dir = test::tempDir() + "/trace-width";
        QDir(dir).removeRecursively();
        QDir().mkpath(dir);
        const QString network = dir + "/road.geojson";
        // The case "road-east 0-0.97" of tests/data/trace-real/cases.json.
        const QStringList args{"trace", aero, "--from", "340.1,449.8", "--to", "506.8,446.3", "--json", "-"};
        const QJsonObject doc = test::runCliJson(args);
        const double width = doc["width_px"].toDouble();
        const QJsonObject leg = doc["legs"][0].toObject();
        qInfo("aero road-east (5 px): width_px %g, mean %g, leg samples %d found %d", width,
              doc["width_mean_px"].toDouble(), leg["width_samples"].toInt(), leg["width_found"].toInt());
        QCOMPARE(doc["width_polarity"].toString(), QString("bright"));
        QVERIFY2(std::abs(width - 5.0) <= 0.1 * 5.0, qPrintable(QString::number(width)));
        QVERIFY(std::abs(doc["width_mean_px"].toDouble() - 5.0) <= 0.15 * 5.0);
        QCOMPARE(leg["width_px"].toDouble(), width); // one leg: the trace's median is the leg's
        // width_along: [arc px, width px or null] per sample, every 4 px from 0 to the leg's length.
        const QJsonArray along = leg["width_along"].toArray();
        QCOMPARE(along.size(), leg["width_samples"].toInt());
        QVERIFY(along.size() >= 40);
        QCOMPARE(along.first().toArray().at(0).toDouble(), 0.0);
        int found = 0;
        for (int i = 0; i < along.size(); ++i) {
            const QJsonArray s = along.at(i).toArray();
            QVERIFY(i == 0 || s.at(0).toDouble() > along.at(i - 1).toArray().at(0).toDouble());
            found += s.at(1).isDouble() ? 1 : 0;
        }
        QCOMPARE(found, leg["width_found"].toInt());
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

GLINT_BACKEND_TEST_MAIN(TestTraceWidth)
#include "test_trace_width.moc"
