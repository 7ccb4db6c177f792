// Issue 33 on GENERATED films (scenes/MammoFilms.h; no real mammography set is within reach here): a film
// without metadata is recognised as a mammogram by its content (every view, written as PGM and read back) and
// real non-mammograms are not; --preset auto then ranks findings by their contrast against the surrounding
// tissue, named "contrast" in the JSON (no "snr"), one box per finding; and the regression gate on a small set:
// a lesion centre inside one of the top-10 boxes for >= 75 % of lesions (the target is 70 %; this set
// reaches 77 %), inside box #1 for >= 60 %, no label,
// marker or film edge in any film's top 10, where the former --preset auto (the film taken as "other") misses;
// and the automatic exclusions cover every label, marker and film edge whatever its brightness.
#include "tests/support/TestSupport.h"

#include "core/algo/brightest/Brightest.h"
#include "core/algo/brightest/BrightestAlgorithm.h"
#include "core/algo/brightest/BrightestSpec.h"
#include "core/algo/mammogram/AutoExclude.h"
#include "core/algo/mammogram/FilmKind.h"
#include "core/io/ImageLoader.h"
#include "core/params/ImageKind.h"
#include "core/util/Errors.h"
#include "cuda/Backends.h"
#include "scenes/MammoFilms.h"
#include "scenes/MammoScore.h"

#include <QtEndian>
#include <QtTest>

#if GLINT_WITH_IMGCODECS && GLINT_WITH_GDAL
#include <gdal.h>
#endif
#include <tuple>

#include <zlib.h>

#include <stdexcept>
#include <string>

using namespace glint;

namespace {
// {"preset": name}, built field by field (GCC 12 at -O3 misreads a Json initializer list here: -Warray-bounds).
Json presetRequest(const char* name) {
    Json j = Json::object();
    j["preset"] = name;
    return j;
}

// The boxes --preset auto gives on a generated film.
std::vector<BrightestRegion> presetAutoRegions(const MammoFilm& film) {
    JobControl job;
    return runBrightestRequest(film.image, presetRequest("auto"), Backend::Cpu, job).result.regions;
}

// Generated film `index`, checked to hold one lesion, a mass.
MammoFilm oneMassFilm(int index) {
    MammoFilm film = makeMammoFilm(index);
    if (film.lesions.size() != 1 || film.lesions[0].kind != MammoLesionKind::Mass)
        throw std::logic_error("film " + std::to_string(index) + " is not a one-mass film");
    return film;
}
} // namespace

class TestMammogramFilms : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { initBackends(); }

    // Every view (R/L, MLO/CC), written as an 8-bit PGM with no metadata and read back, is a mammogram.
    void generatedFilmsAreMammograms() {
        for (int i = 0; i < 8; ++i) {
            const MammoFilm film = makeMammoFilm(i);
#if GLINT_WITH_IMGCODECS
            const QString path = test::tempDir() + "/" + QString::fromStdString(film.name) + ".pgm";
            writeMammoFilmPgm(film, path.toStdString());
            const Image loaded = loadImage(path.toStdString());
#else // a build without raster codecs reads no PGM: the film as generated
            const Image& loaded = film.image;
#endif
            QCOMPARE(loaded.width(), 1024);
            const ImageKindGuess guess = classifyImage(loaded);
            QVERIFY2(guess.kind == ImageKind::Mammogram, (film.name + ": " + guess.reason).c_str());
        }
    }

#if GLINT_WITH_IMGCODECS // the bundled sample is a PNG
    void bundledSampleIsMammogram() {
        const Image sample = loadImage(test::samplePath("synthetic-mammogram.png").toStdString());
        QCOMPARE(classifyImage(sample).kind, ImageKind::Mammogram);
        // By its content too, without the PNG's text chunks.
        const FilmKindTest content = mammogramByContent(sample);
        QVERIFY2(content.mammogram, content.reason.c_str());
    }
