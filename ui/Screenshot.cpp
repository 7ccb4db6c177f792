#include "ui/Screenshot.h"

#include "ui/FirstLook.h"
#include "ui/modules/BrightestModule.h"
#include "ui/results/ResultsModel.h"

#include "ui/AppContext.h"
#include "ui/MainWindow.h"
#include "ui/SampleFiles.h"
#include "ui/StatusReadout.h"
#include "ui/display/DisplayPipeline.h"
#include "ui/session/Session.h"
#include "core/util/AtomicFile.h"
#include "core/util/Printable.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QEventLoop>
#include <QImage>
#include <QPixmap>
#include <QRegularExpression>
#include <QStatusBar>
#include <QTimer>

#include <cstdio>
#include <exception>

namespace glint::ui {

namespace {
void printError(const QString& message) {
    // One printable line, whatever the message quotes (a session file's contents, say).
    const std::string line = glint::printableMessage(message.toStdString(), 400);
    std::fprintf(stderr, "glint: %s\n", line.c_str());
    std::fflush(stderr);
}
} // namespace

QSize parseWindowSize(const QString& text) {
    static const QRegularExpression pattern(QStringLiteral("^(\\d{1,5})[xX×](\\d{1,5})$"));
    const QRegularExpressionMatch m = pattern.match(text.trimmed());
    if (!m.hasMatch()) return {};
    const int w = m.captured(1).toInt(), h = m.captured(2).toInt();
    if (w < 64 || h < 64 || w > 16384 || h > 16384) return {};
    return {w, h};
}

int takeScreenshot(MainWindow& window, const ScreenshotRequest& request, int timeoutMs) {
    const QString image = request.image.isEmpty() ? defaultSample() : request.image;
    if (image.isEmpty()) {
        printError(QStringLiteral("no image given and the bundled samples were not found"));
        return 3;
    }
    AppContext& ctx = window.context();
    window.resize(request.size);
    window.show();

    // The first outcome decides: the picture is ready, or the image, the session or the display failed.
    // An outcome may come before the loop runs (a session file that cannot be read fails inside
    // openFile()), when QEventLoop::exit() would be lost: it is kept here and the loop is not entered.
    QEventLoop loop;
    int outcome = -1;
    const auto finish = [&](int code) {
        if (outcome >= 0) return;
        outcome = code;
        loop.exit(code);
    };
    QTimer timeout;
    timeout.setSingleShot(true);
    QObject::connect(&timeout, &QTimer::timeout, &loop, [&] {
        printError(QStringLiteral("timed out while opening '%1'").arg(image));
        finish(3);
    });
    QObject::connect(&ctx, &AppContext::loadFailed, &loop, [&](const QString&, const QString& message) {
        printError(message);
        finish(3);
    });
    // A session (a .json file) reports its failures itself, not through the image's loadFailed: a
    // broken one would otherwise wait for a picture that never comes.
    QObject::connect(window.sessions(), &SessionManager::failed, &loop, [&](const QString& label, const QString& message) {
        printError(QStringLiteral("cannot open the session '%1': %2").arg(label, message));
        finish(3);
    });
    QObject::connect(ctx.display(), &DisplayPipeline::failed, &loop, [&](const QString& message) {
        printError(QStringLiteral("cannot display '%1': %2").arg(image, message));
        finish(3);
    });
    QObject::connect(&ctx, &AppContext::frameReady, &loop, [&] {
        if (ctx.hasImage() && !ctx.isLoading() && !ctx.isRendering()) finish(0);
    });
    timeout.start(timeoutMs);
    // Without an image: the first look, the sample with its brightest regions found (as the window starts).
    bool answered = false;
    BrightestModule* firstLook = nullptr;
    if (request.image.isEmpty()) {
        firstLook = openFirstLook(window, image);
        if (firstLook)
            for (auto end : {&BrightestModule::runFinished, &BrightestModule::runCancelled})
                QObject::connect(firstLook, end, &loop, [&] { answered = true; });
        if (firstLook)
            QObject::connect(firstLook, &BrightestModule::runFailed, &loop, [&](const QString&) { answered = true; });
    } else {
        window.openFile(image);
    }
    if (outcome < 0) loop.exec();
    if (outcome != 0) return outcome;
    if (firstLook && !answered) {
        QEventLoop run;
        for (auto end : {&BrightestModule::runFinished, &BrightestModule::runCancelled})
            QObject::connect(firstLook, end, &run, &QEventLoop::quit);
        QObject::connect(firstLook, &BrightestModule::runFailed, &run, &QEventLoop::quit);
        QObject::connect(&timeout, &QTimer::timeout, &run, &QEventLoop::quit);
        if (!answered && outcome == 0) run.exec();
        if (outcome != 0) return outcome;
    }

    // Let layouts and pending paints settle, then show the readout of the central pixel so that the
    // status bar fields appear in the picture as they do under a cursor.
    QCoreApplication::processEvents();
    window.statusBar()->clearMessage();
    window.readout()->showCursor(QPointF(ctx.image()->width() / 2, ctx.image()->height() / 2));
    QCoreApplication::processEvents();
    const QImage picture = window.grab().toImage();
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (picture.isNull() || !picture.save(&buffer, "PNG")) {
        printError(QStringLiteral("could not render the window"));
        return 3;
    }
    try {
        glint::writeFileAtomically(request.output.toStdString(), png.toStdString());
    } catch (const std::exception& e) {
        printError(QString::fromStdString(e.what()));
        return 3;
    }
    return 0;
}

} // namespace glint::ui
