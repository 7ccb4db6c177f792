// `glint --screenshot OUT.png [IMAGE] [--size WxH]` from the command line: exit 0 with a PNG of the
// window that is not blank; exit 3 with one line on stderr (and no file) for an image that cannot be
// opened or an output that cannot be written; exit 2 for bad usage.
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include <QFileInfo>
#include <QProcess>

using namespace glint;

namespace {
QString glintPath() {
    const QString build = qEnvironmentVariable("GLINT_BUILD_DIR");
    const QString candidate = build.isEmpty() ? QCoreApplication::applicationDirPath() + QStringLiteral("/../app/glint")
                                              : build + QStringLiteral("/app/glint");
    return QFileInfo(candidate).absoluteFilePath();
}

test::CliResult runGlint(const QStringList& args) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM")); // --screenshot must choose offscreen by itself
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), test::tempDir() + QStringLiteral("/config"));
    process.setProcessEnvironment(env);
    return test::runProcess(process, glintPath(), args);
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
    }
    void failures() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        const test::CliResult r = runGlint(args);
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
