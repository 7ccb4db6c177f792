// glint-cli trace: the JSON contract (points, score, segment_scores, legs with --via), the overlay, and
// exit codes with one clear line on stderr for bad input.
#include "tests/support/TestSupport.h"

#include "core/algo/trace/TraceAlgorithm.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

#include <fitsio.h>

using namespace glint;

class TestTraceCli : public QObject {
    Q_OBJECT

    QString image_;

private slots:
    // A 90 x 60 CSV matrix with a bright curved line across it.
    void initTestCase() {
        image_ = test::tempDir() + "/line.csv";
        QFile f(image_);
        QVERIFY(f.open(QIODevice::WriteOnly));
        for (int y = 0; y < 60; ++y) {
            QStringList row;
            for (int x = 0; x < 90; ++x)
                row << QString::number(std::fabs(y - 30 - 8 * std::sin(x / 14.0)) < 2.0 ? 200 : 20 + (x * 7 + y * 3) % 11);
            f.write(row.join(',').toUtf8() + "\n");
        }
    }

    // --hdu, --plane and --frame reach trace (and common) as they reach brightest: a FITS file with a
    // horizontal line at y 12 in its primary HDU and at y 47 in its extension traces the line of the HDU
    // asked for.
    void hduOption() {
        const QByteArray path = (test::tempDir() + "/two-hdus.fits").toUtf8();
        fitsfile* f = nullptr;
        int status = 0;
        fits_create_file(&f, ("!" + path).constData(), &status);
        long axes[2] = {80, 60};
        for (int lineY : {12, 47}) {
            std::vector<float> pixels(80 * 60);
            for (int y = 0; y < 60; ++y)
                for (int x = 0; x < 80; ++x) pixels[static_cast<std::size_t>(y) * 80 + x] = std::abs(y - lineY) <= 1 ? 100.0f : 1.0f + (x * 7 + y * 3) % 5;
            fits_create_img(f, FLOAT_IMG, 2, axes, &status);
            fits_write_img(f, TFLOAT, 1, static_cast<LONGLONG>(pixels.size()), pixels.data(), &status);
        }
        fits_close_file(f, &status);
        QCOMPARE(status, 0);
        for (int hdu : {0, 1}) {
            const auto r = test::runCli({"trace", QString::fromUtf8(path), "--hdu", QString::number(hdu), "--from", "4,30",
                                         "--to", "75,30", "--half-width", "28", "--score", "ridge", "--width", "3",
                                         "--backend", "cpu", "--json", "-"});
            QCOMPARE(r.exitCode, 0);
            const QJsonArray points = QJsonDocument::fromJson(r.out).object()["points"].toArray();
            QVERIFY(points.size() > 4);
            const double midY = points[points.size() / 2].toArray()[1].toDouble();
            QVERIFY2(std::fabs(midY - (hdu == 0 ? 12 : 47)) <= 1.5, qPrintable(QString::number(midY)));
        }
        const auto bad = test::runCli({"trace", QString::fromUtf8(path), "--hdu", "5", "--from", "4,30", "--to", "75,30"});
        QCOMPARE(bad.exitCode, 3);
        const auto common = test::runCli({"common", QString::fromUtf8(path), QString::fromUtf8(path), "--hdu", "1",
                                          "--max-shift", "2", "--backend", "cpu", "--json", "-"});
        QCOMPARE(common.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(common.out).object()["size"].toInteger(), 80 * 60);
    }

