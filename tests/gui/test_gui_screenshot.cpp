// `glint --screenshot OUT.png [IMAGE] [--size WxH]` from the command line: exit 0 with a PNG of the
// window that is not blank; exit 3 with one line on stderr (and no file) for an image that cannot be
// opened or an output that cannot be written; exit 2 for bad usage. A broken session file fails as fast
// (it waited 120 s for a picture that never came: issue 35).
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <functional>

using namespace glint;

namespace {
QString glintPath() {
    const QString build = qEnvironmentVariable("GLINT_BUILD_DIR");
    const QString candidate = build.isEmpty() ? QCoreApplication::applicationDirPath() + QStringLiteral("/../app/glint")
                                              : build + QStringLiteral("/app/glint");
    return QFileInfo(candidate).absoluteFilePath();
}

// The committed session (tests/data/session-v1) with its two images beside it, as JSON to break.
QJsonObject goodSession() {
    QFile f(QStringLiteral(GLINT_TEST_DATA_DIR "/session-v1/session.glint.json"));
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

QString writeSession(const QString& dir, const QString& name, const QByteArray& bytes, bool withImages) {
    QDir().mkpath(dir);
    if (withImages)
        for (const char* image : {"session-a.csv", "session-b.csv"})
            QFile::copy(QStringLiteral(GLINT_TEST_DATA_DIR "/session-v1/") + QLatin1String(image),
                        QDir(dir).filePath(QLatin1String(image)));
    QFile f(QDir(dir).filePath(name));
    if (f.open(QIODevice::WriteOnly | QIODevice::Truncate)) f.write(bytes);
    return f.fileName();
}

QByteArray sessionWith(const std::function<void(QJsonObject&)>& change) {
    QJsonObject session = goodSession();
    change(session);
    return QJsonDocument(session).toJson();
}

test::CliResult runGlint(const QStringList& args, int timeoutMs = 120000) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM")); // --screenshot must choose offscreen by itself
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), test::tempDir() + QStringLiteral("/config"));
    process.setProcessEnvironment(env);
    return test::runProcess(process, glintPath(), args, timeoutMs);
}
} // namespace