#endif

    // Real files that are not mammograms: a sky frame, CT and MR slices, an aerial photograph; neither their
    // kind nor their content says mammogram.
    void realNonMammogramsAreNot_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("FITS ngc1316o") << test::samplePath("ngc1316o.fit");
        if (GLINT_WITH_IMGCODECS) QTest::newRow("aero.png") << test::samplePath("aero.png");
        QTest::newRow("CT_small") << test::fetchedPath("CT_small.dcm");
        QTest::newRow("MR_small") << test::fetchedPath("MR_small.dcm");
        QTest::newRow("liver") << test::fetchedPath("liver_1frame.dcm");
        QTest::newRow("j8bt06nyq_flt") << test::fetchedPath("j8bt06nyq_flt.fits");
    }
    void realNonMammogramsAreNot() {
        QFETCH(QString, path);
        if (path.isEmpty()) QSKIP("the file was not fetched by the real_data fixture");
        const Image image = loadImage(path.toStdString());
        QVERIFY(classifyImage(image).kind != ImageKind::Mammogram);
        const FilmKindTest content = mammogramByContent(image);
        QVERIFY2(!content.mammogram, content.reason.c_str());
    }

    // Labels (bright, grey or dark paper), lead markers, scanner borders and the top edge's 148x1 strip are
    // excluded whatever their brightness: at least 95 % of each artefact's box lies in the automatic exclusions,
    // which include the film-edge bands; and the pectoral muscle is found on the MLO films.
    void artefactsAreExcluded() {
        int mlo = 0, pectoral = 0;
        for (int i = 0; i < 12; ++i) {
            const MammoFilm film = makeMammoFilm(i);
            const MammogramExclusions e = mammogramAutoExclusions(film.image);
            QVERIFY(e.foundBreast);
            bool edges = false;
            for (const AutoExclusion& s : e.shapes) edges = edges || s.kind == AutoExclusionKind::FilmEdge;
            QVERIFY(edges);
            if (film.mlo) {
                ++mlo;
                pectoral += e.foundPectoral ? 1 : 0;
            }
            const std::vector<unsigned char> mask = autoExclusionMask(e, film.image.width(), film.image.height());
            for (const MammoArtefact& a : film.artefacts) {
                long long in = 0, all = 0;
                for (int y = a.y; y < a.y + a.height; ++y)
                    for (int x = a.x; x < a.x + a.width; ++x, ++all) in += mask[static_cast<std::size_t>(y) * film.image.width() + x];
                QVERIFY2(in >= 0.95 * all, (film.name + ": " + a.what + " " + std::to_string(in) + "/" + std::to_string(all)).c_str());
            }
        }
        qInfo("pectoral muscle found on %d of %d MLO films", pectoral, mlo);
        QVERIFY(pectoral * 4 >= mlo * 3);
    }

    // --preset auto on a metadata-free film: the mammogram preset, regions named by their contrast.
    void autoPresetRanksByContrast() {
        const MammoFilm film = makeMammoFilm(1);
        JobControl job;
        const BrightestRun run = runBrightestRequest(film.image, presetRequest("auto"), Backend::Cpu, job);
        QVERIFY(run.kind && run.kind->kind == ImageKind::Mammogram);
        QCOMPARE(run.parameters.value("rank", std::string()), std::string("contrast"));
        QVERIFY(!run.result.regions.empty());
        const Json json = brightestResultJson(run.result);
        double last = std::numeric_limits<double>::infinity();
        for (const Json& r : json["regions"]) {
            QVERIFY(r.contains("contrast"));
            QVERIFY(!r.contains("snr"));
            QVERIFY(r["contrast"].get<double>() <= last); // ranked by it
            last = r["contrast"].get<double>();
        }
        // One finding, one box: no box holds another box's centre.
        const auto& rs = run.result.regions;
        for (std::size_t a = 0; a < rs.size(); ++a)
            for (std::size_t b = 0; b < rs.size(); ++b) {
                if (a == b) continue;
                const double cx = rs[b].x + rs[b].width / 2.0, cy = rs[b].y + rs[b].height / 2.0;
                QVERIFY(!(cx >= rs[a].x && cy >= rs[a].y && cx < rs[a].x + rs[a].width && cy < rs[a].y + rs[a].height));
            }
        // --rank contrast belongs to the disjoint search.
        Json overlap = Json::object();
        overlap["preset"] = "none";
        overlap["mode"] = "overlap";
        overlap["rank"] = "contrast";
        QVERIFY_THROWS_EXCEPTION(UsageError, brightestSpec().read(brightestSpec().applyPreset(overlap, nullptr)));
    }

    // A mass whose rim answers a little more strongly at a small scale than the mass at its own scale (film 46
    // of the development set: a 39-px mass, the rim's 15-px box 20 px off its centre) is marked by a box on
    // the mass, its own scale's, not by the rim's box beside its centre (before: the mass's box was dropped as
    // the same finding as the rim's, and no top-10 box marked the mass).
    void massTakesItsOwnScaleOverItsRim() {
        const MammoFilm film = oneMassFilm(46);
        const std::vector<BrightestRegion> regions = presetAutoRegions(film);
        QVERIFY(!regions.empty());
        const BrightestRegion& first = regions.front();
        qInfo("box #1 %d,%d %dx%d; mass at %.0f,%.0f r %.0f", first.x, first.y, first.width, first.height, film.lesions[0].x,
              film.lesions[0].y, film.lesions[0].radius);
        QVERIFY(mammoBoxMarksLesion(first, film.lesions[0]));
        QVERIFY(first.width > 15); // the mass's scale, not the rim's
    }

    // A mass near the skin line is judged against the tissue around it (film 22 of the development set: an
    // 18-px mass 49 px inside the breast's edge): it is box #1. Before, each scale's contrast was normalised by
    // one spread over the whole breast, which the thinning breast's strong answers all along the skin line
    // inflate, and dense tissue's texture elsewhere outranked it: its box was #17.
    void massNearSkinLineIsJudgedLocally() {
        const MammoFilm film = oneMassFilm(22);
        const std::vector<BrightestRegion> regions = presetAutoRegions(film);
        QVERIFY(!regions.empty());
        QVERIFY(mammoBoxMarksLesion(regions.front(), film.lesions[0]));
    }

    // The first K boxes do not depend on K: a candidate ranked after the K-th kept finding may still give a kept
    // mass its own scale's box (film 42 of the development set: a 22-px mass whose box #3 is its rim's until a
    // lower candidate at its own scale gives it its box). Before, the ranking stopped at K kept findings, so the
    // mass was marked among 200 boxes and not among 10.
    void topBoxesDoNotDependOnK() {
        const MammoFilm film = makeMammoFilm(42);
        QCOMPARE(film.lesions.size(), std::size_t{1});
        Json ten = presetRequest("auto"), many = presetRequest("auto");
        ten["k"] = 10;
        many["k"] = 200;
        JobControl j1, j2;
        const std::vector<BrightestRegion> a = runBrightestRequest(film.image, ten, Backend::Cpu, j1).result.regions;
        const std::vector<BrightestRegion> b = runBrightestRequest(film.image, many, Backend::Cpu, j2).result.regions;
        QCOMPARE(a.size(), std::size_t{10});
        QVERIFY(b.size() > a.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].x, b[i].x);
            QCOMPARE(a[i].y, b[i].y);
            QCOMPARE(a[i].width, b[i].width);
            QCOMPARE(a[i].height, b[i].height);
        }
        bool marked = false;
        for (const BrightestRegion& r : a) marked = marked || mammoBoxMarksLesion(r, film.lesions[0]);
        QVERIFY(marked);
    }

