// glint: the desktop program.
//   glint [IMAGE]                                    open IMAGE (default: a bundled sample)
//   glint --screenshot OUT.png [IMAGE] [--size WxH]  render the window offscreen to OUT.png and exit
// Exit codes: 0 done, 2 bad usage, 3 the image could not be opened or the screenshot not written.
#include "Backends.h"
#include "MainWindow.h"
#include "SampleFiles.h"
#include "Screenshot.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include <cstdio>
#include <cstring>

namespace {
int usageError(const QString& message) {
    std::fprintf(stderr, "glint: %s (see glint --help)\n", message.toLocal8Bit().constData());
    return 2;
}
} // namespace

int main(int argc, char** argv) {
    // A screenshot needs no display: pick the offscreen platform before Qt chooses one, unless set.
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--screenshot") == 0 && !qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    Q_INIT_RESOURCE(glint); // the resources live in the static glint_ui library
    QApplication::setApplicationName(QStringLiteral("Glint"));
    QApplication::setOrganizationName(QStringLiteral("Glint"));
    QApplication::setApplicationVersion(QStringLiteral(GLINT_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/glint.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Glint: find what stands out in images."));
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."));
    const QCommandLineOption version(QStringLiteral("version"), QStringLiteral("Show the version."));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the window with IMAGE offscreen to OUT.png and exit."),
                                        QStringLiteral("OUT.png"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size for --screenshot (default 1280x800)."),
                                  QStringLiteral("WxH"));
    parser.addOptions({help, version, screenshot, size});
    parser.addPositionalArgument(QStringLiteral("IMAGE"), QStringLiteral("The image to open (default: a bundled sample)."));
    if (!parser.parse(QApplication::arguments())) return usageError(parser.errorText());
    if (parser.isSet(help)) {
        std::fputs(parser.helpText().toLocal8Bit().constData(), stdout);
        return 0;
    }
    if (parser.isSet(version)) {
        std::printf("glint %s\n", GLINT_VERSION);
        return 0;
    }
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1) return usageError(QStringLiteral("one image at a time"));
    const QString image = files.value(0);
    if (parser.isSet(size) && !parser.isSet(screenshot)) return usageError(QStringLiteral("--size needs --screenshot"));

    glint::initBackends();
    if (parser.isSet(screenshot)) {
        glint::ui::ScreenshotRequest request;
        request.output = parser.value(screenshot);
        request.image = image;
        if (parser.isSet(size)) {
            request.size = glint::ui::parseWindowSize(parser.value(size));
            if (!request.size.isValid()) return usageError(QStringLiteral("--size wants WIDTHxHEIGHT, e.g. 1280x800"));
        }
        glint::ui::MainWindow window({/*persistSettings=*/false, /*interactive=*/false});
        return glint::ui::takeScreenshot(window, request);
    }

    glint::ui::MainWindow window;
    window.show();
    const QString start = image.isEmpty() ? glint::ui::defaultSample() : image;
    if (!start.isEmpty()) window.openFile(start);
    return QApplication::exec();
}
