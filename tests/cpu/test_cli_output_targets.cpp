// glint-cli's output targets: a device, FIFO or /dev/stdout given as an output is written in place, never
// replaced by a file; a FIFO nobody reads fails at once (exit 3); a symbolic link stays a link and a folder
// is refused; a full or closed standard output is an error (exit 3, one line); the outputs of a run are
// all-or-nothing (a failed run leaves older files intact and no temporary behind). Outputs that collide
// (issue 35) are exit 2 with one line before anything is written: an output naming an input or another
// output (by path, through "..", a symbolic or a hard link), or a second writer of standard output.
#include "tests/cpu/test_cli_outputs_support.h"
#include "tests/support/TestSupport.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace glint;
using namespace glint::test::clioutputs;

namespace {

QString cliPath() {
    return qEnvironmentVariableIsSet("GLINT_CLI") ? qEnvironmentVariable("GLINT_CLI") : QStringLiteral(GLINT_CLI_PATH);
}

// Waits for a started glint-cli (killed after 60 s) and collects its exit code and standard error.
test::CliResult collect(QProcess& process) {
    test::CliResult r;
    if (!process.waitForStarted(10000)) return r;
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
        return r;
    }
    r.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    r.err = process.readAllStandardError();
    return r;
}

// Runs glint-cli with standard output sent to stdoutFile (e.g. /dev/full).
test::CliResult runCliTo(const QString& stdoutFile, const QStringList& args) {
    QProcess process;
    process.setStandardOutputFile(stdoutFile);
    process.start(cliPath(), args);
    return collect(process);
}

// Runs glint-cli with its standard output closed (sh: >&-).
test::CliResult runCliStdoutClosed(const QStringList& args) {
    QStringList shArgs{"-c", "exec \"$0\" \"$@\" >&-", cliPath()};
    shArgs += args;
    QProcess process;
    process.start("/bin/sh", shArgs);
    return collect(process);
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList hiddenTemporaries(const QString& dir) {
    return QDir(dir).entryList(QStringList{"*.tmp-*"}, QDir::Files | QDir::Hidden | QDir::System);
}

bool oneLine(const QByteArray& err) { return err.endsWith('\n') && err.count('\n') == 1; }

// The lines of glint-cli's messages (batch also writes progress lines, which are left out).
QByteArray errorLines(const QByteArray& err) {
    QByteArray out;
    for (const QByteArray& line : err.split('\n'))
        if (line.startsWith("glint-cli: ")) out += line + '\n';
    return out;
}

mode_t fileType(const QString& path, bool follow = true) {
    struct stat st {};
    const int rc = follow ? ::stat(path.toLocal8Bit().constData(), &st) : ::lstat(path.toLocal8Bit().constData(), &st);
    return rc == 0 ? (st.st_mode & S_IFMT) : 0;
}

// Makes `path` a null device of our own (as root: a test never risks the system's /dev/null). Empty when it
// can be opened for writing, else why not (the test skips).
QString makeNullDevice(const QString& path) {
    if (::mknod(path.toLocal8Bit().constData(), S_IFCHR | 0666, makedev(1, 3)) != 0)
        return "cannot create a device node here (not root?)";
    const int probe = ::open(path.toLocal8Bit().constData(), O_WRONLY);
    if (probe < 0) return "device nodes cannot be opened in the temporary folder (nodev mount)";
    ::close(probe);
    return {};
}

} // namespace

class CliOutputTargetsTest : public QObject {
    Q_OBJECT

private slots:
    // 1. A device node given as any output is written into, and stays a device.
    void deviceTargetIsWrittenInPlace_data() {
        QTest::addColumn<QStringList>("options");
        QTest::newRow("json") << QStringList{"--json", "@"};
        QTest::newRow("overlay") << QStringList{"--overlay", "@"};
        QTest::newRow("regions reg") << QStringList{"--regions", "@.reg"};
        QTest::newRow("json and overlay") << QStringList{"--json", "@", "--overlay", "@"};
    }
    void deviceTargetIsWrittenInPlace() {
        QFETCH(QStringList, options);
        if (!GLINT_WITH_IMGCODECS && options.contains("--overlay")) QSKIP("this build writes no PNG overlays");
        const auto [dir, in] = freshMatrixDir("device");
        const QString dev = dir + "/null";
        const QString devReg = dir + "/null.reg";
        for (const QString& p : {dev, devReg})
            if (const QString why = makeNullDevice(p); !why.isEmpty()) QSKIP(qPrintable(why));
        QStringList args{"brightest", in, "--pivot", "0"};
        for (QString o : options) args << o.replace("@", dev);
        const auto r = test::runCli(args, 30000);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(fileType(dev, false), mode_t(S_IFCHR));
        QCOMPARE(fileType(devReg, false), mode_t(S_IFCHR));
        QVERIFY(hiddenTemporaries(dir).isEmpty());
    }

