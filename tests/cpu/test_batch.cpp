// glint-cli batch: a folder with a corrupt file in the middle (every good file has its rows, the bad one is
// named, exit 0 with a warning count), rows equal to the single-file commands, --shard deterministic with
// the shards' union the whole, the other algorithms, and the usage errors.
#include "tests/support/TestSupport.h"

#include "core/export/CsvTable.h"
#include "core/export/JsonOutput.h"

#include <QDir>
#include <QFile>
#include <QtTest>

#include <algorithm>
#include <map>
#include <set>

using namespace glint;

namespace {

// 8-bit PGM, value(x, y) given.
template <class F>
void writePgm(const QString& path, int w, int h, F value) {
    QByteArray bytes = QByteArray("P5\n") + QByteArray::number(w) + " " + QByteArray::number(h) + "\n255\n";
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) bytes.append(static_cast<char>(value(x, y)));
    test::writeFile(path, bytes);
}

struct Table {
    std::string comment; // the first line when it is a comment ("# ...")
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::size_t column(const std::string& name) const {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    }
    std::set<std::string> paths() const {
        std::set<std::string> p;
        for (const auto& r : rows) p.insert(r[0]);
        return p;
    }
};

// A batch CSV: its first line a comment with the parameters asked for, a second comment line, then the header
// and the rows.
Table readTable(const QString& path) {
    std::string text = test::readFileString(path);
    Table t;
    // The parameters' line, then the "# batch:" line of the run's shard and file list.
    for (bool first = true; !text.empty() && text[0] == '#'; first = false) {
        const std::size_t end = text.find('\n');
        if (first) t.comment = text.substr(0, end);
        text = text.substr(end + 1);
    }
    auto rows = parseCsv(text);
    if (rows.empty()) return t;
    t.header = rows[0];
    t.rows.assign(rows.begin() + 1, rows.end());
    return t;
}

// The test folder: good files of three formats, a corrupt PNG in the middle of the sorted list, a file of
// no known format (skipped silently), a hidden file and a sub-folder (neither looked at).
QString makeFolder(const QString& name) {
    const QString dir = test::tempDir() + "/" + name;
    QDir().mkpath(dir + "/sub");
    writePgm(dir + "/a.pgm", 16, 12, [](int x, int y) { return (x >= 3 && x < 7 && y >= 2 && y < 5) ? 200 : 10 + (x * y) % 7; });
    test::writeFile(dir + "/b.csv", "1,2,3,-4\n5,60,70,8\n-9,10,11,12\n");
    test::writeFile(dir + "/c.png", QByteArray("\x89PNG\r\n\x1a\n", 8) + QByteArray(40, 'x')); // signature, then junk
    writePgm(dir + "/d.pgm", 9, 7, [](int, int) { return 42; }); // flat: no positive sum, still a row
    QFile::copy(test::samplePath("aero.png"), dir + "/e.png");
    test::writeFile(dir + "/notes.bin", QByteArray("\x00\x01\x02\xff\xfe\x00", 6));
    writePgm(dir + "/.hidden.pgm", 4, 4, [](int, int) { return 1; });
    writePgm(dir + "/sub/x.pgm", 4, 4, [](int, int) { return 1; });
    return dir;
}

} // namespace

