// `glint-cli sources` as a user runs it: the JSON and its parameters (replayed with --params), the catalogue files,
// the segmentation map against the JSON, separation of comparable sources, batch, and the bad inputs of issue 30
// (a weight map of another size or with negative values, a zero/NaN RMS, a field with no source, blank borders).
#include "tests/support/TestSupport.h"

#include "core/algo/Algorithm.h"
#include "core/io/Image.h"
#include "core/io/ImageLoader.h"
#include "scenes/StarField.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <vector>

using namespace glint;

namespace {

// A float FITS frame of w x h from values (NaN = blank), written with the star field's writer's conventions.
QString writeFrame(const QString& name, int w, int h, const std::vector<float>& values) {
    StarField f;
    f.image = Image::fromSamples(w, h, values);
    const QString path = test::tempDir() + "/" + name;
    writeStarFieldFits(f, path.toStdString());
    return path;
}

} // namespace

class TestSourcesCli : public QObject {
    Q_OBJECT
private slots:
    void catalogueOfTheBundledGalaxy() {
        const QString image = test::samplePath("ngc1316o.fit");
        const QString dir = test::tempDir();
        const QJsonObject doc = test::runCliJson({"sources", image, "--json", "-", "--catalog", dir + "/c.ldac",
                                                  "--segmentation", dir + "/seg.fits", "--rms-map", dir + "/rms.fits",
                                                  "--background-map", dir + "/bkg.fits", "--regions", dir + "/s.reg"});
        QCOMPARE(doc["algorithm"].toString(), QString("sources"));
        const QJsonArray sources = doc["sources"].toArray();
        QVERIFY(sources.size() > 50);
        double previous = INFINITY;
        for (int i = 0; i < sources.size(); ++i) {
            const QJsonObject s = sources[i].toObject();
            QCOMPARE(s["number"].toInt(), i + 1);
            for (const char* key : {"x", "y", "flux_auto", "fluxerr_auto", "mag_auto", "a", "b", "theta", "kron_radius",
                                    "fwhm", "area", "background", "flags", "bbox", "ra", "dec", "core"})
                QVERIFY2(s.contains(key), key);
            if (s["flux_auto"].isDouble()) {
                QVERIFY(s["flux_auto"].toDouble() <= previous); // brightest first
                previous = s["flux_auto"].toDouble();
            }
        }
        // The segmentation map holds NUMBER n on exactly `area` pixels, inside the source's bbox.
        const Image seg = loadImage((dir + "/seg.fits").toStdString());
        QCOMPARE(seg.width(), doc["image"].toObject()["width"].toInt());
        std::vector<long long> count(static_cast<std::size_t>(sources.size()) + 1, 0);
        for (std::size_t i = 0; i < seg.pixelCount(); ++i) {
            const double v = seg.value(i);
            QVERIFY(v >= 0 && v <= sources.size());
            ++count[static_cast<std::size_t>(v)];
        }
        for (int i = 0; i < sources.size(); ++i)
            QCOMPARE(count[static_cast<std::size_t>(i + 1)], static_cast<long long>(sources[i].toObject()["area"].toDouble()));
        QVERIFY(seg.meta.wcs); // the map keeps the image's WCS
        QVERIFY(QFile::exists(dir + "/rms.fits") && QFile::exists(dir + "/bkg.fits"));
        QVERIFY(test::readFileString(dir + "/s.reg").find("polygon(") != std::string::npos); // fk5: ellipses as polygons

        // --params replays the run exactly.
        QFile params(dir + "/p.json");
        QVERIFY(params.open(QIODevice::WriteOnly));
        params.write(QJsonDocument(doc["parameters"].toObject()).toJson());
        params.close();
        const QJsonObject again = test::runCliJson({"sources", image, "--json", "-", "--params", dir + "/p.json"});
        QCOMPARE(again["sources"].toArray(), sources);
        QVERIFY(doc["parameters"].toObject()["filter"].toString().startsWith("gauss:")); // auto resolved to its FWHM
    }