    void batchOutToDevice() {
        const auto [dir, in] = freshMatrixDir("batchdev");
        const QString dev = dir + "/null";
        if (const QString why = makeNullDevice(dev); !why.isEmpty()) QSKIP(qPrintable(why));
        const auto r = test::runCli({"batch", "--algo", "info", "--out", dev, in}, 30000);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(fileType(dev, false), mode_t(S_IFCHR));
    }

    // A FIFO with a reader receives the JSON and stays a FIFO.
    void fifoWithReader() {
        const auto [dir, in] = freshMatrixDir("fifo");
        const QString fifo = dir + "/out.json";
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        const int reader = ::open(fifo.toLocal8Bit().constData(), O_RDONLY | O_NONBLOCK);
        QVERIFY(reader >= 0);
        const auto r = test::runCli({"brightest", in, "--pivot", "0", "--json", fifo}, 30000);
        QByteArray got(1 << 16, '\0');
        const ssize_t n = ::read(reader, got.data(), got.size());
        ::close(reader);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(n > 0);
        got.truncate(static_cast<int>(n));
        const QJsonObject doc = QJsonDocument::fromJson(got).object();
        QCOMPARE(doc.value("algorithm").toString(), QString("brightest"));
        QCOMPARE(fileType(fifo, false), mode_t(S_IFIFO));
        QVERIFY(hiddenTemporaries(dir).isEmpty());
    }

