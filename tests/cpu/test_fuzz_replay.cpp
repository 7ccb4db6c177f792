// Replays the fuzzing corpus (fuzz/corpus/*/: the seeds) and the committed reproducers of past findings
// (fuzz/crashes/*/) through glint-cli info, one child process per file, so that a crash, an abort or a
// hang is a test failure here and not the end of the test run. Every file must end with exit 0 or 3 and
// at most one printable line on stderr, within 20 s. The seeds of the fits, dicom, raster and text
// folders are valid files and must open (exit 0); in a lean build without imgcodecs the raster ones
// must be refused with exit 3 and a message instead.
//
// Files listed in fuzz/crashes/KNOWN.md reproduce bugs whose fix is on its way; they fail like any other
// until it lands. GLINT_FUZZ_REPLAY_SKIP_KNOWN=1 skips them (to see the rest of the suite green).
#include "tests/support/TestSupport.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

#include <sys/resource.h>

namespace {

const QString kFuzzDir = QStringLiteral(GLINT_SOURCE_DIR "/fuzz");
constexpr int kTimeoutMs = 20000;

QString cliPath() {
    return qEnvironmentVariableIsSet("GLINT_CLI") ? qEnvironmentVariable("GLINT_CLI") : QStringLiteral(GLINT_CLI_PATH);
}

// The "target/file" names of KNOWN.md's list items that start with the name in backquotes, e.g.
// "- `fits/known-ztile1-zero-sigfpe.fits`: ...". Other mentions of a file do not mark it known.
QStringList knownFindings() {
    QFile file(kFuzzDir + "/crashes/KNOWN.md");
    QStringList names;
    if (!file.open(QIODevice::ReadOnly)) return names;
    const QString text = QString::fromUtf8(file.readAll());
    static const QRegularExpression quoted(QStringLiteral("^- `([a-z]+/[^`/]+)`"), QRegularExpression::MultilineOption);
    for (auto it = quoted.globalMatch(text); it.hasNext();) names << it.next().captured(1);
    return names;
}

// Every file directly inside fuzz/<kind>/<target>/, sorted, as "<target>/<name>".
QStringList filesOf(const QString& kind) {
    QStringList out;
    const QDir top(kFuzzDir + "/" + kind);
    for (const QString& target : top.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QDir dir(top.filePath(target));
        for (const QString& name : dir.entryList(QDir::Files | QDir::Hidden, QDir::Name)) out << target + "/" + name;
    }
    return out;
}

bool printableLine(const QByteArray& bytes) {
    for (const char c : bytes) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 && c != '\t') return false;
        if (u == 0x7f) return false;
    }
    return true;
}

} // namespace

class TestFuzzReplay : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY2(QFileInfo(cliPath()).isExecutable(), qPrintable("glint-cli not found at " + cliPath()));
        QVERIFY2(!filesOf("corpus").isEmpty(), "fuzz/corpus holds no files");
        timer_.start();
    }

    void replay_data() {
        glint::test::columns<QString, bool, QString>({"path", "mustOpen", "known"});
        const QStringList known = knownFindings();
        const bool skipKnown = qEnvironmentVariableIntValue("GLINT_FUZZ_REPLAY_SKIP_KNOWN") == 1;
        for (const QString& kind : {QStringLiteral("corpus"), QStringLiteral("crashes")})
            for (const QString& file : filesOf(kind)) {
                const bool isKnown = kind == "crashes" && known.contains(file);
                if (isKnown && skipKnown) continue;
                const QString target = file.section('/', 0, 0);
                const bool mustOpen = kind == "corpus" && target != "detect";
                QTest::newRow(qPrintable(kind + "/" + file))
                    << kFuzzDir + "/" + kind + "/" + file << mustOpen << (isKnown ? file : QString());
            }
    }

    void replay() {
        QFETCH(QString, path);
        QFETCH(bool, mustOpen);
        QFETCH(QString, known);
        const QString note = known.isEmpty() ? QString() : " (a known issue, see fuzz/crashes/KNOWN.md)";

        QProcess process;
        process.start(cliPath(), {"info", path});
        QVERIFY2(process.waitForStarted(10000), "glint-cli did not start");
        if (!process.waitForFinished(kTimeoutMs)) {
            process.kill();
            process.waitForFinished();
            QFAIL(qPrintable("glint-cli info hung (still running after 20 s)" + note));
        }
        const QByteArray err = process.readAllStandardError();
        QVERIFY2(process.exitStatus() == QProcess::NormalExit,
                 qPrintable(QString("glint-cli info crashed (signal), stderr: %1%2").arg(QString::fromUtf8(err.left(300)), note)));
        const int code = process.exitCode();
        QVERIFY2(code == 0 || code == 3, qPrintable(QString("exit %1, stderr: %2%3").arg(code).arg(QString::fromUtf8(err.left(300)), note)));

        // Bounded memory: no file (all under 64 KB) may make glint-cli allocate what it declares. The peak
        // of every child so far: the first file over the bound fails here, and so do the ones after it.
        struct rusage children {};
        QCOMPARE(::getrusage(RUSAGE_CHILDREN, &children), 0);
        QVERIFY2(children.ru_maxrss < 1024 * 1024,
                 qPrintable(QString("glint-cli peak memory %1 MiB%2").arg(children.ru_maxrss / 1024).arg(note)));

        // One line at most, printable, and a message whenever the file is refused.
        QByteArray text = err;
        if (text.endsWith('\n')) text.chop(1);
        QVERIFY2(!text.contains('\n'), qPrintable("more than one line on stderr: " + QString::fromUtf8(err.left(500))));
        QVERIFY2(printableLine(text), qPrintable("unprintable bytes on stderr: " + QString::fromLatin1(err.toHex().left(200))));
        if (code == 3) QVERIFY2(!text.isEmpty(), "exit 3 without a message");

        const bool raster = path.contains("/corpus/raster/");
        if (mustOpen && raster && !GLINT_WITH_IMGCODECS) {
            QCOMPARE(code, 3); // the lean build says it does not read this format
        } else if (mustOpen) {
            QVERIFY2(code == 0, qPrintable("a seed file did not open: " + QString::fromUtf8(err)));
        }
    }

    void cleanupTestCase() {
        // The whole replay must stay quick; a slow file is worth a look even when it passes.
        qInfo("replayed %lld files in %.1f s", static_cast<long long>(filesOf("corpus").size() + filesOf("crashes").size()),
              timer_.elapsed() / 1000.0);
    }

private:
    QElapsedTimer timer_;
};

QTEST_GUILESS_MAIN(TestFuzzReplay)
#include "test_fuzz_replay.moc"
