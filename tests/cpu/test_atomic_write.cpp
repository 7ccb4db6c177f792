// Atomic writes: an export into a folder that cannot be written, under a path through a plain file, or
// past the file size limit (RLIMIT_FSIZE, as a full disk would) fails with a message and leaves no file
// and no temporary behind, and an older file of that name intact. Tests run as root here and in CI, and
// root ignores permissions: the read-only cases drop to "nobody" in a child process.
#include "tests/support/TestSupport.h"

#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/export/ExportRegions.h"
#include "core/export/MaskPng.h"
#include "core/export/TimingReport.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QtTest>

#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <random>

using namespace glint;

namespace {

constexpr uid_t kNobody = 65534;

// Runs body in a forked child; returns its exit code (body's return value), or -1 if it died.
int inChild(const std::function<int()>& body) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        int code = 99;
        try {
            code = body();
        } catch (...) {
            code = 98;
        }
        ::_exit(code);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool dropToNobody() {
    if (::geteuid() != 0) return true; // already without root's override
    return ::setgroups(0, nullptr) == 0 && ::setgid(kNobody) == 0 && ::setuid(kNobody) == 0;
}

void lowerFileSizeLimit(rlim_t bytes) {
    const rlimit limit{bytes, bytes};
    ::setrlimit(RLIMIT_FSIZE, &limit);
}

// 0: OutputError naming the path with `reason` in its message; 1: no error; 2: another message.
int expectOutputError(const std::function<void()>& write, const std::string& path, const std::string& reason) {
    try {
        write();
    } catch (const OutputError& e) {
        const std::string what = e.what();
        return what.find("cannot write '" + path + "'") != std::string::npos && what.find(reason) != std::string::npos ? 0 : 2;
    }
    return 1;
}

// A folder every user can enter, so that a child running as nobody reaches it.
QString openFolder(const QString& name) {
    const QString dir = QDir::tempPath() + "/glint-atomic-" + QString::number(::getpid()) + "-" + name;
    QDir(dir).removeRecursively();
    QDir().mkpath(dir);
    ::chmod(dir.toLocal8Bit().constData(), 0755);
    return dir;
}

QStringList entries(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

std::string bigText(std::size_t bytes) { return std::string(bytes, 'x'); }

// glint-cli with a lowered file size limit and/or as nobody, set in the child before exec.
test::CliResult runLimitedCli(const QStringList& args, rlim_t fileSizeLimit, bool asNobody) {
    QProcess process;
    process.setChildProcessModifier([=] {
        if (fileSizeLimit) lowerFileSizeLimit(fileSizeLimit);
        if (asNobody && !dropToNobody()) ::_exit(77);
    });
    return test::runProcess(process, test::cliPath(), args);
}

} // namespace

class TestAtomicWrite : public QObject {
    Q_OBJECT

    QStringList folders_;

private slots:
    void cleanupTestCase() {
        for (const QString& dir : folders_) {
            ::chmod(dir.toLocal8Bit().constData(), 0755);
            QDir(dir).removeRecursively();
        }
    }

    void pathThroughAPlainFile() {
        const QString dir = openFolder("plain");
        folders_ << dir;
        QFile plain(dir + "/plain.txt");
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.write("keep");
        plain.close();
        const std::string path = (dir + "/plain.txt/out.reg").toStdString();
        QCOMPARE(expectOutputError([&] { writeFileAtomically(path, "data"); }, path, "Not a directory"), 0);
        QCOMPARE(entries(dir), QStringList{"plain.txt"});
    }

