// glint-cli's outputs and option limits: a device, FIFO or /dev/stdout given as an output is written in
// place, never replaced by a file; a FIFO nobody reads fails at once (exit 3); a full or closed standard
// output is an error (exit 3, one line); the outputs of a run are all-or-nothing (a failed run leaves
// older files intact and no temporary behind); and every numeric option is parsed strictly and bounded
// (exit 2, no run past its budget).
#include "tests/support/TestSupport.h"

#include "core/algo/kmax/KMax.h"
#include "core/display/Display.h"
#include "core/export/OverlayImage.h"
#include "core/io/ImageLoader.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#if GLINT_WITH_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif

#include <fitsio.h>

#include <tuple>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace glint;

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

QString writeText(const QString& path, const QByteArray& text) {
    QFile f(path);
    f.open(QIODevice::WriteOnly | QIODevice::Truncate);
    f.write(text);
    return path;
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A fresh folder per test function.
QString freshDir(const QString& name) {
    const QString dir = test::tempDir() + "/" + name;
    QDir(dir).removeRecursively();
    QDir().mkpath(dir);
    return dir;
}

// A 4x3 integer matrix with one bright corner.
QString matrix(const QString& dir) {
    return writeText(dir + "/m.csv", "1,2,3,4\n5,60,70,8\n9,10,110,12\n");
}

// The share of pixels of the picture's row `pictureRow` that are image row `imageRow` as rendered (the
// overlay draws a few rectangle edges and labels over some of them).
#if GLINT_WITH_IMGCODECS
double rowAgreement(const cv::Mat& picture, int pictureRow, const std::vector<std::uint32_t>& argb, int width, int imageRow) {
    int same = 0;
    const auto* row = picture.ptr<cv::Vec3b>(pictureRow);
    for (int x = 0; x < width; ++x) {
        const std::uint32_t c = argb[static_cast<std::size_t>(imageRow) * width + x];
        same += row[x] == cv::Vec3b(c & 0xFF, (c >> 8) & 0xFF, (c >> 16) & 0xFF);
    }
    return static_cast<double>(same) / width;
}
#endif

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

} // namespace

