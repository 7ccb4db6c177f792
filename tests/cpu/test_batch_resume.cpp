// glint-cli batch --resume, merge, --failures/--files-from and the bad-input cases of issue 36: a batch killed
// (SIGKILL) at random moments and resumed until done equals an uninterrupted run byte for byte; merged shards
// equal the unsharded run; merge refuses parts of different runs, shards given twice and missing shards; the
// failures list reruns through --files-from; bad shard specs; a full disk (a file size limit) keeps the earlier
// output; a file that changes while it is read is reported, not accepted.
#include "tests/support/TestSupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

using namespace glint;

namespace {

// A folder of n generated images (CSV images: every build reads them) and, optionally, corrupt files.
QString makeImages(const QString& name, int n, int corrupt = 0) {
    const QString dir = test::tempDir() + "/" + name;
    QDir(dir).removeRecursively();
    QDir().mkpath(dir);
    for (int i = 0; i < n; ++i) {
        QRandomGenerator rng(static_cast<quint32>(1000 + i));
        QByteArray csv;
        for (int y = 0; y < 90; ++y) {
            for (int x = 0; x < 120; ++x) {
                if (x) csv.append(',');
                const bool spot = std::abs(x - (i * 7) % 28 - 2) <= 1 && std::abs(y - (i * 5) % 20 - 2) <= 1;
                csv.append(QByteArray::number(spot ? 200 + rng.bounded(50) : rng.bounded(40)));
            }
            csv.append('\n');
        }
        test::writeFile(dir + QString("/img%1.csv").arg(i, 3, 10, QChar('0')), csv);
    }
    for (int i = 0; i < corrupt; ++i)
        test::writeFile(dir + QString("/img%1x.csv").arg(i * 5, 3, 10, QChar('0')), "1,2,abc\n3,4,5\n");
    return dir;
}

QStringList brightest(const QString& out) {
    return {"batch", "--algo", "brightest", "--k", "3", "--backend", "cpu", "--out", out};
}

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString journalOf(const QString& out) {
    const QFileInfo info(out);
    return info.absolutePath() + "/." + info.fileName() + ".journal";
}

} // namespace