class TestGuiScreenshot : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        test::isolateSettings();
        QVERIFY2(QFileInfo::exists(glintPath()), qPrintable(glintPath()));
    }

    void writesTheWindow_data() {
        test::columns<QStringList, QSize>({"extra", "size"});
        QTest::newRow("aero") << QStringList{test::samplePath(QStringLiteral("aero.png"))} << QSize(1280, 800);
        QTest::newRow("default sample") << QStringList{} << QSize(1280, 800);
        QTest::newRow("sized") << QStringList{test::samplePath(QStringLiteral("synthetic-mammogram.png")), QStringLiteral("--size"),
                                              QStringLiteral("900x640")}
                               << QSize(900, 640);
    }
    void writesTheWindow() {
        QFETCH(QStringList, extra);
        QFETCH(QSize, size);
        const QString out = test::tempDir() + QStringLiteral("/shot-%1.png").arg(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-'));
        const test::CliResult r = runGlint(QStringList{QStringLiteral("--screenshot"), out} + extra);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.isEmpty(), r.err.constData());
        QImage picture(out);
        QVERIFY(!picture.isNull());
        QCOMPARE(picture.size(), size);
        const test::PictureStats stats = test::pictureStats(picture);
        QVERIFY(stats.variance > 100.0);
        QVERIFY(stats.distinctColours >= 64);
    }

    void failures_data() {
        test::columns<QStringList, int>({"args", "exitCode"});
        const QString dir = test::tempDir();
        QFile junk(dir + QStringLiteral("/junk.fits"));
        if (junk.open(QIODevice::WriteOnly)) junk.write("SIMPLE  =  this is not a FITS header at all");
        QTest::newRow("missing image") << QStringList{QStringLiteral("--screenshot"), dir + QStringLiteral("/f1.png"), dir + QStringLiteral("/none.png")} << 3;
        QTest::newRow("corrupt image") << QStringList{QStringLiteral("--screenshot"), dir + QStringLiteral("/f2.png"), dir + QStringLiteral("/junk.fits")} << 3;
        QTest::newRow("unwritable output")
            << QStringList{QStringLiteral("--screenshot"), dir + QStringLiteral("/no/such/folder/f3.png"), test::samplePath(QStringLiteral("aero.png"))} << 3;
        QTest::newRow("bad size") << QStringList{QStringLiteral("--screenshot"), dir + QStringLiteral("/f4.png"), QStringLiteral("--size"), QStringLiteral("big")} << 2;
        QTest::newRow("two images") << QStringList{QStringLiteral("--screenshot"), dir + QStringLiteral("/f5.png"), QStringLiteral("a.png"), QStringLiteral("b.png")} << 2;
        QTest::newRow("unknown option") << QStringList{QStringLiteral("--screenshoot"), dir + QStringLiteral("/f6.png")} << 2;

        // Broken session files: each fails at once (exit 3, one line), none waits for the timeout.
        const QString sessions = dir + QStringLiteral("/sessions");
        const QByteArray good = QJsonDocument(goodSession()).toJson();
        const auto row = [&](const char* tag, const QString& session) {
            QTest::newRow(tag) << QStringList{QStringLiteral("--screenshot"), dir + QStringLiteral("/f-%1.png").arg(QString::fromLatin1(tag).split(' ').last()), session} << 3;
        };
        row("session truncated", writeSession(sessions, QStringLiteral("truncated.glint.json"), good.left(good.size() / 2), true));
        row("session empty", writeSession(sessions, QStringLiteral("empty.json"), QByteArray(), true));
        row("session not an object", writeSession(sessions, QStringLiteral("array.json"), "[1, 2, 3]", true));
        row("session wrongtypes", writeSession(sessions, QStringLiteral("types.glint.json"), sessionWith([](QJsonObject& s) {
                                                  QJsonObject image = s[QStringLiteral("image")].toObject();
                                                  image[QStringLiteral("width")] = QStringLiteral("wide");
                                                  s[QStringLiteral("image")] = image;
                                              }), true));
        row("session missingimage", writeSession(sessions + QStringLiteral("/alone"), QStringLiteral("alone.glint.json"), good, false));
        row("session otherimage", writeSession(sessions, QStringLiteral("size.glint.json"), sessionWith([](QJsonObject& s) {
                                                  QJsonObject image = s[QStringLiteral("image")].toObject();
                                                  image[QStringLiteral("width")] = 161; // not the image it names
                                                  s[QStringLiteral("image")] = image;
                                              }), true));
        row("session modulesnumber", writeSession(sessions, QStringLiteral("modules.glint.json"), sessionWith([](QJsonObject& s) {
                                                     s[QStringLiteral("modules")] = 42; // not "no modules": damage
                                                 }), true));
        row("session badparameters", writeSession(sessions, QStringLiteral("params.glint.json"), sessionWith([](QJsonObject& s) {
                                                     QJsonObject modules = s[QStringLiteral("modules")].toObject();
                                                     QJsonObject common = modules[QStringLiteral("common")].toObject();
                                                     common[QStringLiteral("params")] = QJsonObject{{QStringLiteral("max_shift"), QStringLiteral("far")},
                                                                                                    {QStringLiteral("tolerance"), -5}};
                                                     modules[QStringLiteral("common")] = common;
                                                     s[QStringLiteral("modules")] = modules;
                                                 }), true));
    }
    void failures() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QElapsedTimer clock;
        clock.start();
        const test::CliResult r = runGlint(args, 60000);
        // Fails, not waits: far below the 120 s timeout (a loose bound for a loaded machine).
        QVERIFY2(clock.elapsed() < 30000, qPrintable(QStringLiteral("took %1 ms").arg(clock.elapsed())));
        QCOMPARE(r.exitCode, exitCode);
        const QList<QByteArray> lines = r.err.trimmed().split('\n');
        QVERIFY2(lines.size() == 1 && lines[0].startsWith("glint: "), r.err.constData());
        // No output file, not even a partial or temporary one.
        const QDir dir(test::tempDir());
        QVERIFY2(dir.entryList({QStringLiteral("f*.png*"), QStringLiteral(".f*")}, QDir::Files | QDir::Hidden).isEmpty(),
                 qPrintable(dir.entryList(QDir::Files | QDir::Hidden).join(", ")));
    }
};

QTEST_MAIN(TestGuiScreenshot)
#include "test_gui_screenshot.moc"
