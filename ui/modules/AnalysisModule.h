// How an algorithm plugs into the window: a module offers Analyze-menu actions and a parameters panel,
// and works through AppContext (image, canvas tools, layers, job runner, results, timing). MainWindow
// registers every module in one place, one line each (MainWindow::registerModules).
#pragma once

#include "ui/export/ExportableResults.h"
#include "ui/session/SessionInputs.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QVector>

#include <functional>

class QAction;
class QWidget;

namespace glint::ui {

class AppContext;

class AnalysisModule : public QObject {
    Q_OBJECT
public:
    explicit AnalysisModule(AppContext& context, QObject* parent = nullptr) : QObject(parent), context_(context) {}

    // "Brightest region": the Analyze submenu and the parameters page are titled with it.
    virtual QString name() const = 0;
    // Analyze-menu entries; the module owns them. Shortcuts are welcome.
    virtual QList<QAction*> actions() { return {}; }
    // File-menu entries (opening an input the module needs besides the image); the module owns them.
    virtual QList<QAction*> fileActions() { return {}; }
    // The parameters panel, created once; the parameters dock takes ownership. nullptr: no panel.
    virtual QWidget* createPanel() { return nullptr; }

    // --- Exports: the module's results as core regions, one entry per result set (File ▸ Export Results).
    virtual QVector<ExportableResults> exportableResults() const { return {}; }

    // --- Sessions. The key names the module's entry in a session file ("brightest"); empty: not saved.
    virtual QString sessionKey() const { return {}; }
    // Parameters, results and the overlays' contents, with the results themselves (no re-run on open).
    virtual QJsonObject saveSession() const { return {}; }
    // Image files the state needs loaded before it can be applied, by key.
    virtual QHash<QString, SessionInput> sessionInputs(const QJsonObject& /*state*/) const { return {}; }
    // Reads the state and returns what shows it. Throws std::exception (a message for the user) when the
    // state is malformed, before changing anything; the window calls the returned function after the
    // session's image is shown (so after imageChanged), and only when every module's state was read.
    virtual std::function<void()> prepareSession(const QJsonObject& /*state*/, const SessionImages& /*inputs*/) {
        return {};
    }

signals:
    // Asks the window to bring this module's panel to the front.
    void panelRequested();
    // New results are on screen (a run finished, a trace was completed): the autosave writes soon.
    void resultsChanged();

protected:
    AppContext& context() const { return context_; }

private:
    AppContext& context_;
};

} // namespace glint::ui