    // A FIFO nobody reads: no hang, exit 3, one line, still a FIFO.
    void fifoWithoutReader() {
        const auto [dir, in] = freshMatrixDir("fifo-noreader");
        const QString fifo = dir + "/out.json";
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        const auto r = test::runCli({"brightest", in, "--json", fifo}, 20000);
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.err, QByteArray("glint-cli: cannot write '" + fifo.toLocal8Bit() +
                                   "': no process is reading the FIFO\n"));
        QCOMPARE(fileType(fifo, false), mode_t(S_IFIFO));
        QVERIFY(hiddenTemporaries(dir).isEmpty());
    }

    // --json /dev/stdout writes to the process's standard output (a pipe here, then a file) and leaves
    // the /dev/stdout link alone.
    void devStdout() {
        const auto [dir, in] = freshMatrixDir("devstdout");
        auto r = test::runCli({"brightest", in, "--pivot", "0", "--json", "/dev/stdout"}, 30000);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("{"), r.out.constData());
        QVERIFY(r.out.contains("\"algorithm\": \"brightest\""));
        QVERIFY(r.out.contains(" #1 ")); // the text summary follows the JSON
        QCOMPARE(fileType("/dev/stdout", false), mode_t(S_IFLNK));

        const QString file = dir + "/stdout.txt";
        QProcess process;
        process.setStandardOutputFile(file);
        process.start(cliPath(), {"kmax1d", "--random", "50", "--k", "2", "--json", "/dev/stdout"});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 0);
        const QByteArray got = readAll(file);
        QVERIFY2(got.startsWith("{") && got.contains("\"kmax1d\""), got.constData());
        QCOMPARE(fileType("/dev/stdout", false), mode_t(S_IFLNK));
    }

    // A symbolic link to a file stays a link (the file it names is replaced); a folder is refused.
    void symlinkAndFolderTargets() {
        const auto [dir, in] = freshMatrixDir("symlink");
        const QString real = writeText(dir + "/real.json", "old\n");
        const QString link = dir + "/link.json";
        QVERIFY(QFile::link(real, link));
        auto r = test::runCli({"brightest", in, "--json", link}, 30000);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(fileType(link, false), mode_t(S_IFLNK));
        QCOMPARE(QJsonDocument::fromJson(readAll(real)).object().value("algorithm").toString(), QString("brightest"));
        QVERIFY(hiddenTemporaries(dir).isEmpty());

        QVERIFY(QDir().mkpath(dir + "/folder"));
        r = test::runCli({"brightest", in, "--json", dir + "/folder"}, 30000);
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.err, QByteArray("glint-cli: cannot write '" + (dir + "/folder").toLocal8Bit() + "': Is a directory\n"));
        QCOMPARE(fileType(dir + "/folder"), mode_t(S_IFDIR));
    }

    // 2. A full standard output: exit 3 and one line, for JSON, text and batch CSV alike.
    void fullStdout_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("json -") << QStringList{"brightest", "@", "--json", "-"};
        QTest::newRow("text") << QStringList{"brightest", "@"};
        QTest::newRow("info text") << QStringList{"info", "@"};
        QTest::newRow("kmax1d json") << QStringList{"kmax1d", "--random", "100", "--k", "3", "--json", "-"};
        QTest::newRow("batch out -") << QStringList{"batch", "--algo", "info", "--out", "-", "@"};
        QTest::newRow("json /dev/stdout") << QStringList{"brightest", "@", "--json", "/dev/stdout"};
        QTest::newRow("help") << QStringList{"--help"};
    }
    void fullStdout() {
        QFETCH(QStringList, args);
        if (!QFile::exists("/dev/full")) QSKIP("no /dev/full here");
        const auto [dir, in] = freshMatrixDir("full");
        for (QString& a : args) a.replace("@", in);
        const auto r = runCliTo("/dev/full", args);
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(errorLines(r.err), QByteArray("glint-cli: cannot write to standard output: No space left on device\n"));
    }

    void closedStdout_data() { fullStdout_data(); }
    void closedStdout() {
        QFETCH(QStringList, args);
        const auto [dir, in] = freshMatrixDir("closed");
        for (QString& a : args) a.replace("@", in);
        const auto r = runCliStdoutClosed(args);
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(errorLines(r.err), QByteArray("glint-cli: cannot write to standard output: Bad file descriptor\n"));
        QVERIFY(hiddenTemporaries(dir).isEmpty());
    }

    // A closed standard output must not become one of the files the run writes.
    void closedStdoutWithFileOutput() {
        const auto [dir, in] = freshMatrixDir("closed-file");
        const QString json = dir + "/r.json";
        const auto r = runCliStdoutClosed({"brightest", in, "--pivot", "0", "--json", json});
        QCOMPARE(r.exitCode, 3); // the text summary could not be written
        QVERIFY(oneLine(r.err));
        const QJsonObject doc = QJsonDocument::fromJson(readAll(json)).object();
        QCOMPARE(doc.value("algorithm").toString(), QString("brightest"));
    }

    // 3. All outputs or none: a failing output keeps every older file and leaves no temporary.
    void outputsAreAllOrNothing_data() {
        test::columns<QStringList, QByteArray>({"failing", "reason"});
        QTest::newRow("overlay in a missing folder") << QStringList{"--overlay", "@/missing/x.png"}
                                                     << QByteArray("No such file or directory");
        QTest::newRow("regions in a missing folder") << QStringList{"--regions", "@/missing/x.reg"}
                                                     << QByteArray("No such file or directory");
        QTest::newRow("regions into a FIFO without reader") << QStringList{"--regions", "@/fifo.reg"}
                                                            << QByteArray("no process is reading the FIFO");
        QTest::newRow("json - and a bad overlay") << QStringList{"--json", "-", "--overlay", "@/missing/x.png"}
                                                  << QByteArray("No such file or directory");
    }
    void outputsAreAllOrNothing() {
        QFETCH(QStringList, failing);
        if (!GLINT_WITH_IMGCODECS && failing.contains("--overlay")) QSKIP("this build writes no PNG overlays");
        QFETCH(QByteArray, reason);
        const auto [dir, in] = freshMatrixDir("transaction");
        QCOMPARE(::mkfifo((dir + "/fifo.reg").toLocal8Bit().constData(), 0600), 0);
        const QByteArray old = "{\"old\": true}\n";
        const QString keep = writeText(dir + "/keep.json", old);
        const QString keepReg = writeText(dir + "/keep.reg", "# old regions\n");
        QStringList args{"brightest", in, "--pivot", "0", "--json", keep, "--regions", keepReg};
        for (QString f : failing) args << f.replace("@", dir);
        const auto r = test::runCli(args, 30000);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(oneLine(r.err) && r.err.contains(reason), r.err.constData());
        QVERIFY(r.out.isEmpty()); // not even --json -
        QCOMPARE(readAll(keep), old);
        QCOMPARE(readAll(keepReg), QByteArray("# old regions\n"));
        QVERIFY2(hiddenTemporaries(dir).isEmpty(), qPrintable(hiddenTemporaries(dir).join(' ')));
        QVERIFY(!QFile::exists(dir + "/missing"));

        // The same run with good outputs replaces both.
        const auto ok = test::runCli({"brightest", in, "--pivot", "0", "--json", keep, "--regions", keepReg}, 30000);
        QCOMPARE(ok.exitCode, 0);
        QVERIFY(readAll(keep) != old);
        QVERIFY(readAll(keepReg).contains("box("));
        QVERIFY(hiddenTemporaries(dir).isEmpty());
    }

    void commonOutputsAreAllOrNothing() {
        const QString dir = freshDir("transaction-common");
        const QString a = writeText(dir + "/a.csv", "1,2,3\n4,5,6\n7,8,9\n");
        const QString b = writeText(dir + "/b.csv", "5,6\n8,9\n");
        const QString keep = writeText(dir + "/keep.json", "old\n");
        const auto r = test::runCli({"common", a, b, "--json", keep, "--mask", dir + "/missing/m.png"}, 30000);
        QCOMPARE(r.exitCode, 3);
        QVERIFY(oneLine(r.err));
        QCOMPARE(readAll(keep), QByteArray("old\n"));
        QVERIFY(hiddenTemporaries(dir).isEmpty());
    }

    // Outputs that collide, every command: exit 2, one line saying why, nothing written, the input intact.
    // "@in" is the input matrix, "@d" the test's folder, "@out" the file standard output goes to; in.lnk, in.hard (and out.lnk.reg → out.json) are
    // a symbolic and a hard link to it.
    void collidingOutputs_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("why");
        const QByteArray input = "the input", same = "name the same file", stdOut = "standard output";
        const QStringList b{"brightest", "@in", "--pivot", "0"};
        QTest::newRow("overlay /dev/stdout with json -") << b + QStringList{"--json", "-", "--overlay", "/dev/stdout"} << stdOut;
        QTest::newRow("overlay /proc/self/fd/1 with json -") << b + QStringList{"--overlay", "/proc/self/fd/1", "--json", "-"} << stdOut;
        QTest::newRow("overlay /dev/fd/1 with json -") << b + QStringList{"--json", "-", "--overlay", "/dev/fd/1"} << stdOut;
        QTest::newRow("overlay - with json -") << b + QStringList{"--json", "-", "--overlay", "-"} << stdOut;
        QTest::newRow("json /dev/stdout and overlay -") << b + QStringList{"--json", "/dev/stdout", "--overlay", "-"} << stdOut;
        QTest::newRow("overlay is the input") << b + QStringList{"--overlay", "@in"} << input;
        QTest::newRow("json is the input") << b + QStringList{"--json", "@in"} << input;
        QTest::newRow("json via .. is the input") << b + QStringList{"--json", "@d/sub/../m.csv"} << input;
        QTest::newRow("overlay via a symlink to the input") << b + QStringList{"--overlay", "@d/in.lnk"} << input;
        QTest::newRow("json via a hard link to the input") << b + QStringList{"--json", "@d/in.hard"} << input;
        QTest::newRow("regions and overlay the same") << b + QStringList{"--regions", "@d/x.reg", "--overlay", "@d/x.reg"} << same;
        QTest::newRow("regions twice") << b + QStringList{"--regions", "@d/x.reg", "--regions", "@d/./x.reg"} << same;
        QTest::newRow("json and regions via a symlink") << b + QStringList{"--json", "@d/out.json", "--regions", "@d/out.lnk.reg"} << same;
        QTest::newRow("params is the json") << b + QStringList{"--params", "@d/p.json", "--json", "@d/p.json"} << input;
        QTest::newRow("brightest catalog is the json") << b + QStringList{"--json", "@d/c.csv", "--catalog", "@d/c.csv"} << same;
        QTest::newRow("trace overlay is the input") << QStringList{"trace", "@in", "--from", "0,0", "--to", "3,2", "--overlay", "@in"} << input;
        QTest::newRow("common mask is the second image") << QStringList{"common", "@in", "@d/b.csv", "--mask", "@d/b.csv"} << input;
        QTest::newRow("common json is the first image") << QStringList{"common", "@in", "@d/b.csv", "--json", "@d/in.lnk"} << input;
        QTest::newRow("sources catalog and segmentation") << QStringList{"sources", "@in", "--catalog", "@d/s.fits", "--segmentation", "@d/s.fits"} << same;
        QTest::newRow("sources map is the weight") << QStringList{"sources", "@in", "--weight", "@d/b.csv", "--rms-map", "@d/b.csv"} << input;
        QTest::newRow("sources background into json -") << QStringList{"sources", "@in", "--json", "-", "--background-map", "/dev/stdout"} << stdOut;
        QTest::newRow("kmax1d json is the input") << QStringList{"kmax1d", "@in", "--k", "2", "--json", "@in"} << input;
        QTest::newRow("kmax1d json is params") << QStringList{"kmax1d", "--random", "20", "--k", "2", "--params", "@d/p.json", "--json", "@d/p.json"} << input;
        QTest::newRow("info json is the input") << QStringList{"info", "@in", "--json", "@d/in.hard"} << input;
        QTest::newRow("batch out is an input") << QStringList{"batch", "--algo", "info", "--out", "@in", "@in", "@d/b.csv"} << input;
        QTest::newRow("batch failures is the out") << QStringList{"batch", "--algo", "info", "--out", "@d/r.csv", "--failures", "@d/./r.csv", "@in"} << same;
        QTest::newRow("batch failures is an input") << QStringList{"batch", "--algo", "info", "--out", "@d/r.csv", "--failures", "@d/in.lnk", "@in"} << input;
        QTest::newRow("batch out is --with") << QStringList{"batch", "--algo", "common", "--with", "@d/b.csv", "--out", "@d/b.csv", "@in"} << input;
        QTest::newRow("bench report into its table") << QStringList{"bench", "brightest", "--sizes", "48", "--report", "@out"} << stdOut;
    }
    void collidingOutputs() {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, why);
        const auto [dir, in] = freshMatrixDir("colliding");
        const QString b = writeText(dir + "/b.csv", "5,6\n8,9\n");
        const QString params = writeText(dir + "/p.json", "{}\n");
        QVERIFY(QDir().mkpath(dir + "/sub"));
        QVERIFY(QFile::link(in, dir + "/in.lnk"));
        QCOMPARE(::link(in.toLocal8Bit().constData(), (dir + "/in.hard").toLocal8Bit().constData()), 0);
        const QString earlier = writeText(dir + "/out.json", "{\"earlier\": true}\n"); // an earlier run's output
        QVERIFY(QFile::link(earlier, dir + "/out.lnk.reg"));
        const QStringList before = QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
        const QByteArray inBytes = readAll(in), bBytes = readAll(b), paramsBytes = readAll(params), earlierBytes = readAll(earlier);
        // Standard output is a file here ("@out"), so that a second writer of it would show.
        const QString stdoutFile = freshDir("colliding-stdout") + "/stdout.md";
        for (QString& a : args) a.replace("@in", in).replace("@d", dir).replace("@out", stdoutFile);

        const auto r = runCliTo(stdoutFile, args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(oneLine(errorLines(r.err)) && r.err.contains(why), r.err.constData());
        QCOMPARE(readAll(stdoutFile), QByteArray()); // nothing written, not even --json -
        QCOMPARE(QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot), before);
        QCOMPARE(readAll(in), inBytes);
        QCOMPARE(readAll(b), bBytes);
        QCOMPARE(readAll(params), paramsBytes);
        QCOMPARE(readAll(earlier), earlierBytes);
    }

    // The file that standard output is, named as an output while --json - writes there: the same pipe
    // or file under another name. And what stays allowed: the null device for any number of outputs.
    void standardOutputByAnotherName() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build writes no PNG overlays");
        const auto [dir, in] = freshMatrixDir("stdout-alias");
        const QString out = dir + "/stdout.json";
        const auto r = runCliTo(out, {"brightest", in, "--pivot", "0", "--json", "-", "--overlay", out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(oneLine(r.err) && r.err.contains("standard output"), r.err.constData());
        QCOMPARE(readAll(out), QByteArray());

        const auto ok = runCliTo(out, {"brightest", in, "--pivot", "0", "--json", "-", "--overlay", "/dev/null"});
        QCOMPARE(ok.exitCode, 0);
        QVERIFY(QJsonDocument::fromJson(readAll(out)).isObject()); // one JSON document, nothing else
        QVERIFY(hiddenTemporaries(dir).isEmpty());
    }
};

QTEST_GUILESS_MAIN(CliOutputTargetsTest)
#include "test_cli_output_targets.moc"
