// glint-cli's option limits: every numeric option is parsed strictly and bounded (exit 2, one line, no run
// past its budget), what stays valid at the bounds runs, and the source finder's options (issue 14).
#include "tests/cpu/test_cli_outputs_support.h"
#include "tests/support/TestSupport.h"

#include "core/algo/kmax/KMax.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <string>

using namespace glint;
using namespace glint::test::clioutputs;

class CliLimitsTest : public QObject {
    Q_OBJECT

private slots:
    // Limits: K, --random N, pivots, --max-shift, and strict numbers everywhere.
    void limits_data() {
        test::columns<QStringList, QByteArray>({"args", "message"});
        const QByteArray kMax = QByteArray::number(qulonglong(kMaxKMaxResults));
        QTest::newRow("overlap k 1e7") << QStringList{"brightest", "@m", "--mode", "overlap", "--k", "10000000"}
                                       << ("must be at most " + kMax);
        QTest::newRow("k 1e9") << QStringList{"brightest", "@m", "--k", "1000000000"} << ("must be at most " + kMax);
        QTest::newRow("k max+1") << QStringList{"brightest", "@m", "--k", QString::number(kMaxKMaxResults + 1)}
                                 << ("must be at most " + kMax);
        QTest::newRow("kmax1d k 1e9") << QStringList{"kmax1d", "--random", "10", "--k", "1000000000"}
                                      << ("must be at most " + kMax);
        QTest::newRow("kmax1d random 2e9") << QStringList{"kmax1d", "--random", "2000000000", "--k", "3"}
                                           << QByteArray("'--random' must be at most ");
        QTest::newRow("batch k 1e9") << QStringList{"batch", "--algo", "brightest", "--k", "1000000000", "--out", "-", "@m"}
                                     << ("must be at most " + kMax);
        QTest::newRow("pivot -1e308") << QStringList{"brightest", "@m", "--pivot", "-1e308"}
                                      << QByteArray("is too large: the sums of I - pivot");
        QTest::newRow("pivot 1e308 overlap") << QStringList{"brightest", "@m", "--pivot", "1e308", "--mode", "overlap"}
                                             << QByteArray("is too large: the sums of I - pivot");
        QTest::newRow("pivot 1e306 k 3") << QStringList{"brightest", "@m", "--pivot", "1e306", "--k", "3"}
                                         << QByteArray("|pivot| must be at most");
        QTest::newRow("max-shift 999999999") << QStringList{"common", "@m", "@m", "--max-shift", "999999999"}
                                             << QByteArray("must be between 0 and 3 for images of 4x3 and 4x3");
        QTest::newRow("max-shift 4") << QStringList{"common", "@m", "@m", "--max-shift", "4"}
                                     << QByteArray("must be between 0 and 3");
        QTest::newRow("batch max-shift") << QStringList{"batch", "--algo", "common", "--with", "@m", "--max-shift",
                                                        "100", "--out", "-", "@m"}
                                         << QByteArray("must be between 0 and 3");
        QTest::newRow("max-shift 2^40") << QStringList{"common", "@m", "@m", "--max-shift", "1099511627776"}
                                        << QByteArray("must be between 0 and 2147483647");
        for (const char* bad : {"10abc", "1e999", "nan", "-0", "99999999999999999999", "+3", " 3", "3 ", "0x10", "", "1.5",
                                "1e3"})
            QTest::newRow(qPrintable(QString("k '%1'").arg(bad)))
                << QStringList{"brightest", "@m", "--k", bad} << QByteArray("option '--k'");
        for (const char* bad : {"nan", "inf", "-inf", "1e999", "0x1p3", "1,5", "infinity", "NaN"})
            QTest::newRow(qPrintable(QString("pivot '%1'").arg(bad)))
                << QStringList{"brightest", "@m", "--pivot", bad} << QByteArray("pivot");
        for (const char* bad : {"nan", "inf", "1e999", "-1", "1x"})
            QTest::newRow(qPrintable(QString("tolerance '%1'").arg(bad)))
                << QStringList{"common", "@m", "@m", "--tolerance", bad} << QByteArray("tolerance");
        QTest::newRow("roi nan") << QStringList{"brightest", "@m", "--roi", "0,0,nan,2"} << QByteArray("--roi");
        QTest::newRow("roi huge") << QStringList{"brightest", "@m", "--roi", "0,0,1e300,2"} << QByteArray("--roi");
        QTest::newRow("polygon inf") << QStringList{"brightest", "@m", "--exclude-polygon", "0,0,inf,0,1,1"}
                                     << QByteArray("--exclude-polygon");
        QTest::newRow("hdu -0") << QStringList{"brightest", "@m", "--hdu", "-0"} << QByteArray("--hdu");
        QTest::newRow("seed garbage") << QStringList{"kmax1d", "--random", "10", "--seed", "7x", "--k", "1"}
                                      << QByteArray("--seed");
        QTest::newRow("trace max-angle nan") << QStringList{"trace", "@m", "--from", "0,0", "--to", "3,2", "--max-angle",
                                                            "nan"}
                                             << QByteArray("--max-angle");
        QTest::newRow("trace half-width inf") << QStringList{"trace", "@m", "--from", "0,0", "--to", "3,2",
                                                             "--half-width", "inf"}
                                              << QByteArray("--half-width");
        QTest::newRow("trace from nan") << QStringList{"trace", "@m", "--from", "nan,0", "--to", "3,2"}
                                        << QByteArray("--from");
        QTest::newRow("trace width nan") << QStringList{"trace", "@m", "--from", "0,0", "--to", "3,2", "--width", "nan"}
                                         << QByteArray("--width");
        QTest::newRow("trace guides huge") << QStringList{"trace", "@m", "--from", "0,0", "--to", "3,2", "--guides",
                                                          "99999999999999999999"}
                                           << QByteArray("--guides");
        QTest::newRow("batch shard overflow") << QStringList{"batch", "--algo", "info", "--shard",
                                                             "1/99999999999999999999", "--out", "-", "@m"}
                                              << QByteArray("--shard");
        QTest::newRow("batch tolerance nan") << QStringList{"batch", "--algo", "common", "--with", "@m", "--tolerance",
                                                            "nan", "--out", "-", "@m"}
                                             << QByteArray("--tolerance");
        QTest::newRow("batch hdu garbage") << QStringList{"batch", "--algo", "info", "--hdu", "1e3", "--out", "-", "@m"}
                                           << QByteArray("--hdu");
        for (const char* bench : {"brightest", "kmax", "kmax1d", "common", "trace"})
            for (const char* bad : {"99999999999", "abc", "10abc", "-5", "0", "4096x99999999999"})
                QTest::newRow(qPrintable(QString("bench %1 sizes '%2'").arg(bench, bad)))
                    << QStringList{"bench", bench, "--sizes", bad, "--repeat", "1"} << QByteArray("bench");
        QTest::newRow("bench repeat garbage") << QStringList{"bench", "kmax1d", "--repeat", "5x"} << QByteArray("--repeat");
    }
    void limits() {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, message);
        const auto [dir, m] = freshMatrixDir("limits");
        for (QString& a : args) a.replace("@m", m);
        QElapsedTimer clock;
        clock.start();
        const auto r = test::runCli(args, 30000);
        QVERIFY2(r.exitCode == 2, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(QString(r.err))));
        // The error line (batch writes progress lines before it).
        QByteArray line;
        for (const QByteArray& l : r.err.split('\n'))
            if (l.startsWith("glint-cli: ")) line = l;
        QVERIFY2(line.contains(message), r.err.constData());
        QVERIFY(r.out.isEmpty());
        QVERIFY(clock.elapsed() < 20000);
    }

    // What stays valid: K above the number of rectangles lists them all (DESIGN), the largest K and
    // --max-shift at its bound run.
    void limitsThatRun() {
        const auto [dir, m] = freshMatrixDir("limits-ok");
        auto r = test::runCli({"brightest", m, "--pivot", "0", "--mode", "overlap", "--k", "1000", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out).object().value("regions").toArray().size(), 60); // 6 x 10 rectangles
        r = test::runCli({"common", m, m, "--max-shift", "3", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out).object().value("size").toInt(), 12);
        r = test::runCli({"brightest", m, "--pivot", "-1e6", "--k", QString::number(kMaxKMaxResults), "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        r = test::runCli({"kmax1d", "--random", "1000", "--k", "5", "--seed", "-3", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        r = test::runCli({"brightest", m, "--pivot", "-1e3", "--json", "-"}); // finite, representable sums
        QCOMPARE(r.exitCode, 0);
        QVERIFY(QJsonDocument::fromJson(r.out).object().value("regions").toArray().at(0).toObject().value("sum").isDouble());
    }

    // The source finder's options (issue 14): --pivot local with a threshold and filters, the measurements in
    // the JSON, --catalog (FITS and CSV, staged with the other outputs), the shortfall note on stderr, and the
    // usage errors (exit 2, one line).
    void sourceFinderOptions() {
        const QString dir = freshDir("sources");
        const QString fits = test::samplePath("ngc1316o.fit");
        auto r = test::runCli({"brightest", fits, "--pivot", "local", "--threshold", "3", "--min-snr", "5", "--k", "500",
                               "--json", "-", "--catalog", dir + "/cat.fits"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc.value("pivot_spec").toString(), QString("local"));
        const QJsonArray regions = doc.value("regions").toArray();
        QVERIFY(!regions.isEmpty());
        const QJsonObject first = regions.at(0).toObject();
        for (const char* key : {"flux", "snr", "peak", "centroid_x", "centroid_y", "ra", "dec", "mean_background", "area", "flags"})
            QVERIFY2(first.contains(key), key);
        QVERIFY(first.value("snr").toDouble() >= 5);
        // Fewer than 500 sources: the note in the JSON and one line on stderr.
        QVERIFY(regions.size() < 500);
        QVERIFY(doc.value("note").toString().startsWith(QString("found %1 of 500 regions").arg(regions.size())));
        QVERIFY2(r.err.startsWith("glint-cli: brightest: found "), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(QFileInfo(dir + "/cat.fits").size() % 2880 == 0);
        r = test::runCli({"brightest", fits, "--pivot", "local", "--k", "3", "--catalog", dir + "/cat.csv"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(test::readFileString(dir + "/cat.csv").substr(0, 16), std::string("NUMBER,X_IMAGE,Y"));
        // Usage errors: exit 2, the message first, no output written.
        for (const QStringList& bad : {QStringList{"--pivot", "local", "--mesh", "5000"}, QStringList{"--threshold", "-1"},
                                       QStringList{"--threshold", "nan"}, QStringList{"--min-snr", "-3"},
                                       QStringList{"--min-area", "-1"}, QStringList{"--catalog", dir + "/cat.txt"}}) {
            r = test::runCli(QStringList{"brightest", fits, "--catalog", dir + "/never.fits"} + bad);
            QVERIFY2(r.exitCode == 2, qPrintable(bad.join(' ') + ": " + r.err));
            QVERIFY(r.err.startsWith("glint-cli: "));
            QCOMPARE(r.err.trimmed().count('\n'), 0); // one line
            QVERIFY(!QFileInfo::exists(dir + "/never.fits"));
        }
    }
};

QTEST_GUILESS_MAIN(CliLimitsTest)
#include "test_cli_limits.moc"