    void catalogueFormats() {
        const QString image = test::samplePath("ngc1316o.fit");
        const QString dir = test::tempDir();
        for (const QString name : {"c.fits", "c.cat", "c.csv"})
            QCOMPARE(test::runCli({"sources", image, "--catalog", dir + "/" + name}).exitCode, 0);
        const std::string csv = test::readFileString(dir + "/c.csv");
        QVERIFY(csv.rfind("NUMBER,X_IMAGE,Y_IMAGE", 0) == 0);
        QVERIFY(test::readFileString(dir + "/c.cat").find("MAG_AUTO") != std::string::npos);
        const test::CliResult bad = test::runCli({"sources", image, "--catalog", dir + "/c.xyz"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(test::oneErrorLine(bad.err));
    }

    // No reported source's box (its core: the brightest rectangle of its segment) holds the centre of another of
    // comparable flux (within a factor 2), on a crowded truth-injected field. (The segments' bounding boxes,
    // XMIN..XMAX, may: the segments of touching stars interlock.)
    void comparableSourcesAreSeparated() {
        StarFieldOptions o;
        o.width = o.height = 384;
        o.stars = 700;
        o.minSeparation = 0.0;
        o.galaxy = false;
        o.seamStep = 0.0;     // an amplifier seam is a step the background mesh cannot follow: a strip of residual
        o.saturatedStars = 0; // a saturated star's halo is cut into pieces of comparable flux (SExtractor's too): see the note
        o.seed = 4;
        const StarField field = makeStarField(o);
        const QString path = test::tempDir() + "/crowded.fits";
        writeStarFieldFits(field, path.toStdString());
        const QJsonArray s = test::runCliJson({"sources", path, "--json", "-"})["sources"].toArray();
        QVERIFY(s.size() > 200);
        int checked = 0;
        for (const auto& a : s)
            for (const auto& b : s) {
                const QJsonObject p = a.toObject(), q = b.toObject();
                if (p["number"] == q["number"] || !p["flux_auto"].isDouble() || !q["flux_auto"].isDouble()) continue;
                const double fp = p["flux_auto"].toDouble(), fq = q["flux_auto"].toDouble();
                if (!(fq > 0.5 * fp && fq < 2 * fp)) continue;
                const QJsonObject box = p["core"].toObject();
                const double x = q["x"].toDouble(), y = q["y"].toDouble();
                ++checked;
                QVERIFY2(!(x >= box["x"].toInt() && y >= box["y"].toInt() && x <= box["x"].toInt() + box["width"].toInt() - 1 &&
                           y <= box["y"].toInt() + box["height"].toInt() - 1),
                         qPrintable(QString("source %1's box %3 holds source %2 %4").arg(p["number"].toInt()).arg(q["number"].toInt())
                                       .arg(QString(QJsonDocument(p).toJson(QJsonDocument::Compact)).left(900))
                                       .arg(QString(QJsonDocument(q).toJson(QJsonDocument::Compact)).left(1200))));
            }
        QVERIFY(checked > 100);
    }

    void badInputs() {
        const int w = 96, h = 80;
        std::vector<float> flat(static_cast<std::size_t>(w) * h);
        std::mt19937 rng(2);
        std::normal_distribution<float> noise(100.0f, 3.0f);
        for (float& v : flat) v = noise(rng);
        const QString image = writeFrame("noise.fits", w, h, flat);
        // A field with no source: a defined, empty result with a note.
        const test::CliResult none = test::runCli({"sources", image, "--json", "-"});
        QCOMPARE(none.exitCode, 0);
        QVERIFY(test::jsonOf(none)["sources"].toArray().size() <= 1);
        // Blank borders: no source on them, no crash.
        std::vector<float> bordered = flat;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (x < 8 || y < 8 || x >= w - 8 || y >= h - 8) bordered[static_cast<std::size_t>(y) * w + x] = NAN;
        QCOMPARE(test::runCli({"sources", writeFrame("border.fits", w, h, bordered), "--mesh", "16"}).exitCode, 0);
        // Weight maps: another size (exit 3), negative values (exit 3), zero and NaN weights (pixels left out).
        const QString small = writeFrame("small.fits", 10, 10, std::vector<float>(100, 1.0f));
        test::CliResult r = test::runCli({"sources", image, "--weight", small});
        QCOMPARE(r.exitCode, 3);
        QVERIFY(test::oneErrorLine(r.err) && r.err.contains("same size"));
        std::vector<float> weights(flat.size(), 9.0f);
        weights[5] = -1.0f;
        r = test::runCli({"sources", image, "--weight", writeFrame("neg.fits", w, h, weights), "--weight-type", "map_var"});
        QCOMPARE(r.exitCode, 3);
        QVERIFY(r.err.contains("negative"));
        weights[5] = 0.0f;
        weights[6] = NAN;
        r = test::runCli({"sources", image, "--weight", writeFrame("zero.fits", w, h, weights), "--weight-type", "map_weight", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        // Options out of range: exit 2 with one line naming the option.
        for (const QStringList& args : {QStringList{"--filter", "gauss:0"}, QStringList{"--filter", "box:3"},
                                        QStringList{"--threshold", "0"}, QStringList{"--deblend-contrast", "2"},
                                        QStringList{"--aper", "3,-1"}, QStringList{"--weight-type", "map_x"}}) {
            r = test::runCli(QStringList{"sources", image} + args);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(test::oneErrorLine(r.err) && r.err.contains(args.front().mid(2).toUtf8()), r.err.constData());
        }
    }

    void batchWritesOneRowPerSource() {
        const QString dir = test::tempDir();
        const test::CliResult r = test::runCli({"batch", "--algo", "sources", "--out", dir + "/out.csv", test::samplePath("ngc1316o.fit")});
        QCOMPARE(r.exitCode, 0);
        const std::string csv = test::readFileString(dir + "/out.csv");
        QVERIFY(csv.find("\npath,image_width,image_height,number,x,y,flux_auto") != std::string::npos);
        QVERIFY(std::count(csv.begin(), csv.end(), '\n') > 50);
    }

    // A FITS catalogue's process maps only what it uses (the dynamic linker's own list): not the libraries of the
    // DICOM outputs (DCMTK), the GPU's FFT (cuFFT), DICOM reading (GDCM) or the raster codecs (GDAL), each of which
    // costs every process its loading time (~55 ms at start-up with DCMTK and cuFFT linked, ~30 ms without).
    void aCatalogueLoadsOnlyWhatItUses() {
        const test::CliResult r = test::runCliWithEnv({"sources", test::samplePath("ngc1316o.fit"), "--backend", "cpu"}, "LD_DEBUG", "files");
        QVERIFY2(r.exitCode == 0, r.err.right(2000).constData());
        QVERIFY(r.err.contains("libcfitsio")); // the list is there
        for (const char* unused : {"libdcm", "glint_dicom", "libcufft", "libgdcm", "libgdal", "glint_codecs"})
            QVERIFY2(!r.err.contains(unused), unused);
    }
};

QTEST_GUILESS_MAIN(TestSourcesCli)
#include "test_sources_cli.moc"
