// glint: the desktop program.
//   glint [IMAGE]                                    open IMAGE (default: a bundled sample, its brightest regions found)
//   glint --screenshot OUT.png [IMAGE] [--size WxH]  render the window offscreen to OUT.png and exit
// Exit codes: 0 done, 2 bad usage, 3 the image could not be opened or the screenshot not written.
#include "cuda/Backends.h"
#include "ui/FirstLook.h"
#include "ui/MainWindow.h"
#include "ui/SampleFiles.h"
#include "ui/Screenshot.h"
#include "ui/WindowFit.h"
#include "core/jobs/Backend.h"
#include "core/util/SignalCleanup.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include <cstdio>

namespace {

const char* const kUsage =
    "usage: glint [IMAGE]\n"
    "       glint --screenshot OUT.png [IMAGE] [--size WxH]\n"
    "\n"
    "  IMAGE              FITS, DICOM, PNG, PGM, TIFF, JPEG, BMP or CSV (default: a bundled sample)\n"
    "  --screenshot FILE  render the window offscreen with IMAGE to FILE (PNG) and exit\n"
    "  --size WxH         window size for --screenshot (default 1280x800; at least the window's minimum)\n"
    "  --platform NAME    Qt platform plugin (as Qt's -platform); --style NAME likewise\n"
    "  --version          print the version\n"
    "\n"
    "exit codes: 0 done, 2 bad usage, 3 the image could not be opened or the screenshot not written\n";

// Screenshots are for scripts and tests: stderr carries only Glint's own one-line errors, not Qt's
// platform chatter (the offscreen plugin's warnings, XDG_RUNTIME_DIR notices).
void quietMessages(QtMsgType type, const QMessageLogContext&, const QString& message) {
    if (type == QtCriticalMsg || type == QtFatalMsg) std::fprintf(stderr, "glint: %s\n", message.toLocal8Bit().constData());
}

int usageError(const QString& message) {
    std::fprintf(stderr, "glint: %s (see glint --help)\n", message.toLocal8Bit().constData());
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    // The window killed (SIGTERM, SIGINT, SIGHUP) while an export, a session or the autosave is being
    // written: its temporaries are removed, the files they would replace stay whole.
    glint::installSignalCleanup();
    // The arguments are checked before Qt starts, so that bad usage exits 2 even where no display is.
    QStringList arguments;
    for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions); // Qt's own -platform, -style
    const QCommandLineOption help(QStringList{QStringLiteral("h"), QStringLiteral("help")});
    const QCommandLineOption version(QStringLiteral("version"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"), QString(), QStringLiteral("OUT.png"));
    const QCommandLineOption size(QStringLiteral("size"), QString(), QStringLiteral("WxH"));
    const QCommandLineOption platform(QStringLiteral("platform"), QString(), QStringLiteral("NAME"));
    const QCommandLineOption style(QStringLiteral("style"), QString(), QStringLiteral("NAME"));
    parser.addOptions({help, version, screenshot, size, platform, style});
    if (!parser.parse(arguments)) return usageError(parser.errorText());
    if (parser.isSet(help)) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (parser.isSet(version)) {
        std::printf("glint %s\n", GLINT_VERSION);
        return 0;
    }
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1) return usageError(QStringLiteral("one image at a time"));
    const QString image = files.value(0);
    glint::ui::ScreenshotRequest request;
    if (parser.isSet(size)) {
        if (!parser.isSet(screenshot)) return usageError(QStringLiteral("--size needs --screenshot"));
        request.size = glint::ui::parseWindowSize(parser.value(size));
        if (!request.size.isValid()) return usageError(QStringLiteral("--size wants WIDTHxHEIGHT, e.g. 1280x800"));
    }
    if (parser.isSet(screenshot)) {
        // A screenshot needs no display: the offscreen platform unless one was chosen.
        if (!parser.isSet(platform) && !qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
        qInstallMessageHandler(quietMessages);
    }

    QApplication app(argc, argv);
    Q_INIT_RESOURCE(glint); // the resources live in the static glint_ui library
    QApplication::setApplicationName(QStringLiteral("Glint"));
    QApplication::setOrganizationName(QStringLiteral("Glint"));
    QApplication::setApplicationVersion(QStringLiteral(GLINT_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/glint.svg")));
    glint::initBackends();
    glint::startCudaProbeInBackground(); // the device comes up while the window opens

    if (parser.isSet(screenshot)) {
        request.output = parser.value(screenshot);
        request.image = image;
        glint::ui::MainWindow window({/*persistSettings=*/false, /*interactive=*/false});
        return glint::ui::takeScreenshot(window, request);
    }

    glint::ui::MainWindow window;
    // The window (1280 × 800, or its saved size) with its frame inside the screen: smaller where the screen is.
    glint::ui::keepOnScreen(window);
    window.show();
    // Without a file: the first look, the sample with its answer (the brightest regions) computed and listed.
    if (image.isEmpty()) glint::ui::openFirstLook(window, glint::ui::defaultSample());
    else window.openFile(image);
    return QApplication::exec();
}