class TestBatchResume : public QObject {
    Q_OBJECT

private slots:
    void killedAndResumedEqualsOneRun() {
        const QString dir = makeImages("kill", 48, 2);
        const QString ref = test::tempDir() + "/kill-ref.csv";
        // The time of a whole run (the shortest of three, caches warm): kills fall inside it.
        qint64 wholeMs = 0;
        for (int i = 0; i < 3; ++i) {
            QElapsedTimer timer;
            timer.start();
            const auto whole = test::runCli(brightest(ref) << dir);
            QVERIFY2(whole.exitCode == 0, whole.err.constData());
            wholeMs = i == 0 ? timer.elapsed() : std::min(wholeMs, timer.elapsed());
        }
        wholeMs = std::max<qint64>(wholeMs, 20);
        const QByteArray expected = fileBytes(ref);
        QVERIFY(expected.count('\n') > 48);
        const quint32 seed = QRandomGenerator::global()->generate();
        QRandomGenerator rng(seed);
        int kills = 0, reusedTotal = 0;
        for (int round = 0; round < 8; ++round) {
            const QString out = test::tempDir() + QString("/kill-%1.csv").arg(round);
            QFile::remove(out);
            for (int attempt = 0;; ++attempt) {
                QVERIFY2(attempt < 60, qPrintable(QString("no end after 60 attempts (seed %1)").arg(seed)));
                QProcess p;
                p.start(test::cliPath(), brightest(out) << "--resume" << dir);
                QVERIFY(p.waitForStarted(10000));
                // A random moment of a whole run's time; after 12 tries the run is left to finish.
                const bool ended = attempt < 12 ? p.waitForFinished(static_cast<int>(rng.bounded(wholeMs + 1)))
                                                : p.waitForFinished(120000);
                if (!ended) {
                    QVERIFY(attempt < 12);
                    p.kill();
                    p.waitForFinished(30000);
                    ++kills;
                    continue;
                }
                const QByteArray err = p.readAllStandardError();
                QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, err.constData());
                // Every file counted once: those done now and those an earlier attempt finished add up to all.
                const QRegularExpression tally("(\\d+) of 50 files done, 0 skipped \\(not an image format Glint "
                                               "reads\\), 2 failed, (\\d+) already done \\(--resume\\)");
                const auto m = tally.match(QString::fromUtf8(err));
                QVERIFY2(m.hasMatch(), err.constData());
                QCOMPARE(m.captured(1).toInt() + m.captured(2).toInt(), 48);
                reusedTotal += m.captured(2).toInt();
                break;
            }
            QVERIFY2(fileBytes(out) == expected, qPrintable(QString("round %1 differs (seed %2)").arg(round).arg(seed)));
            QVERIFY(!QFile::exists(journalOf(out)));
        }
        qInfo("%d runs killed (a whole run: %lld ms)", kills, static_cast<long long>(wholeMs));
        QVERIFY(kills > 0);
        QVERIFY(reusedTotal > 0); // some kill came after files were done, and the resumed runs kept them
    }

    void resumeRedoesChangedAndNewFiles() {
        const QString dir = makeImages("changed", 10);
        const QString out = test::tempDir() + "/changed.csv";
        QCOMPARE(test::runCli(brightest(out) << dir).exitCode, 0);
        // Nothing to do: every file is in the output with its content.
        const auto again = test::runCli(brightest(out) << "--resume" << dir);
        QVERIFY2(again.err.contains("0 of 10 files done") && again.err.contains("10 already done (--resume)"),
                 again.err.constData());
        // One file changed, one new: those two are done, the others kept.
        test::writeFile(dir + "/img004.csv", "9,9,9\n9,250,9\n9,9,9\n");
        test::writeFile(dir + "/img100.csv", "1,2,3\n4,5,6\n");
        const auto r = test::runCli(brightest(out) << "--resume" << dir);
        QVERIFY2(r.exitCode == 0 && r.err.contains("2 of 11 files done") && r.err.contains("9 already done"),
                 r.err.constData());
        const QString fresh = test::tempDir() + "/changed-fresh.csv";
        QCOMPARE(test::runCli(brightest(fresh) << dir).exitCode, 0);
        QCOMPARE(fileBytes(out), fileBytes(fresh));
        // Other parameters cannot resume this output: exit 2, one line, the output untouched.
        const auto other = test::runCli({"batch", "--algo", "brightest", "--k", "4", "--backend", "cpu", "--out", out,
                                         "--resume", dir});
        QCOMPARE(other.exitCode, 2);
        QVERIFY2(test::oneErrorLine(other.err), other.err.constData());
        QCOMPARE(fileBytes(out), fileBytes(fresh));
    }

    void oneRunPerOutput() {
        // A second run on the same output while the first holds its journal: refused, nothing touched.
        const QString dir = makeImages("locked", 3);
        const QString out = test::tempDir() + "/locked.csv";
        QCOMPARE(test::runCli(brightest(out) << dir).exitCode, 0);
        const QByteArray before = fileBytes(out);
        const int fd = ::open(journalOf(out).toLocal8Bit().constData(), O_RDWR | O_CREAT, 0644);
        QVERIFY(fd >= 0);
        QCOMPARE(::flock(fd, LOCK_EX | LOCK_NB), 0);
        const auto r = test::runCli(brightest(out) << "--resume" << dir);
        ::close(fd);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(test::oneErrorLine(r.err) && r.err.contains("another glint-cli batch is writing it"), r.err.constData());
        QCOMPARE(fileBytes(out), before);
        // Once it is free, the same command runs.
        const auto again = test::runCli(brightest(out) << "--resume" << dir);
        QVERIFY2(again.exitCode == 0 && again.err.contains("3 already done"), again.err.constData());
        QVERIFY(!QFile::exists(journalOf(out)));
    }

    void mergedShardsEqualOneRun() {
        const QString dir = makeImages("merge", 20, 2);
        const QString whole = test::tempDir() + "/merge-whole.csv";
        QCOMPARE(test::runCli(brightest(whole) << dir).exitCode, 0);
        QStringList parts;
        for (int i = 1; i <= 3; ++i) {
            parts << test::tempDir() + QString("/merge-part%1.csv").arg(i);
            const auto r = test::runCli(brightest(parts.last()) << "--shard" << QString("%1/3").arg(i) << dir);
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
        const QString merged = test::tempDir() + "/merged.csv";
        const auto m = test::runCli({"merge", merged, parts[2], parts[0], parts[1]});
        QVERIFY2(m.exitCode == 0, m.err.constData());
        QCOMPARE(fileBytes(merged), fileBytes(whole));
        // The info algorithm too, to standard output.
        const QString infoWhole = test::tempDir() + "/merge-info.csv";
        QCOMPARE(test::runCli({"batch", "--algo", "info", "--out", infoWhole, dir}).exitCode, 0);
        QStringList infoParts;
        for (int i = 1; i <= 2; ++i) {
            infoParts << test::tempDir() + QString("/merge-info%1.csv").arg(i);
            QCOMPARE(test::runCli({"batch", "--algo", "info", "--shard", QString("%1/2").arg(i), "--out",
                                   infoParts.last(), dir})
                         .exitCode,
                     0);
        }
        const auto s = test::runCli(QStringList{"merge", "-"} + infoParts);
        QCOMPARE(s.exitCode, 0);
        QCOMPARE(s.out, fileBytes(infoWhole));
    }

    void mergeRefuses_data() {
        test::columns<QStringList, QString>({"parts", "message"});
        const QString dir = makeImages("refuse", 9);
        const QString other = makeImages("refuse-other", 7);
        auto part = [&](const QString& name, QStringList extra, const QString& folder) {
            const QString path = test::tempDir() + "/refuse-" + name + ".csv";
            const auto r = test::runCli(QStringList{"batch", "--algo", "brightest", "--backend", "cpu", "--out", path} +
                                        extra + QStringList{folder});
            if (r.exitCode != 0) qWarning("%s", r.err.constData());
            return path;
        };
        const QString a1 = part("a1", {"--k", "3", "--shard", "1/3"}, dir);
        const QString a2 = part("a2", {"--k", "3", "--shard", "2/3"}, dir);
        const QString a3 = part("a3", {"--k", "3", "--shard", "3/3"}, dir);
        const QString k4 = part("k4", {"--k", "4", "--shard", "2/3"}, dir);
        const QString b2 = part("b2", {"--k", "3", "--shard", "2/3"}, other);
        const QString h2 = part("h2", {"--k", "3", "--shard", "1/2"}, dir);
        const QString copy = test::tempDir() + "/refuse-a1-copy.csv";
        QFile::remove(copy);
        QFile::copy(a1, copy);
        const QString plain = test::writeTempFile("refuse-plain.csv", "path,x\na,1\n");
        QTest::newRow("other parameters") << QStringList{a1, k4, a3} << "different parameters";
        QTest::newRow("other files") << QStringList{a1, b2, a3} << "different file lists";
        QTest::newRow("missing shard") << QStringList{a1, a3} << "shard 2/3 is missing";
        QTest::newRow("missing shards") << QStringList{a2} << "shards 1/3, 3/3 are missing";
        QTest::newRow("shard twice") << QStringList{a1, a2, copy, a3} << "shard 1/3 is given twice";
        QTest::newRow("other shard count") << QStringList{a1, a2, a3, h2} << "of 3 shards";
        QTest::newRow("not a batch csv") << QStringList{a1, plain} << "is not a CSV of glint-cli batch";
        QTest::newRow("no such part") << QStringList{a1, test::tempDir() + "/refuse-none.csv"} << "cannot open";
    }
    void mergeRefuses() {
        QFETCH(QStringList, parts);
        QFETCH(QString, message);
        const QString out = test::tempDir() + "/refused.csv";
        QFile::remove(out);
        const auto r = test::runCli(QStringList{"merge", out} + parts);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(test::oneErrorLine(r.err), r.err.constData());
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
        QVERIFY(!QFile::exists(out));
    }

    void failuresRerunThroughFilesFrom() {
        const QString dir = makeImages("failures", 6, 2);
        test::writeFile(dir + "/#odd.csv", "7,8\n9,10\n"); // a name that begins with '#' stays a path in the list
        const QString out = test::tempDir() + "/failures.csv", list = test::tempDir() + "/failures.txt";
        const auto r = test::runCli(brightest(out) << "--failures" << list << dir << dir + "/missing.csv");
        QVERIFY2(r.exitCode == 0 && r.err.contains("3 failed"), r.err.constData());
        const QString text = QString::fromUtf8(fileBytes(list));
        QStringList paths;
        for (const QString& line : text.split('\n', Qt::SkipEmptyParts))
            if (!line.startsWith('#')) paths << line;
        QCOMPARE(paths, (QStringList{dir + "/missing.csv", dir + "/img000x.csv", dir + "/img005x.csv"}));
        QVERIFY(text.contains("# ")); // each path after its reason
        // Repair the bad files, then rerun exactly those (the list read from standard input).
        test::writeFile(dir + "/img000x.csv", "1,2\n3,40\n");
        test::writeFile(dir + "/img005x.csv", "5,6\n70,8\n");
        const QString rerun = test::tempDir() + "/failures-rerun.csv", list2 = test::tempDir() + "/failures2.txt";
        QProcess p;
        p.start(test::cliPath(), brightest(rerun) << "--files-from" << "-" << "--failures" << list2);
        QVERIFY(p.waitForStarted(10000));
        p.write(fileBytes(list));
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(60000));
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(p.exitCode() == 0 && err.contains("2 of 3 files done") && err.contains("1 failed"), err.constData());
        const QString rows = QString::fromUtf8(fileBytes(rerun));
        QVERIFY(rows.contains(dir + "/img000x.csv,") && rows.contains(dir + "/img005x.csv,"));
        QVERIFY(!rows.contains("img001.csv"));
        QVERIFY(QString::fromUtf8(fileBytes(list2)).contains("\n" + dir + "/missing.csv\n"));
        // A file list from a file; a list that cannot be read is bad input.
        const QString fromFile = test::writeTempFile("failures-list.txt", (dir + "/#odd.csv\n\n# comment\n").toUtf8());
        const auto f = test::runCli(brightest(rerun) << "--files-from" << fromFile);
        QVERIFY2(f.exitCode == 0 && f.err.contains("1 of 1 files done"), f.err.constData());
        const auto none = test::runCli(brightest(rerun) << "--files-from" << test::tempDir() + "/no-list.txt");
        QCOMPARE(none.exitCode, 3);
        QVERIFY(test::oneErrorLine(none.err));
    }

    void badShardSpecs_data() {
        QTest::addColumn<QString>("spec");
        for (const char* spec : {"0/4", "5/4", "1/0", "a/b", "1/2/3", "-1/4", "3", "/4", ""})
            QTest::newRow(spec[0] ? spec : "empty") << QString(spec);
    }
    void badShardSpecs() {
        QFETCH(QString, spec);
        const QString dir = makeImages("shardspec", 2);
        const QString out = test::tempDir() + "/shardspec.csv";
        const auto r = test::runCli(brightest(out) << "--shard" << spec << dir);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(test::oneErrorLine(r.err), r.err.constData());
        QVERIFY(r.err.contains("--shard"));
        QVERIFY(!QFile::exists(out));
    }

    void fullDiskKeepsWhatWasWritten() {
        const QString dir = makeImages("full", 30);
        const QString out = test::tempDir() + "/full-out/results.csv";
        QDir().mkpath(test::tempDir() + "/full-out");
        // An earlier output, which a failed run must leave as it was.
        QCOMPARE(test::runCli(brightest(out) << dir + "/img000.csv").exitCode, 0);
        const QByteArray earlier = fileBytes(out);
        QProcess p;
        p.setChildProcessModifier([] {
            const rlimit limit{6000, 6000};
            ::setrlimit(RLIMIT_FSIZE, &limit);
        });
        const auto r = test::runProcess(p, test::cliPath(), brightest(out) << dir);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(test::oneErrorLine(r.err), r.err.constData());
        QVERIFY2(r.err.contains("cannot write '" + out.toUtf8() + "'"), r.err.constData());
        QCOMPARE(fileBytes(out), earlier);
        // Beside it only the journal of the files done before the limit: no temporary, no half-written file.
        QCOMPARE(QDir(test::tempDir() + "/full-out").entryList(QDir::Files | QDir::Hidden),
                 (QStringList{".results.csv.journal", "results.csv"}));
        const QString fresh = test::tempDir() + "/full-fresh.csv";
        QCOMPARE(test::runCli(brightest(fresh) << dir).exitCode, 0);
        // A line of the right length whose checksum does not match (bogus rows under the file's true content
        // hash, taken from the fresh run), then a torn line (a write cut short): neither is trusted.
        {
            const QByteArray freshText = fileBytes(fresh);
            const QByteArray last = freshText.mid(freshText.lastIndexOf('\n', freshText.size() - 2) + 1).trimmed();
            QVERIFY(last.startsWith(dir.toUtf8() + "/img029.csv,"));
            const QByteArray hash = last.mid(last.lastIndexOf(',') + 1);
            QCOMPARE(hash.size(), 16);
            const QByteArray payload = "{\"path\":\"" + dir.toUtf8() + "/img029.csv\",\"hash\":\"" + hash +
                                       "\",\"rows\":[[\"bogus\"]]}";
            QFile journal(test::tempDir() + "/full-out/.results.csv.journal");
            QVERIFY(journal.open(QIODevice::Append));
            journal.write(QByteArray::number(payload.size()) + " 0123456789abcdef " + payload + "\n");
            journal.write("57 0123456789abcdef {\"path\":\"" + dir.toUtf8() + "/img028.csv\",\"hash\":\"");
        }
        // With room again, --resume finishes the run as one uninterrupted run would have.
        const auto resumed = test::runCli(brightest(out) << "--resume" << dir);
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
        QVERIFY2(!resumed.err.contains(" 0 already done"), resumed.err.constData());
        QCOMPARE(fileBytes(out), fileBytes(fresh));
        // A device that is full: exit 3, one line.
        const auto dev = test::runCli(brightest("/dev/full") << dir + "/img000.csv");
        QCOMPARE(dev.exitCode, 3);
        QVERIFY2(test::oneErrorLine(dev.err), dev.err.constData());
    }

    void fileChangedWhileRead() {
        // A large CSV image (slow to parse); the test rewrites its first digit as soon as glint-cli has read
        // its first bytes (inotify), so the content before and after the reading differ.
        const QString dir = test::tempDir() + "/moving";
        QDir().mkpath(dir);
        const QString path = dir + "/moving.csv";
        const QString out = test::tempDir() + "/moving.csv";
        bool reported = false;
        for (int attempt = 0; attempt < 3 && !reported; ++attempt) {
            QByteArray csv;
            csv.reserve(14 << 20);
            for (int y = 0; y < 1500; ++y) {
                for (int x = 0; x < 2000; ++x) {
                    if (x) csv.append(',');
                    csv.append(QByteArray::number(100 + (x * 7 + y * 13) % 800));
                }
                csv.append('\n');
            }
            test::writeFile(path, csv);
            const int fd = inotify_init1(IN_CLOEXEC);
            QVERIFY(fd >= 0);
            QVERIFY(inotify_add_watch(fd, path.toLocal8Bit().constData(), IN_ACCESS) >= 0);
            std::atomic<bool> changed{false};
            std::thread writer([&] {
                pollfd pfd{fd, POLLIN, 0};
                if (::poll(&pfd, 1, 60000) != 1) return;
                const int f = ::open(path.toLocal8Bit().constData(), O_WRONLY);
                if (f >= 0 && ::pwrite(f, "9", 1, 0) == 1) changed = true;
                if (f >= 0) ::close(f);
            });
            const auto r = test::runCli({"batch", "--algo", "info", "--failures", dir + "/failed.txt", "--out", out, path});
            writer.join();
            ::close(fd);
            QVERIFY(changed);
            QCOMPARE(r.exitCode, 0);
            reported = r.err.contains("failed '" + path.toUtf8() + "': changed while being read");
            if (!reported) continue; // the rewrite came after the second reading: too late to be seen, try again
            QVERIFY(!fileBytes(out).contains(path.toUtf8()));
            QVERIFY(fileBytes(dir + "/failed.txt").contains("\n" + path.toUtf8() + "\n"));
        }
        QVERIFY2(reported, "the rewritten file was accepted three times");
        // Still now: --resume takes it again (a file that changed is never counted as done).
        const auto r = test::runCli({"batch", "--algo", "info", "--resume", "--out", out, path});
        QVERIFY2(r.exitCode == 0 && r.err.contains("1 of 1 files done"), r.err.constData());
        QVERIFY(fileBytes(out).contains(path.toUtf8() + ",CSV,2000,1500"));
    }
};

QTEST_GUILESS_MAIN(TestBatchResume)
#include "test_batch_resume.moc"