class TestBatch : public QObject {
    Q_OBJECT

private slots:
    void corruptFileInTheMiddle() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PGM/PNG files (GLINT_WITH_IMGCODECS=OFF)");
        const QString dir = makeFolder("corrupt");
        const QString out = test::tempDir() + "/brightest.csv";
        const auto r = test::runCli({"batch", "--algo", "brightest", "--k", "2", "--out", out, dir});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.contains("failed '" + dir + "/c.png'"), qPrintable(err));
        QVERIFY(err.contains("1 warning"));
        QVERIFY(!err.contains("notes.bin"));
        // Not on a terminal: no progress lines, only the failures and the tally.
        QCOMPARE(err.count('\n'), 2);
        QVERIFY2(err.contains("4 of 6 files done, 1 skipped (not an image format Glint reads), 1 failed"), qPrintable(err));
        const Table t = readTable(out);
        QCOMPARE(t.header[0], std::string("path"));
        const std::vector<std::string> columns = {"path", "image_width", "image_height", "backend", "pivot",
                                                  "pivot_spec", "mode", "rank", "x", "y", "width", "height",
                                                  "sum", "mean", "pixels", "flux", "snr", "peak", "centroid_x",
                                                  "centroid_y", "ra", "dec", "mean_background", "flags", "distinct",
                                                  "parameters", "content_hash"};
        QVERIFY(t.header == columns);
        // The parameters asked for head the file; each row says what its file resolved differently.
        QVERIFY2(t.comment.rfind("# glint-cli batch --algo brightest; parameters: {", 0) == 0, t.comment.c_str());
        QVERIFY(Json::parse(t.comment.substr(t.comment.find('{')))["k"] == 2);
        for (const auto& row : t.rows) { // the slope rule's auto resolves (off: no search bound measured on stars)
            QCOMPARE(Json::parse(row[t.column("parameters")]), Json({{"slope_rule", false}}));
            QCOMPARE(row.back().size(), std::size_t(16)); // the file's content hash, for --resume
        }
        const std::string base = dir.toStdString();
        QVERIFY((t.paths() == std::set<std::string>{base + "/a.pgm", base + "/b.csv", base + "/d.pgm", base + "/e.png"}));
        // Rows in file order, each file's regions in rank order, equal to the single-file command.
        for (const char* name : {"a.pgm", "b.csv", "e.png"}) {
            const auto single = test::runCli({"brightest", dir + "/" + name, "--k", "2", "--json", "-"});
            QCOMPARE(single.exitCode, 0);
            const Json doc = Json::parse(single.out.toStdString());
            std::vector<const std::vector<std::string>*> mine;
            for (const auto& row : t.rows)
                if (row[0] == base + "/" + name) mine.push_back(&row);
            QCOMPARE(mine.size(), doc["regions"].size());
            for (std::size_t i = 0; i < mine.size(); ++i) {
                const auto& row = *mine[i];
                const Json& g = doc["regions"][i];
                QCOMPARE(row[t.column("rank")], std::to_string(g["rank"].get<int>()));
                QCOMPARE(row[t.column("x")], std::to_string(g["x"].get<int>()));
                QCOMPARE(row[t.column("y")], std::to_string(g["y"].get<int>()));
                QCOMPARE(row[t.column("width")], std::to_string(g["width"].get<int>()));
                QCOMPARE(row[t.column("height")], std::to_string(g["height"].get<int>()));
                QCOMPARE(std::stod(row[t.column("sum")]), g["sum"].get<double>());
                QCOMPARE(std::stod(row[t.column("pivot")]), doc["pivot"].get<double>());
            }
        }
        // The flat image: done, no region.
        const auto flat = std::find_if(t.rows.begin(), t.rows.end(), [&](const auto& row) { return row[0] == base + "/d.pgm"; });
        QVERIFY(flat != t.rows.end());
        QVERIFY((*flat)[t.column("rank")].empty());
        QCOMPARE((*flat)[t.column("image_width")], std::string("9"));
        // A bad file named on the command line is reported too; a missing one as well.
        const auto named = test::runCli({"batch", "--algo", "info", "--out", test::tempDir() + "/named.csv",
                                         dir + "/a.pgm", dir + "/notes.bin", dir + "/missing.pgm"});
        QCOMPARE(named.exitCode, 0);
        QVERIFY(QString::fromUtf8(named.err).contains("2 warnings"));
        QCOMPARE(readTable(test::tempDir() + "/named.csv").rows.size(), std::size_t(1));
    }

    void shards() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PGM/PNG files (GLINT_WITH_IMGCODECS=OFF)");
        const QString dir = makeFolder("shards");
        const QString whole = test::tempDir() + "/whole.csv";
        QCOMPARE(test::runCli({"batch", "--algo", "info", "--out", whole, dir}).exitCode, 0);
        const Table all = readTable(whole);
        QCOMPARE(all.rows.size(), std::size_t(4));
        std::multiset<std::vector<std::string>> union_;
        std::set<std::string> seen;
        // Sorted list: a.pgm b.csv c.png d.pgm e.png notes.bin; shard I takes every 3rd from the I-th.
        const std::vector<std::set<std::string>> expected = {{"a.pgm", "d.pgm"}, {"b.csv", "e.png"}, {}};
        for (int i = 1; i <= 3; ++i) {
            const QString out = test::tempDir() + QString("/shard%1.csv").arg(i);
            const auto r = test::runCli({"batch", "--algo", "info", "--shard", QString("%1/3").arg(i), "--out", out, dir});
            QCOMPARE(r.exitCode, 0);
            const Table t = readTable(out);
            QVERIFY(t.header == all.header);
            std::set<std::string> names;
            for (const auto& row : t.rows) {
                names.insert(row[0].substr(row[0].rfind('/') + 1));
                QVERIFY2(seen.insert(row[0]).second, "a file in two shards");
                union_.insert(row);
            }
            QVERIFY(names == expected[static_cast<std::size_t>(i - 1)]);
            if (i == 3) QVERIFY(QString::fromUtf8(r.err).contains("1 warning")); // c.png is shard 3's
            // Deterministic: the same shard again gives the same bytes.
            const QString again = test::tempDir() + QString("/shard%1-again.csv").arg(i);
            QCOMPARE(test::runCli({"batch", "--algo", "info", "--shard", QString("%1/3").arg(i), "--out", again, dir}).exitCode, 0);
            QCOMPARE(test::readFileString(again), test::readFileString(out));
        }
        QVERIFY(union_ == std::multiset<std::vector<std::string>>(all.rows.begin(), all.rows.end()));
        // More shards than files: the extra shards are empty, not an error.
        const auto many = test::runCli({"batch", "--algo", "info", "--shard", "9/9", "--out", test::tempDir() + "/s9.csv", dir});
        QCOMPARE(many.exitCode, 0);
        QCOMPARE(readTable(test::tempDir() + "/s9.csv").rows.size(), std::size_t(0));
    }

    void infoRows() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PGM/PNG files (GLINT_WITH_IMGCODECS=OFF)");
        const QString dir = makeFolder("info");
        // The results file inside the folder it reads: never an input, on the second run either.
        const QString out = dir + "/results.csv";
        for (int run = 0; run < 2; ++run) {
            const auto r = test::runCli({"batch", "--algo", "info", "--out", out, dir});
            QCOMPARE(r.exitCode, 0);
            QVERIFY(QString::fromUtf8(r.err).contains("1 warning"));
        }
        const Table t = readTable(out);
        QCOMPARE(t.rows.size(), std::size_t(4));
        const auto& a = t.rows[0];
        QCOMPARE(a[0], dir.toStdString() + "/a.pgm");
        QCOMPARE(a[t.column("format")], std::string("PGM"));
        QCOMPARE(a[t.column("width")], std::string("16"));
        QCOMPARE(a[t.column("height")], std::string("12"));
        QCOMPARE(a[t.column("max")], std::string("200"));
        QCOMPARE(t.rows[1][t.column("min")], std::string("-9"));
    }

    void traceAndCommon() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PGM/PNG files (GLINT_WITH_IMGCODECS=OFF)");
        const QString dir = test::tempDir() + "/tc";
        QDir().mkpath(dir);
        // A bright diagonal line on a dark field, and a smaller image the points do not fit.
        writePgm(dir + "/line1.pgm", 40, 30, [](int x, int y) { return std::abs(y - 3 * x / 4) <= 1 ? 220 : 20; });
        writePgm(dir + "/line2.pgm", 40, 30, [](int x, int y) { return std::abs(y - 3 * x / 4) <= 1 ? 180 : 30 + x % 3; });
        writePgm(dir + "/small.pgm", 8, 8, [](int, int) { return 5; });
        const QString out = test::tempDir() + "/trace.csv";
        const auto r = test::runCli({"batch", "--algo", "trace", "--from", "2,1.5", "--to", "37,27.75", "--points", "64",
                                     "--backend", "cpu", "--out", out, dir});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(QString::fromUtf8(r.err).contains("small.pgm"));
        const Table t = readTable(out);
        QCOMPARE(t.rows.size(), std::size_t(2));
        const auto single = test::runCli({"trace", dir + "/line1.pgm", "--from", "2,1.5", "--to", "37,27.75", "--points",
                                          "64", "--backend", "cpu", "--json", "-"});
        QCOMPARE(single.exitCode, 0);
        const Json doc = Json::parse(single.out.toStdString());
        QCOMPARE(std::stod(t.rows[0][t.column("score")]), doc["score"].get<double>());
        QCOMPARE(static_cast<std::size_t>(std::count(t.rows[0][t.column("points")].begin(),
                                                     t.rows[0][t.column("points")].end(), ';') + 1),
                 doc["points"].size());

        const QString common = test::tempDir() + "/common.csv";
        const auto c = test::runCli({"batch", "--algo", "common", "--with", dir + "/line1.pgm", "--out", common,
                                     dir + "/line1.pgm", dir + "/line2.pgm"});
        QVERIFY2(c.exitCode == 0, c.err.constData());
        const Table ct = readTable(common);
        QCOMPARE(ct.rows.size(), std::size_t(2));
        QCOMPARE(ct.rows[0][ct.column("found")], std::string("1"));
        QCOMPARE(ct.rows[0][ct.column("size")], std::to_string(40 * 30)); // an image against itself
        QCOMPARE(ct.rows[0][ct.column("dx")], std::string("0"));
        const auto pair = test::runCli({"common", dir + "/line2.pgm", dir + "/line1.pgm", "--json", "-"});
        const Json pj = Json::parse(pair.out.toStdString());
        QCOMPARE(ct.rows[1][ct.column("size")], std::to_string(pj["size"].get<long long>()));
        // A reference image that cannot be read stops the run: every row would be meaningless.
        QCOMPARE(test::runCli({"batch", "--algo", "common", "--with", dir + "/none.pgm", "--out", common, dir}).exitCode, 3);
    }

    void usageErrors_data() {
        test::columns<QStringList, int>({"args", "exitCode"});
        const QString out = "--out=" + test::tempDir() + "/u.csv";
        // A CSV image: every build reads it (the lean one has no PNG reader).
        const QString in = test::tempDir() + "/usage-input.csv";
        test::writeFile(in, "1,2,3,4\n5,6,7,8\n9,10,11,12\n");
        QTest::newRow("no algo") << QStringList{out, in} << 2;
        QTest::newRow("unknown algo") << QStringList{"--algo", "sharpen", out, in} << 2;
        QTest::newRow("no out") << QStringList{"--algo", "info", in} << 2;
        QTest::newRow("no input") << QStringList{"--algo", "info", out} << 2;
        QTest::newRow("shard 0/3") << QStringList{"--algo", "info", "--shard", "0/3", out, in} << 2;
        QTest::newRow("shard 4/3") << QStringList{"--algo", "info", "--shard", "4/3", out, in} << 2;
        QTest::newRow("shard 1/0") << QStringList{"--algo", "info", "--shard", "1/0", out, in} << 2;
        QTest::newRow("shard text") << QStringList{"--algo", "info", "--shard", "half", out, in} << 2;
        QTest::newRow("option of another algo") << QStringList{"--algo", "brightest", "--with", in, out, in} << 2;
        QTest::newRow("k 0") << QStringList{"--algo", "brightest", "--k", "0", out, in} << 2;
        QTest::newRow("trace without points") << QStringList{"--algo", "trace", out, in} << 2;
        QTest::newRow("common without --with") << QStringList{"--algo", "common", out, in} << 2;
        QTest::newRow("roi outside every image") << QStringList{"--algo", "brightest", "--roi", "600,600,5,5", out, in} << 2;
        QTest::newRow("out in a missing folder")
            << QStringList{"--algo", "info", "--out", test::tempDir() + "/no/such/dir/u.csv", in} << 3;
    }
    void usageErrors() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        const auto r = test::runCli(QStringList{"batch"} + args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY(r.err.contains("glint-cli: "));
        QVERIFY(!QFile::exists(test::tempDir() + "/u.csv"));
    }
};

QTEST_GUILESS_MAIN(TestBatch)
#include "test_batch.moc"