class CliOutputsTest : public QObject {
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
        const QString dir = freshDir("device");
        const QString in = matrix(dir);
        // A null device of our own (as root): the test never risks the system's /dev/null.
        const QString dev = dir + "/null";
        const QString devReg = dir + "/null.reg";
        for (const QString& p : {dev, devReg})
            if (::mknod(p.toLocal8Bit().constData(), S_IFCHR | 0666, makedev(1, 3)) != 0)
                QSKIP("cannot create a device node here (not root?)");
        const int probe = ::open(dev.toLocal8Bit().constData(), O_WRONLY);
        if (probe < 0) QSKIP("device nodes cannot be opened in the temporary folder (nodev mount)");
        ::close(probe);
        QStringList args{"brightest", in, "--pivot", "0"};
        for (QString o : options) args << o.replace("@", dev);
        const auto r = test::runCli(args, 30000);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(fileType(dev, false), mode_t(S_IFCHR));
        QCOMPARE(fileType(devReg, false), mode_t(S_IFCHR));
        QVERIFY(hiddenTemporaries(dir).isEmpty());
    }

    // --overlay draws an image that is shown y-up (FITS) as the window does: flipped, row 0 at the bottom,
    // and its legend says so; an image stored top-down is drawn as stored.
    void overlayOfAFitsIsYUp_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("yUp");
        QTest::newRow("FITS") << test::samplePath("ngc1316o.fit") << true;
        QTest::newRow("matrix") << QString() << false;
    }
    void overlayOfAFitsIsYUp() {
        QFETCH(QString, file);
        QFETCH(bool, yUp);
#if !GLINT_WITH_IMGCODECS
        Q_UNUSED(file);
        Q_UNUSED(yUp);
        QSKIP("this build writes no PNG overlays");
#else
        const QString dir = freshDir("yup");
        if (file.isEmpty()) {
            QByteArray text; // rows of distinct values: row r holds r*10 + x % 7
            for (int y = 0; y < 40; ++y) {
                for (int x = 0; x < 50; ++x) text += (x ? "," : "") + QByteArray::number(y * 10 + x % 7);
                text += '\n';
            }
            file = writeText(dir + "/rows.csv", text);
        }
        if (!QFile::exists(file)) QSKIP("the FITS sample is missing");
        const Image image = loadImage(file.toStdString());
        QCOMPARE(image.meta.displayYUp, yUp);
        const QString png = dir + "/overlay.png";
        const auto r = test::runCli({"brightest", file, "--pivot", "p99", "--overlay", png}, 60000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const cv::Mat picture = cv::imread(png.toStdString(), cv::IMREAD_COLOR);
        QCOMPARE(picture.cols, image.width());
        QCOMPARE(picture.rows, image.height());
        const DisplaySettings settings = defaultDisplaySettings(image);
        const std::vector<std::uint32_t> argb = renderImage(image, settings, computeLimits(image, settings));
        const int w = image.width(), last = image.height() - 1;
        // The top row is the image's last row when y-up, its first otherwise; the bottom row the other one.
        const double top = rowAgreement(picture, 0, argb, w, yUp ? last : 0);
        const double bottom = rowAgreement(picture, last, argb, w, yUp ? 0 : last);
        QVERIFY2(top > 0.9, qPrintable(QString::number(top)));
        QVERIFY2(bottom > 0.9, qPrintable(QString::number(bottom)));
        QVERIFY(rowAgreement(picture, 0, argb, w, yUp ? 0 : last) < 0.5); // and not the other way round
        // The region is drawn where its rows are: its top edge (image row y) at picture row last - y when y-up.
        const QJsonObject doc = QJsonDocument::fromJson(test::runCli({"brightest", file, "--pivot", "p99", "--json", "-"}, 60000).out).object();
        const QJsonObject region = doc["regions"].toArray().first().toObject();
        const int rx = region["x"].toInt(), ry = region["y"].toInt(), rw = region["width"].toInt(), rh = region["height"].toInt();
        const int edgeRow = yUp ? last - ry : ry;
        const std::uint32_t colour = overlayPaletteColour(0);
        const cv::Vec3b expected(colour & 0xFF, (colour >> 8) & 0xFF, (colour >> 16) & 0xFF);
        int onEdge = 0;
        for (int x = rx; x < rx + rw; ++x) onEdge += picture.at<cv::Vec3b>(edgeRow, x) == expected;
        QVERIFY2(onEdge * 2 > rw, qPrintable(QStringLiteral("%1 of %2 (region %3,%4 %5x%6)").arg(onEdge).arg(rw).arg(rx).arg(ry).arg(rw).arg(rh)));
        // The legend line says which way up the picture is.
        const OverlayImage overlay(image, settings);
        QCOMPARE(overlay.isFlipped(), yUp);
        QCOMPARE(overlay.legendBox().empty(), !yUp);
#endif
    }

    // The picture itself (every build, no PNG needed): a y-up image's picture is flipped, drawings land on
    // their image rows, and the legend line is there; a top-down image's is not flipped.
    void overlayImageFollowsYUp() {
        constexpr int W = 200, H = 120;
        for (const bool yUp : {true, false}) {
            std::vector<std::uint8_t> v(W * H);
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) v[static_cast<std::size_t>(y) * W + x] = static_cast<std::uint8_t>(y * 2);
            Image image = Image::fromSamples<std::uint8_t>(W, H, std::move(v));
            image.meta.displayYUp = yUp;
            DisplaySettings settings = defaultDisplaySettings(image);
            settings.limits = LimitsMode::MinMax;
            OverlayImage overlay(image, settings);
            QCOMPARE(overlay.isFlipped(), yUp);
            overlay.drawRectangle(100, 2, 10, 3, 0xFF0000); // image rows 2..4
            const cv::Mat picture = overlay.pixels();
            // The last column is clear of the legend and the rectangle: its grey tells the image row.
            const int topGrey = picture.at<cv::Vec3b>(0, W - 1)[0], bottomGrey = picture.at<cv::Vec3b>(H - 1, W - 1)[0];
            QVERIFY2(yUp ? topGrey > bottomGrey : topGrey < bottomGrey, qPrintable(QStringLiteral("%1 %2").arg(topGrey).arg(bottomGrey)));
            // The rectangle's outline on its image rows: 2 and 4 (picture rows H-1-4 and H-1-2 when flipped).
            const int first = yUp ? H - 1 - 4 : 2, last = yUp ? H - 1 - 2 : 4;
            QCOMPARE(picture.at<cv::Vec3b>(first, 105), cv::Vec3b(0, 0, 255));
            QCOMPARE(picture.at<cv::Vec3b>(last, 105), cv::Vec3b(0, 0, 255));
            QVERIFY(picture.at<cv::Vec3b>(yUp ? H - 1 - 6 : 6, 105) != cv::Vec3b(0, 0, 255));
            QCOMPARE(overlay.legendBox().empty(), !yUp); // "y up: row 0 at the bottom, ..."
        }
        QVERIFY(QString::fromLatin1(OverlayImage::flippedLegendText()).startsWith("y up: row 0 at the bottom"));
    }

    // common's --overlay (A, a gap, B) is drawn the way the window draws A: a FITS pair y-up (row 0 at the
    // bottom, the component tinted on its flipped rows), a top-down pair as stored.
    void commonOverlayFollowsYUp_data() {
        test::addBoolRows("yUp", "matrix", "FITS");
    }
    void commonOverlayFollowsYUp() {
        QFETCH(bool, yUp);
#if !GLINT_WITH_IMGCODECS
        Q_UNUSED(yUp);
        QSKIP("this build writes no PNG overlays");
#else
        // A: 200x120, every value distinct (y*256 + x); B: A's pixels x 60..139, y 20..59, so the common
        // component is all of B, at rows 20..59 of A.
        constexpr int W = 200, H = 120, BX = 60, BY = 20, BW = 80, BH = 40;
        auto value = [](int x, int y) { return static_cast<short>(y * 256 + x); };
        const QString dir = freshDir(yUp ? "common-yup-fits" : "common-yup-csv");
        QString a = dir + "/a", b = dir + "/b";
        if (yUp) {
            a += ".fits";
            b += ".fits";
            for (const auto& [path, x0, y0, w, h] : {std::tuple{a, 0, 0, W, H}, std::tuple{b, BX, BY, BW, BH}}) {
                std::vector<short> pixels(static_cast<std::size_t>(w) * h);
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) pixels[static_cast<std::size_t>(y) * w + x] = value(x0 + x, y0 + y);
                fitsfile* f = nullptr;
                int status = 0;
                long axes[2] = {w, h};
                fits_create_file(&f, ("!" + path.toUtf8()).constData(), &status);
                fits_create_img(f, SHORT_IMG, 2, axes, &status);
                fits_write_img(f, TSHORT, 1, static_cast<LONGLONG>(pixels.size()), pixels.data(), &status);
                fits_close_file(f, &status);
                QCOMPARE(status, 0);
            }
        } else {
            a += ".csv";
            b += ".csv";
            for (const auto& [path, x0, y0, w, h] : {std::tuple{a, 0, 0, W, H}, std::tuple{b, BX, BY, BW, BH}}) {
                QByteArray text;
                for (int y = 0; y < h; ++y) {
                    for (int x = 0; x < w; ++x) text += (x ? "," : "") + QByteArray::number(value(x0 + x, y0 + y));
                    text += '\n';
                }
                writeText(path, text);
            }
        }
        QCOMPARE(loadImage(a.toStdString()).meta.displayYUp, yUp);
        const QString png = dir + "/overlay.png";
        const auto r = test::runCli({"common", a, b, "--backend", "cpu", "--overlay", png, "--json", "-"}, 60000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QJsonDocument::fromJson(r.out).object()["size"].toInteger(), BW * BH);
        const cv::Mat picture = cv::imread(png.toStdString(), cv::IMREAD_COLOR);
        const int gap = 4; // max(4, min(width A, width B) / 50)
        QCOMPARE(picture.cols, W + gap + BW);
        QCOMPARE(picture.rows, H);
        const auto rowOf = [&](int imageRow) { return yUp ? H - 1 - imageRow : imageRow; };
        const auto tinted = [&](int x, int imageRow) {
            const cv::Vec3b p = picture.at<cv::Vec3b>(rowOf(imageRow), x);
            return p[0] != p[1] || p[1] != p[2];
        };
        // The component on A (image rows 20..59) and on B (all of it); A's rows below it are not tinted.
        QVERIFY(tinted(BX + BW / 2, BY + BH / 2));
        QVERIFY(!tinted(BX + BW / 2, BY + BH + 20));
        QVERIFY(tinted(W + gap + BW / 2, BH / 2));
        // A's values grow with the row: in A's last column, clear of the component, legend and labels, the
        // picture's lower rows are darker when y-up (they hold A's first rows), brighter otherwise.
        const int lower = picture.at<cv::Vec3b>(H - 1, W - 1)[1], higher = picture.at<cv::Vec3b>(H - 11, W - 1)[1];
        QVERIFY2(yUp ? lower < higher : lower > higher, qPrintable(QStringLiteral("%1 %2").arg(lower).arg(higher)));
