// How an algorithm plugs into the window: a module offers Analyze-menu actions and a parameters panel,
// and works through AppContext (image, canvas tools, layers, job runner, results, timing). MainWindow
// registers every module in one place, one line each (MainWindow::registerModules).
#pragma once

#include <QList>
#include <QObject>
#include <QString>

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

signals:
    // Asks the window to bring this module's panel to the front.
    void panelRequested();

protected:
    AppContext& context() const { return context_; }

private:
    AppContext& context_;
};

} // namespace glint::ui
