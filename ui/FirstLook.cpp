#include "ui/FirstLook.h"

#include "ui/AppContext.h"
#include "ui/MainWindow.h"
#include "ui/docks/ParametersDock.h"
#include "ui/modules/BrightestModule.h"
#include "ui/results/ResultsModel.h"

#include <QFileInfo>

#include <memory>
#include <utility>

namespace glint::ui {

BrightestModule* openFirstLook(MainWindow& window, const QString& sample) {
    BrightestModule* brightest = nullptr;
    for (AnalysisModule* m : window.modules())
        if (auto* b = qobject_cast<BrightestModule*>(m)) brightest = b;
    if (!brightest || sample.isEmpty()) {
        if (!sample.isEmpty()) window.openFile(sample);
        return nullptr;
    }
    AppContext& ctx = window.context();
    // One shot: the first image shown (or the first failure) ends it.
    auto* once = new QObject(&window);
    auto done = std::make_shared<bool>(false);
    const QString wanted = QFileInfo(sample).absoluteFilePath();
    QObject::connect(&ctx, &AppContext::imageChanged, once, [&window, &ctx, brightest, once, done, wanted] {
        if (std::exchange(*done, true)) return;
        once->deleteLater();
        if (QFileInfo(ctx.loaded().path).absoluteFilePath() != wanted) return; // the user opened another file first
        window.parametersDock()->showPanel(brightest->name());
        // The module's own image handling ran first (connected earlier): the panel holds the preset of the image's
        // kind, and a mammogram's exclusions are being found; the run waits for them.
        brightest->run();
    });
    QObject::connect(&ctx, &AppContext::loadFailed, once, [once, done] {
        *done = true;
        once->deleteLater();
    });
    window.openFile(sample);
    return brightest;
}

} // namespace glint::ui