    void json() {
        auto onLine = [](double x) { return QString("%1,%2").arg(x).arg(30 + 8 * std::sin(x / 14.0), 0, 'g', 17); };
        const auto r = test::runCli({"trace", image_, "--from", onLine(5), "--to", onLine(84.5), "--via", onLine(45.5),
                                     "--guides", "4", "--points", "40", "--score", "ridge", "--polarity", "bright",
                                     "--backend", "cpu", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.err.isEmpty());
        QJsonParseError error;
        const QJsonObject doc = QJsonDocument::fromJson(r.out, &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(doc["algorithm"].toString(), QString("trace"));
        QCOMPARE(doc["backend"].toString(), QString("cpu"));
        QVERIFY(!doc["device"].toString().isEmpty());
        QVERIFY(doc["timing_ms"].toObject()["total"].toDouble() > 0.0);
        QVERIFY(doc["timing_ms"].toObject()["steps"].toObject().contains("segment scores"));
        const QJsonArray points = doc["points"].toArray();
        const QJsonArray scores = doc["segment_scores"].toArray();
        QCOMPARE(points.size(), 2 * 5 + 1); // two legs of 4 guides, the via point once
        QCOMPARE(scores.size(), 2 * 5);
        QCOMPARE(points[0].toArray()[0].toDouble(), 5.0);
        QCOMPARE(points[5].toArray()[0].toDouble(), 45.5);
        QCOMPARE(points[10].toArray()[0].toDouble(), 84.5);
        double sum = 0.0;
        for (const auto& s : scores) sum += s.toDouble();
        QVERIFY(std::fabs(sum - doc["score"].toDouble()) < 1e-9 * sum);
        QVERIFY(doc["score"].toDouble() > 0.0);
        QCOMPARE(doc["legs"].toArray().size(), 2);
        // The ridge trace stays near the drawn line's centre.
        for (const auto& p : points) {
            const double x = p.toArray()[0].toDouble(), y = p.toArray()[1].toDouble();
            QVERIFY2(std::fabs(y - 30 - 8 * std::sin(x / 14.0)) < 2.5, qPrintable(QString("point %1,%2").arg(x).arg(y)));
        }
    }

    // --guides auto: params.guides_auto; a leg that was refined (or tried) says how often and why, and its
    // guide count is its own (more than the first solve's when a finer solve was kept).
    void guidesAuto() {
        auto onLine = [](double x) { return QString("%1,%2").arg(x).arg(30 + 8 * std::sin(x / 14.0), 0, 'g', 17); };
        const auto r = test::runCli({"trace", image_, "--from", onLine(5), "--to", onLine(84.5), "--guides", "auto",
                                     "--points", "40", "--score", "ridge", "--polarity", "bright", "--backend", "cpu",
                                     "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc["params"].toObject()["guides_auto"].toBool(), true);
        QCOMPARE(doc["params"].toObject()["guides"].toInt(), 6);
        const QJsonObject leg = doc["legs"].toArray()[0].toObject();
        const int guides = static_cast<int>(leg["guide_indices"].toArray().size());
        if (leg.contains("refine_tries")) {
            QVERIFY(leg["refine_tries"].toInt() >= 1);
            QVERIFY(leg["refined"].toInt() <= leg["refine_tries"].toInt());
            QVERIFY(!leg["refine_reasons"].toArray().isEmpty());
            if (leg["refined"].toInt() > 0) QVERIFY(guides > 6);
        } else {
            QVERIFY(guides >= 6); // not refined: the first solve's guides (more if it widened)
        }
        const auto fixed = test::runCli({"trace", image_, "--from", onLine(5), "--to", onLine(84.5), "--points", "40",
                                         "--score", "ridge", "--polarity", "bright", "--backend", "cpu", "--json", "-"});
        QCOMPARE(fixed.exitCode, 0);
        const QJsonObject fixedDoc = QJsonDocument::fromJson(fixed.out).object();
        QCOMPARE(fixedDoc["params"].toObject()["guides_auto"].toBool(), false);
        QVERIFY(!fixedDoc["legs"].toArray()[0].toObject().contains("refine_tries"));
        // A refined leg is kept only when it scores higher per pixel.
        QVERIFY(leg["mean_score"].toDouble() >= fixedDoc["legs"].toArray()[0].toObject()["mean_score"].toDouble() * (1 - 1e-9));
    }

    // The objective, widening and confidence in the JSON: ratio by default (mean_score is what it
    // maximises, at least the sum objective's), --objective sum as the paper's; every leg says its length,
    // mean score, iterations, widenings, background and confidence; params name the objective.
    void objectiveJson() {
        const QStringList ab = {"--from", "5,30", "--to", "84,33", "--points", "48", "--score", "ridge", "--json", "-"};
        const auto ratio = test::runCli(QStringList{"trace", image_} + ab);
        const auto sum = test::runCli(QStringList{"trace", image_} + ab + QStringList{"--objective", "sum", "--widen", "0"});
        QCOMPARE(ratio.exitCode, 0);
        QCOMPARE(sum.exitCode, 0);
        const QJsonObject r = QJsonDocument::fromJson(ratio.out).object(), s = QJsonDocument::fromJson(sum.out).object();
        QCOMPARE(r["params"].toObject()["objective"].toString(), QString("ratio"));
        QCOMPARE(s["params"].toObject()["objective"].toString(), QString("sum"));
        QCOMPARE(s["params"].toObject()["max_widenings"].toInt(), 0);
        const QJsonObject rl = r["legs"].toArray()[0].toObject(), sl = s["legs"].toArray()[0].toObject();
        for (const char* key : {"length", "mean_score", "iterations", "widened", "background_score", "confidence"}) {
            QVERIFY2(rl.contains(key), key);
            QVERIFY2(sl.contains(key), key);
        }
        QVERIFY(std::fabs(rl["mean_score"].toDouble() - rl["score"].toDouble() / rl["length"].toDouble()) < 1e-9);
        QVERIFY(rl["mean_score"].toDouble() >= sl["mean_score"].toDouble() * (1 - 1e-9));
        QVERIFY(rl["iterations"].toInt() >= 1);
        QCOMPARE(sl["iterations"].toInt(), 1);
        QCOMPARE(sl["widened"].toInt(), 0);
        QVERIFY(rl["confidence"].toDouble() > 0.5 && rl["confidence"].toDouble() <= 1.0);
    }

    // --snap R moves the clicks onto the line (the given clicks stay in params.clicks); --width auto picks a
    // width near the drawn line's (4 px) and says so.
    void snapAndAutoWidth() {
        const double x0 = 10, x1 = 80;
        const double y0 = 30 + 8 * std::sin(x0 / 14.0), y1 = 30 + 8 * std::sin(x1 / 14.0);
        const QString from = QString("%1,%2").arg(x0).arg(y0 + 3.5), to = QString("%1,%2").arg(x1).arg(y1 - 3);
        const auto r = test::runCli({"trace", image_, "--from", from, "--to", to, "--score", "ridge", "--polarity",
                                     "bright", "--snap", "5", "--width", "auto", "--points", "48", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        const QJsonObject params = doc["params"].toObject();
        QCOMPARE(params["snap"].toDouble(), 5.0);
        QVERIFY(params["width_auto"].toBool());
        QVERIFY2(params["width"].toDouble() >= 2.5 && params["width"].toDouble() <= 6.5,
                 qPrintable(QString::number(params["width"].toDouble())));
        QVERIFY(std::fabs(params["clicks"].toArray()[0].toArray()[1].toDouble() - (y0 + 3.5)) < 1e-3); // as typed
        const QJsonArray points = doc["points"].toArray();
        for (const QJsonValue& p : {points.first(), points.last()}) {
            const double x = p.toArray()[0].toDouble(), y = p.toArray()[1].toDouble();
            QVERIFY2(std::fabs(y - 30 - 8 * std::sin(x / 14.0)) <= 1.5, qPrintable(QString("%1,%2").arg(x).arg(y)));
        }
        const QStringList ab = {"--from", "5,30", "--to", "60,30"};
        for (const char* bad : {"-1", "nan", "x"}) {
            const auto b = test::runCli(QStringList{"trace", image_} + ab + QStringList{"--snap", bad});
            QCOMPARE(b.exitCode, 2);
        }
        QCOMPARE(test::runCli(QStringList{"trace", image_} + ab + QStringList{"--width", "wide"}).exitCode, 2);
    }

    // Sessions written before these fields still read: length and mean score derived, one iteration, no
    // widening, a confident leg.
    void olderResultJson() {
        const Json old = Json::parse(R"({"score": 12, "legs": [{"from": [0, 0], "to": [4, 3], "half_width": 8,
            "points": [[0, 0], [2, 1.5], [4, 3]], "guide_indices": [3], "score": 12, "segment_scores": [5, 7],
            "optimum_score": 12}]})");
        const TraceResult r = traceResultFromJson(old);
        QCOMPARE(r.legs.size(), std::size_t(1));
        QCOMPARE(r.legs[0].length, 5.0);
        QCOMPARE(r.legs[0].meanScore, 12.0 / 5.0);
        QCOMPARE(r.legs[0].iterations, 1);
        QCOMPARE(r.legs[0].widened, 0);
        QCOMPARE(r.legs[0].confidence, 1.0);
        const TraceResult again = traceResultFromJson(traceResultJson(r));
        QCOMPARE(again.legs[0].meanScore, r.legs[0].meanScore);
    }

    void textAndOverlay() {
        const QString overlay = test::tempDir() + "/trace.png";
        const auto r = test::runCli({"trace", image_, "--from", "5,30", "--to", "84,30", "--points", "32", "--overlay", overlay});
#if GLINT_WITH_IMGCODECS
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("score"));
        QVERIFY(QFileInfo(overlay).size() > 100);
#else
        QVERIFY(r.exitCode != 0);
        QVERIFY(!QFileInfo::exists(overlay));
#endif
    }

    // Usage errors (exit 2, one line on stderr naming `message`): bad points, then valid points with one bad
    // option.
    void badInput_data() {
        test::columns<QStringList, QString>({"args", "message"});
        QTest::newRow("equal points") << QStringList{"--from", "5,30", "--to", "5,30"} << "equal";
        QTest::newRow("outside") << QStringList{"--from", "5,30", "--to", "95,30"} << "outside";
        QTest::newRow("negative") << QStringList{"--from", "-1,30", "--to", "50,30"} << "outside";
        QTest::newRow("no --to") << QStringList{"--from", "5,30"} << "--to";
        QTest::newRow("bad point") << QStringList{"--from", "5", "--to", "60,30"} << "--from";
        const auto badOption = [](const char* tag, const QStringList& option, const char* message) {
            QTest::newRow(tag) << (QStringList{"--from", "5,30", "--to", "60,30"} + option) << message;
        };
        badOption("via outside", {"--via", "40,70"}, "outside");
        badOption("via equal", {"--via", "60,30"}, "equal");
        badOption("d < 2", {"--points", "1"}, "'--points' must be between 2 and");
        badOption("n < 1", {"--guides", "0"}, "guides");
        badOption("angle 0", {"--max-angle", "0"}, "angle");
        badOption("angle 180.5", {"--max-angle", "180.5"}, "angle");
        badOption("angle nan", {"--max-angle", "nan"}, "max-angle");
        badOption("half-width 0", {"--half-width", "0"}, "half-width");
        badOption("width -1", {"--width", "-1"}, "width");
        badOption("score", {"--score", "edges"}, "score");
        badOption("polarity", {"--polarity", "grey"}, "polarity");
        badOption("backend", {"--backend", "gpu"}, "backend");
        badOption("unknown option", {"--colour", "red"}, "colour");
        badOption("too many points", {"--points", "100000"}, "between 2 and 4096");
        badOption("objective", {"--objective", "mean"}, "objective");
        badOption("widen -1", {"--widen", "-1"}, "widen");
        badOption("widen 11", {"--widen", "11"}, "widen");
        badOption("guides autox", {"--guides", "autox"}, "or adaptive");
    }
    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const QString json = test::tempDir() + "/bad.json";
        const auto r = test::runCli(QStringList{"trace", image_} + args + QStringList{"--json", json});
        QCOMPARE(r.exitCode, 2);
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.startsWith("glint-cli: ") && err.contains(message, Qt::CaseInsensitive), qPrintable(err));
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFileInfo::exists(json));
    }

    void unreadableImageAndBackend() {
        const auto missing = test::runCli({"trace", test::tempDir() + "/none.csv", "--from", "1,1", "--to", "5,5"});
        QCOMPARE(missing.exitCode, 3);
        const auto cuda = test::runCli({"trace", image_, "--from", "5,30", "--to", "60,30", "--backend", "cuda"});
        QCOMPARE(cuda.exitCode, test::cudaUsable() ? 0 : 4);
    }
};

QTEST_GUILESS_MAIN(TestTraceCli)
#include "test_trace_cli.moc"