#endif
    }

    void batchOutToDevice() {
        const QString dir = freshDir("batchdev");
        const QString in = matrix(dir);
        const QString dev = dir + "/null";
        if (::mknod(dev.toLocal8Bit().constData(), S_IFCHR | 0666, makedev(1, 3)) != 0)
            QSKIP("cannot create a device node here (not root?)");
        const int probe = ::open(dev.toLocal8Bit().constData(), O_WRONLY);
        if (probe < 0) QSKIP("device nodes cannot be opened in the temporary folder (nodev mount)");
        ::close(probe);
        const auto r = test::runCli({"batch", "--algo", "info", "--out", dev, in}, 30000);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(fileType(dev, false), mode_t(S_IFCHR));
    }

    // A FIFO with a reader receives the JSON and stays a FIFO.
    void fifoWithReader() {
        const QString dir = freshDir("fifo");
        const QString in = matrix(dir);
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
        const QString dir = freshDir("fifo-noreader");
        const QString in = matrix(dir);
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
        const QString dir = freshDir("devstdout");
        const QString in = matrix(dir);
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
        const QString dir = freshDir("symlink");
        const QString in = matrix(dir);
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
        const QString dir = freshDir("full");
        const QString in = matrix(dir);
        for (QString& a : args) a.replace("@", in);
        const auto r = runCliTo("/dev/full", args);
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(errorLines(r.err), QByteArray("glint-cli: cannot write to standard output: No space left on device\n"));
    }

    void closedStdout_data() { fullStdout_data(); }
    void closedStdout() {
        QFETCH(QStringList, args);
        const QString dir = freshDir("closed");
        const QString in = matrix(dir);
        for (QString& a : args) a.replace("@", in);
        const auto r = runCliStdoutClosed(args);
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(errorLines(r.err), QByteArray("glint-cli: cannot write to standard output: Bad file descriptor\n"));
        QVERIFY(hiddenTemporaries(dir).isEmpty());
    }

    // A closed standard output must not become one of the files the run writes.
    void closedStdoutWithFileOutput() {
        const QString dir = freshDir("closed-file");
        const QString in = matrix(dir);
        const QString json = dir + "/r.json";
        const auto r = runCliStdoutClosed({"brightest", in, "--pivot", "0", "--json", json});
        QCOMPARE(r.exitCode, 3); // the text summary could not be written
        QVERIFY(oneLine(r.err));
        const QJsonObject doc = QJsonDocument::fromJson(readAll(json)).object();
        QCOMPARE(doc.value("algorithm").toString(), QString("brightest"));
    }

    // 3. All outputs or none: a failing output keeps every older file and leaves no temporary.
    void outputsAreAllOrNothing_data() {
        QTest::addColumn<QStringList>("failing");
        QTest::addColumn<QByteArray>("reason");
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
        const QString dir = freshDir("transaction");
        const QString in = matrix(dir);
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

    // 4. Limits: K, --random N, pivots, --max-shift, and strict numbers everywhere.
    void limits_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("message");
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
        const QString dir = freshDir("limits");
        const QString m = matrix(dir);
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
        const QString dir = freshDir("limits-ok");
        const QString m = matrix(dir);
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

QTEST_GUILESS_MAIN(CliOutputsTest)
#include "test_cli_outputs.moc"