#if GLINT_WITH_IMGCODECS // the bundled sample is a PNG
    // One calcification cluster is one finding: the bundled sample's cluster of 8 specks, drawn within 30 x 22 px
    // of (585, 655) (tools/samples/make_synthetic_mammogram.cpp), gets one top-10 box, and that box holds the
    // cluster's centre. Before, the cluster's box held 3 of its specks (the 4-mm linkage split it) and two
    // speck-sized mass boxes sat on its upper specks: three of the ten boxes on one finding.
    void sampleClusterTakesOneBox() {
        const Image sample = loadImage(test::samplePath("synthetic-mammogram.png").toStdString());
        JobControl job;
        const BrightestRun run = runBrightestRequest(sample, presetRequest("auto"), Backend::Cpu, job);
        int on = 0;
        const BrightestRegion* box = nullptr;
        for (std::size_t i = 0; i < run.result.regions.size() && i < 10; ++i) {
            const BrightestRegion& r = run.result.regions[i];
            if (r.x < 585 + 30 && r.x + r.width > 585 - 30 && r.y < 655 + 22 && r.y + r.height > 655 - 22) {
                ++on;
                box = &r;
            }
        }
        QCOMPARE(on, 1);
        qInfo("cluster box %d,%d %dx%d", box->x, box->y, box->width, box->height);
        QVERIFY(box->x <= 585 && box->x + box->width > 585 && box->y <= 655 && box->y + box->height > 655);
    }

    // The pixel size comes from the file where it gives one: the bundled sample's pHYs chunk (6667 pixels per
    // metre, 0.15 mm); a pHYs of a screen's 72 dots per inch (software writes it whatever the image) is not
    // taken, nor is one that would make the film 30 mm or 3 m long; then 0.2 mm at 1024 px is assumed.
    void pixelSizeFromTheFile() {
        // (The chunk's CRC, zlib's crc32 as PNG's, recomputed after its data change.)
        const QString samplePath = test::samplePath("synthetic-mammogram.png");
        const Image sample = loadImage(samplePath.toStdString());
        bool found = false;
        for (const HeaderCard& card : sample.meta.header) found = found || (card.key == "PNG pHYs" && card.value == "6667 6667");
        QVERIFY(found);
        JobControl job;
        const std::string note = runBrightestRequest(sample, presetRequest("auto"), Backend::Cpu, job).result.note;
        QVERIFY2(note.find("pixel 0.15 mm (PNG pHYs)") != std::string::npos, note.c_str());

        QFile in(samplePath);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray bytes = in.readAll();
        const int at = bytes.indexOf("pHYs");
        QVERIFY(at == 37); // after IHDR: its length field starts at 33
        QTemporaryDir dir;
        for (const quint32 perMetre : {2835u, 200000u, 300u}) { // 72 dpi; 5 um (5 mm film); 3.3 mm (3.4 m film)
            QByteArray changed = bytes;
            QByteArray body(9, '\0');
            qToBigEndian(perMetre, body.data());
            qToBigEndian(perMetre, body.data() + 4);
            body[8] = 1;
            changed.replace(at + 4, 9, body);
            const QString path = dir.filePath(QString("phys-%1.png").arg(perMetre));
            QFile out(path);
            QVERIFY(out.open(QIODevice::WriteOnly));
            const quint32 crc = static_cast<quint32>(::crc32(0L, reinterpret_cast<const Bytef*>(changed.constData() + at), 13));
            qToBigEndian(crc, changed.data() + at + 13);
            out.write(changed);
            out.close();
            const Image film = loadImage(path.toStdString());
            const std::string n = runBrightestRequest(film, presetRequest("auto"), Backend::Cpu, job).result.note;
            QVERIFY2(n.find("pixel 0.2 mm (assumed: the file gives no pixel size)") != std::string::npos, n.c_str());
        }
#if GLINT_WITH_GDAL
        // A TIFF's resolution as GDAL reports it: 66.667 pixels per cm is 0.15 mm; 72 pixels per inch is not taken.
        std::vector<std::uint16_t> samples(static_cast<std::size_t>(sample.width()) * sample.height());
        for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = static_cast<std::uint16_t>(sample.value(i));
        GDALAllRegister();
        for (const auto& [resolution, unit, expected] :
             {std::tuple<const char*, const char*, const char*>{"66.6667", "3", "pixel 0.15 mm (TIFF resolution)"},
              {"72", "2", "pixel 0.2 mm (assumed: the file gives no pixel size)"}}) {
            const QString path = dir.filePath(QString("film-%1.tif").arg(resolution));
            GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GTiff"), path.toUtf8().constData(), sample.width(), sample.height(), 1,
                                         GDT_UInt16, nullptr);
            QVERIFY(ds);
            GDALSetMetadataItem(ds, "TIFFTAG_XRESOLUTION", resolution, nullptr);
            GDALSetMetadataItem(ds, "TIFFTAG_YRESOLUTION", resolution, nullptr);
            GDALSetMetadataItem(ds, "TIFFTAG_RESOLUTIONUNIT", unit, nullptr);
            QCOMPARE(GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Write, 0, 0, sample.width(), sample.height(), samples.data(),
                                  sample.width(), sample.height(), GDT_UInt16, 0, 0),
                     CE_None);
            GDALClose(ds);
            const Image film = loadImage(path.toStdString());
            const std::string n = runBrightestRequest(film, presetRequest("auto"), Backend::Cpu, job).result.note;
            QVERIFY2(n.find(expected) != std::string::npos, n.c_str());
        }