    void failingWriterLeavesNothing() {
        const QString dir = openFolder("writer");
        folders_ << dir;
        const std::string path = (dir + "/out.csv").toStdString();
        writeFileAtomically(path, "old\n");
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, writeFileAtomically(path, [](std::ostream& out) {
            out << "half a file";
            throw std::runtime_error("formatting failed");
        }));
        QCOMPARE(entries(dir), QStringList{"out.csv"});
        QFile f(dir + "/out.csv");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("old\n"));
    }

    void readOnlyFolder() {
        const QString dir = openFolder("readonly");
        folders_ << dir;
        const QString locked = dir + "/locked";
        QDir().mkpath(locked);
        QFile::copy(test::samplePath("aero.png"), dir + "/aero.png");
        ::chmod((dir + "/aero.png").toLocal8Bit().constData(), 0644);
        ::chmod(locked.toLocal8Bit().constData(), 0555);
        const std::string path = (locked + "/out.reg").toStdString();
        const int code = inChild([&] {
            if (!dropToNobody()) return 77;
            return expectOutputError([&] { writeFileAtomically(path, "data"); }, path, "Permission denied");
        });
        if (code == 77) QSKIP("cannot drop root privileges here");
        QCOMPARE(code, 0);
        QVERIFY(entries(locked).isEmpty());

        // The command line: exit 3, one line on stderr, nothing written.
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PNG (GLINT_WITH_IMGCODECS=OFF): the CLI part is left out");
        const auto r = runLimitedCli({"brightest", dir + "/aero.png", "--regions", locked + "/cli.reg"}, 0, true);
        if (r.exitCode == 77) QSKIP("cannot drop root privileges for glint-cli");
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains("cannot write '" + (locked + "/cli.reg").toUtf8() + "'"), r.err.constData());
        QVERIFY(entries(locked).isEmpty());
    }

    void fileSizeLimit() {
        const QString dir = openFolder("fsize");
        folders_ << dir;
        const std::string fresh = (dir + "/fresh.geojson").toStdString(), old = (dir + "/old.csv").toStdString();
        writeFileAtomically(old, "old\n");
        const std::string reason = "the file size limit was reached";
        const int code = inChild([&] {
            lowerFileSizeLimit(4096);
            int bad = 0;
            if (expectOutputError([&] { writeFileAtomically(fresh, bigText(100000)); }, fresh, reason) != 0) bad |= 1;
            if (expectOutputError([&] { writeFileAtomically(old, bigText(100000)); }, old, reason) != 0) bad |= 2;
            // Every exporter goes through the atomic write.
            RegionDocument doc;
            ExportRegion region;
            region.points.assign(5000, {1.5, 2.5});
            region.kind = RegionKind::Trace;
            doc.regions = {region};
            const std::string reg = (dir + "/r.reg").toStdString(), timing = (dir + "/t.html").toStdString(),
                              mask = (dir + "/m.png").toStdString();
            if (expectOutputError([&] { writeRegionFile(reg, doc); }, reg, reason) != 0) bad |= 4;
            std::vector<TimingRun> runs(300);
            if (expectOutputError([&] { writeTimingReport(timing, runs, {}); }, timing, reason) != 0) bad |= 8;
            std::vector<std::uint8_t> noise(512 * 512);
            std::mt19937 rng(1);
            for (auto& v : noise) v = rng() & 1; // incompressible enough to pass the limit
            if (GLINT_WITH_IMGCODECS &&
                expectOutputError([&] { writeMaskPng(mask, noise, 512, 512); }, mask, reason) != 0)
                bad |= 16;
            return bad;
        });
        QCOMPARE(code, 0);
        QCOMPARE(entries(dir), QStringList{"old.csv"});
        QFile f(dir + "/old.csv");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("old\n"));
    }

    void fileSizeLimitCli() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PNG (GLINT_WITH_IMGCODECS=OFF)");
        const QString dir = openFolder("fsize-cli");
        folders_ << dir;
        const QString geo = dir + "/x.geojson", csv = dir + "/batch.csv";
        const auto r = runLimitedCli({"brightest", test::samplePath("aero.png"), "--k", "40", "--regions", geo}, 1024, false);
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains("the file size limit was reached"), r.err.constData());
        const auto b = runLimitedCli({"batch", "--algo", "info", "--out", csv, test::samplePath("")}, 200, false);
        QCOMPARE(b.exitCode, 3);
        QVERIFY2(b.err.contains("cannot write '" + csv.toUtf8() + "'"), b.err.constData());
        QVERIFY(entries(dir).isEmpty());
        // The same commands without the limit succeed: the limit was the only reason.
        QCOMPARE(runLimitedCli({"brightest", test::samplePath("aero.png"), "--k", "40", "--regions", geo}, 0, false).exitCode, 0);
        QVERIFY(QFile::exists(geo));
    }
};

QTEST_GUILESS_MAIN(TestAtomicWrite)
#include "test_atomic_write.moc"
