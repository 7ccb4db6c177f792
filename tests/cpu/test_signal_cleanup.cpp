// glint-cli killed by SIGTERM, SIGINT or SIGHUP at any moment of a run (issue 35): no hidden temporary is
// left beside the outputs, each output is either absent or complete, and an output of an earlier run is
// either intact or wholly replaced. The run writes a large overlay PNG, JSON and regions of a generated
// 2000 x 2000 FITS image; the kill times are spread over the run's measured duration.
#include "core/util/SignalCleanup.h"
#include "tests/support/TestSupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace glint;

namespace {

QString cliPath() {
    return qEnvironmentVariableIsSet("GLINT_CLI") ? qEnvironmentVariable("GLINT_CLI") : QStringLiteral(GLINT_CLI_PATH);
}

constexpr int kSide = 2000;

// A float FITS image: noise with a few bright blobs, so that the overlay is a large, busy PNG.
void writeFits(const QString& path) {
    QByteArray header;
    const auto card = [&](const QByteArray& text) { header += text.leftJustified(80, ' ', true); };
    card("SIMPLE  =                    T");
    card("BITPIX  =                  -32");
    card("NAXIS   =                    2");
    card("NAXIS1  = " + QByteArray::number(kSide).rightJustified(20));
    card("NAXIS2  = " + QByteArray::number(kSide).rightJustified(20));
    card("END");
    header = header.leftJustified(((header.size() + 2879) / 2880) * 2880, ' ');
    QByteArray data(qsizetype(kSide) * kSide * 4, '\0');
    std::mt19937 random(35);
    std::normal_distribution<float> noise(100.0f, 10.0f);
    for (int y = 0; y < kSide; ++y)
        for (int x = 0; x < kSide; ++x) {
            float v = noise(random);
            for (int b = 0; b < 5; ++b) {
                const float cx = 400.0f + 500.0f * b, cy = 600.0f + 420.0f * b;
                const float d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
                v += 500.0f * std::exp(-d2 / (2.0f * 40.0f * 40.0f));
            }
            std::uint32_t bits;
            std::memcpy(&bits, &v, 4);
            const qsizetype at = (qsizetype(y) * kSide + x) * 4;
            data[at] = char(bits >> 24);
            data[at + 1] = char(bits >> 16);
            data[at + 2] = char(bits >> 8);
            data[at + 3] = char(bits);
        }
    data = data.leftJustified(((data.size() + 2879) / 2880) * 2880, '\0');
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QVERIFY(f.write(header) == header.size() && f.write(data) == data.size());
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Starts glint-cli in its own process (fork/exec, so that the signal goes to it alone); returns its pid.
pid_t start(const QStringList& args) {
    std::vector<QByteArray> bytes{cliPath().toLocal8Bit()};
    for (const QString& a : args) bytes.push_back(a.toLocal8Bit());
    std::vector<char*> argv;
    for (QByteArray& b : bytes) argv.push_back(b.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, STDOUT_FILENO);
        ::dup2(null, STDERR_FILENO);
        // The test runner may ignore SIGINT (a background job): the child gets the default dispositions.
        for (const int sig : {SIGTERM, SIGINT, SIGHUP}) std::signal(sig, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    return pid;
}

// Waits for the child; returns its wait status.
int finish(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

QStringList temporaries(const QString& dir) {
    QStringList out;
    for (const QString& name : QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::System))
        if (name.startsWith('.') || name.contains(".tmp")) out << name;
    return out;
}

bool validJson(const QByteArray& bytes) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    return error.error == QJsonParseError::NoError && doc.isObject() && doc.object().value("algorithm") == "brightest" &&
           doc.object().contains("parameters");
}

// A whole PNG of the image's size: the signature, IHDR with the width and height, and IEND last (a file
// cut anywhere lacks the IEND chunk at its end).
bool validOverlay(const QByteArray& png) {
    static const QByteArray signature("\x89PNG\r\n\x1a\n", 8);
    static const QByteArray iend("\0\0\0\0IEND\xae\x42\x60\x82", 12);
    if (!png.startsWith(signature) || !png.endsWith(iend) || png.size() < 33 || png.mid(12, 4) != "IHDR") return false;
    const auto be32 = [&](int at) {
        return (quint32(quint8(png[at])) << 24) | (quint32(quint8(png[at + 1])) << 16) | (quint32(quint8(png[at + 2])) << 8) |
               quint32(quint8(png[at + 3]));
    };
    return be32(16) == quint32(kSide) && be32(20) == quint32(kSide);
}

// DS9 regions: the header, and every line complete (a newline at the end, a box per result).
bool validRegions(const QByteArray& bytes) {
    return bytes.startsWith("# Region file format: DS9") && bytes.endsWith('\n') && bytes.contains("box(");
}

} // namespace

class SignalCleanupTest : public QObject {
    Q_OBJECT

    QString dir_, image_;
    QStringList outputs_;
    QStringList args_;
    qint64 runMs_ = 0;

private slots:
    void initTestCase() {
        dir_ = test::tempDir() + "/signal-cleanup";
        QDir(dir_).removeRecursively();
        QVERIFY(QDir().mkpath(dir_ + "/out"));
        image_ = dir_ + "/big.fits";
        writeFits(image_);
        outputs_ = {dir_ + "/out/result.json", dir_ + "/out/overlay.png", dir_ + "/out/result.reg"};
        args_ = {"brightest", image_,     "--k",     "3",          "--backend", "cpu", "--json", outputs_[0],
                 "--overlay", outputs_[1], "--regions", outputs_[2]};
        if (!GLINT_WITH_IMGCODECS) {
            args_.remove(args_.indexOf("--overlay"), 2);
            outputs_.removeAt(1);
        }
    }

