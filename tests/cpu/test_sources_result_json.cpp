// The source catalogue's JSON read back (core's sourcesResultFromJson, what the window's sessions use): a real
// frame's catalogue survives the round trip to the bit, with apertures and sky coordinates, unknown values (null)
// come back as NaN, the maps come back empty, and a damaged document is an InputError naming the field.
#include "tests/support/TestSupport.h"

#include "core/algo/sources/Sources.h"
#include "core/io/ImageLoader.h"
#include "core/jobs/JobControl.h"
#include "core/util/Errors.h"

#include <QtTest>

#include <cmath>

using namespace glint;

class TestSourcesResultJson : public QObject {
    Q_OBJECT

private slots:
    void roundTrip() {
        const Image image = loadImage(test::samplePath(QStringLiteral("ngc1316o.fit")).toStdString());
        JobControl job;
        const SourcesRun run = runSourcesRequest(image, Json{{"apertures", {4.0, 8.0}}, {"preset", "sky"}}, job);
        QVERIFY(run.result.catalog.sources.size() > 100);
        const Json doc = sourcesResultJson(run.result);
        const SourcesResult back = sourcesResultFromJson(doc);
        QCOMPARE(back.width, run.result.width);
        QCOMPARE(back.catalog.sources.size(), run.result.catalog.sources.size());
        QCOMPARE(back.catalog.apertures, run.result.catalog.apertures);
        QVERIFY(back.segmentation.empty() && back.background.empty() && back.rms.empty());
        QCOMPARE(QString::fromStdString(sourcesResultJson(back).dump()), QString::fromStdString(doc.dump()));
        // What the document holds comes back exactly; CXX/CYY/CXY from A, B and THETA, close to the measured ones.
        for (std::size_t i = 0; i < back.catalog.sources.size(); ++i) {
            const SourceRecord &a = run.result.catalog.sources[i], &b = back.catalog.sources[i];
            QCOMPARE(b.x, a.x);
            QCOMPARE(b.ra, a.ra);
            QCOMPARE(b.fluxAper, a.fluxAper);
            QCOMPARE(b.xmax, a.xmax);
            if (std::isfinite(a.cxx)) QVERIFY2(std::abs(b.cxx - a.cxx) <= 1e-6 * std::abs(a.cxx) + 1e-12, qPrintable(QString::number(i)));
        }
    }

    void nullIsNaN() {
        const Json doc = {{"image", {{"width", 10}, {"height", 8}}}, {"background", {{"global", 1.0}, {"rms", 0.5}}},
                          {"filter", {{"fwhm", 0.0}, {"from_psf", false}}}, {"footprints", 1},
                          {"rejected", {{"footprints", 0}, {"markers", 0}}}, {"mag_zeropoint", 0.0},
                          {"sources", Json::array({Json{{"number", 1}, {"x", nullptr}, {"y", 2.0}, {"x_iso", 3.0}, {"y_iso", 2.0},
                                                        {"flux_auto", 10.0}, {"fluxerr_auto", 1.0}, {"mag_auto", nullptr},
                                                        {"magerr_auto", nullptr}, {"flux_iso", 9.0}, {"fluxerr_iso", 1.0},
                                                        {"peak", 3.0}, {"a", 1.0}, {"b", 0.5}, {"theta", 30.0},
                                                        {"ellipticity", 0.5}, {"kron_radius", 3.5}, {"fwhm", 2.0}, {"area", 6},
                                                        {"background", 1.0}, {"threshold", 0.2}, {"snr", 10.0}, {"flags", 0},
                                                        {"bbox", {{"x", 2}, {"y", 1}, {"width", 3}, {"height", 3}}}}})}};
        const SourcesResult r = sourcesResultFromJson(doc);
        QVERIFY(std::isnan(r.catalog.sources[0].xWin));
        QVERIFY(std::isnan(r.catalog.sources[0].magAuto));
        QVERIFY(std::isnan(r.catalog.sources[0].ra));
        QCOMPARE(r.catalog.sources[0].xmax, 4);
        Json damaged = doc;
        damaged["sources"][0].erase("flags");
        try {
            sourcesResultFromJson(damaged);
            QFAIL("a source without flags was read");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("flags")), e.what());
        }
        damaged = doc;
        damaged["sources"][0]["bbox"]["width"] = 30; // outside the 10 x 8 image
        QVERIFY_THROWS_EXCEPTION(InputError, sourcesResultFromJson(damaged));
        damaged = doc;
        damaged["sources"][0]["number"] = 2;
        QVERIFY_THROWS_EXCEPTION(InputError, sourcesResultFromJson(damaged));
    }
};

QTEST_GUILESS_MAIN(TestSourcesResultJson)
#include "test_sources_result_json.moc"