#endif
    }
#endif

    // One mass is one finding: film 26 of the development set (an 89-px mass) was marked by box #8 (71 px, its
    // own scale's box, which a lower candidate gave it) and again by box #9 (23 px on its rim), kept while #8 was
    // still a small box beside it. A kept box whose centre the finding's extended box holds is now dropped.
    void massTakesOneBox() {
        const MammoFilm film = oneMassFilm(26);
        const MammoScore s = scoreMammoFilms({film}, {presetAutoRegions(film)});
        QCOMPARE(s.top10, 1.0);
        QCOMPARE(s.duplicateBoxes, 0);
    }

    // A large mass is one finding: film 15 of the held-out set (seed 34; a mass of radius 52 px) took boxes #1 and
    // #2, two 47x47 boxes side by side on it, neither holding the other's centre (a large mass answers more
    // strongly on parts of it than at its own scale). The disc holding both stands out as strongly as the better
    // of them, so they are one finding, boxed at that disc's scale.
    void largeMassTakesOneBox() {
        const MammoFilm film = makeMammoFilm(15, 34);
        QCOMPARE(film.lesions.size(), std::size_t{1});
        QVERIFY(film.lesions[0].kind == MammoLesionKind::Mass && film.lesions[0].radius > 37.0);
        const std::vector<BrightestRegion> regions = presetAutoRegions(film);
        const MammoScore s = scoreMammoFilms({film}, {regions});
        QVERIFY(!regions.empty());
        qInfo("box #1 %dx%d", regions[0].width, regions[0].height);
        QCOMPARE(s.top1, 1.0);
        QCOMPARE(s.duplicateBoxes, 0);
    }

    // The gate: 24 films (13 lesions), after against before (the former --preset auto on the first 8).
    void regressionGate() {
        const std::vector<MammoFilm> films = makeMammoFilmSet(24);
        std::vector<std::vector<BrightestRegion>> before, after;
        for (std::size_t i = 0; i < films.size(); ++i) {
            JobControl j1, j2;
            if (i < 8) before.push_back(runBrightestRequest(films[i].image, presetRequest("other"), Backend::Cpu, j1).result.regions);
            after.push_back(runBrightestRequest(films[i].image, presetRequest("auto"), Backend::Cpu, j2).result.regions);
        }
        const std::vector<MammoFilm> first8(films.begin(), films.begin() + 8);
        const MammoScore b = scoreMammoFilms(first8, before), a = scoreMammoFilms(films, after);
        qInfo("lesions %d; before: top-10 %.2f, #1 %.2f, artefact boxes %d; after: top-10 %.2f, #1 %.2f, FROC %.2f/%.2f/%.2f/%.2f, "
              "artefact boxes %d, second boxes on a lesion %d",
              a.lesions, b.top10, b.top1, b.artefactBoxes, a.top10, a.top1, a.froc[0], a.froc[1], a.froc[2], a.froc[3],
              a.artefactBoxes, a.duplicateBoxes);
        for (const std::string& n : a.artefactNotes) qInfo("after: %s", n.c_str());
        QVERIFY(a.lesions >= 8);
        // The target is 70 %; this set reaches 10 of 13 (77 %) and 9 in box #1 (69 %; the held-out set of
        // bench mammogram: 62 % and 44 %): the gate holds what is reached, less one lesion in box #1, and a drop
        // below it fails.
        QVERIFY(a.top10 >= 0.75);
        QVERIFY(a.top1 >= 0.60);
        QCOMPARE(a.artefactBoxes, 0);
        QCOMPARE(a.duplicateBoxes, 0); // one box per finding
        QVERIFY(a.top1 > b.top1);
    }
};

QTEST_GUILESS_MAIN(TestMammogramFilms)
#include "test_mammogram_films.moc"