    // The registry itself: slots are claimed, counted and given back.
    void registry() {
        const int before = registeredTemporaryCount();
        const int a = registerTemporary("/nonexistent/a.tmp");
        const int b = registerTemporary("/nonexistent/b.tmp");
        QVERIFY(a >= 0 && b >= 0 && a != b);
        QCOMPARE(registeredTemporaryCount(), before + 2);
        unregisterTemporary(a);
        QCOMPARE(registeredTemporaryCount(), before + 1);
        unregisterTemporary(b);
        QCOMPARE(registeredTemporaryCount(), before);
        QCOMPARE(registerTemporary(std::string(5000, 'x').c_str()), -1); // too long: refused, not cut
    }

    // A complete run first: its outputs are the "earlier run" that every killed run may replace only
    // whole; its duration spreads the kill times.
    void killedRunsLeaveNothingBehind() {
        // Twice: the second run's duration (files cached, plugins warm) is what the killed runs take.
        for (int i = 0; i < 2; ++i) {
            QElapsedTimer clock;
            clock.start();
            const int status = finish(start(args_));
            runMs_ = clock.elapsed();
            QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the reference run failed");
        }
        for (const QString& o : outputs_) QVERIFY2(QFile::exists(o), qPrintable(o));
        QVERIFY(validJson(readAll(outputs_[0])));
        QVERIFY(validRegions(readAll(outputs_.last())));
        if (GLINT_WITH_IMGCODECS) QVERIFY(validOverlay(readAll(outputs_[1])));

        QList<QByteArray> earlier; // the earlier run's outputs, put back before each round that starts from them
        for (const QString& o : outputs_) earlier << readAll(o);
        std::mt19937 random(3535);
        const int kinds[] = {SIGTERM, SIGINT, SIGHUP};
        int killedWhileRunning = 0, replaced = 0, kept = 0, written = 0;
        const int rounds = 18;
        for (int round = 0; round < rounds; ++round) {
            // Every other round starts from no outputs at all (each must then be absent or complete);
            // the others from the earlier run's files (each must be intact or wholly replaced).
            const bool fresh = round % 2 == 1;
            QList<QByteArray> before;
            for (int i = 0; i < outputs_.size(); ++i) {
                QFile::remove(outputs_[i]);
                if (!fresh) {
                    QFile f(outputs_[i]);
                    QVERIFY(f.open(QIODevice::WriteOnly) && f.write(earlier[i]) == earlier[i].size());
                }
                before << (fresh ? QByteArray() : earlier[i]);
            }

            const int sig = kinds[round % 3];
            // Delays over the whole run, a little past its end too (the kill then finds it done).
            std::uniform_int_distribution<qint64> delay(0, runMs_ + runMs_ / 10);
            const qint64 waitMs = delay(random);
            const pid_t pid = start(args_);
            std::this_thread::sleep_for(std::chrono::milliseconds(waitMs));
            ::kill(pid, sig);
            const int st = finish(pid);
            const bool killed = WIFSIGNALED(st);
            if (killed) {
                ++killedWhileRunning;
                // Killed by the very signal (re-raised after the clean-up), not an exit code.
                QCOMPARE(WTERMSIG(st), sig);
            } else {
                QVERIFY2(WIFEXITED(st) && WEXITSTATUS(st) == 0, qPrintable(QString("round %1: status %2").arg(round).arg(st)));
            }

            const QStringList left = temporaries(dir_ + "/out");
            QVERIFY2(left.isEmpty(), qPrintable(QString("round %1 (signal %2 after %3 ms): %4")
                                                    .arg(round).arg(sig).arg(waitMs).arg(left.join(", "))));
            for (int i = 0; i < outputs_.size(); ++i) {
                const QString& o = outputs_[i];
                const QByteArray now = readAll(o);
                if (!QFile::exists(o)) {
                    QVERIFY2(fresh && killed, qPrintable(QString("round %1: %2 vanished").arg(round).arg(o)));
                    continue;
                }
                if (!fresh && now == before[i]) {
                    ++kept;
                    continue;
                }
                // New bytes: a whole file of this run.
                const bool valid = o.endsWith(".json") ? validJson(now) : o.endsWith(".png") ? validOverlay(now) : validRegions(now);
                QVERIFY2(valid, qPrintable(QString("round %1: %2 is not complete (%3 bytes)").arg(round).arg(o).arg(now.size())));
                ++(fresh ? written : replaced);
            }
        }
        qInfo("run %lld ms; %d of %d rounds killed mid-run; outputs kept %d, replaced %d, written fresh %d", runMs_,
              killedWhileRunning, rounds, kept, replaced, written);
        // The delays cover the run: many rounds kill it while it runs (not all: a loaded machine's runs vary).
        QVERIFY(killedWhileRunning >= rounds / 4);
    }
};

QTEST_MAIN(SignalCleanupTest)
#include "test_signal_cleanup.moc"
