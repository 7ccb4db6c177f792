// The window's export commands: File ▸ Export View as PNG / SVG, Export Results, Export Timing Report
// (also the timing dock's button). Each asks where (a file dialog), writes through the export helpers,
// and on failure shows the message (a box when the window is interactive, the status bar always); the
// same calls without dialogs serve tests and scripts.
#pragma once

#include "ui/export/ResultExport.h"
#include "ui/export/ViewExport.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

class QAction;

namespace glint::ui {

class MainWindow;

class ExportActions : public QObject {
    Q_OBJECT
public:
    explicit ExportActions(MainWindow& window);

    QList<QAction*> actions() const { return {viewPng_, viewSvg_, results_, timing_}; }
    QAction* viewPngAction() const { return viewPng_; }
    QAction* viewSvgAction() const { return viewSvg_; }
    QAction* resultsAction() const { return results_; }
    QAction* timingReportAction() const { return timing_; }

    // True when written; false once the message has been shown (lastError() keeps it).
    bool exportViewPng(const QString& path, ViewExportOptions options = {});
    bool exportViewSvg(const QString& path, ViewExportOptions options = {});
    bool exportResults(const QVector<ExportableResults>& sets, const ResultFiles& files);
    bool exportTimingReport(const QString& base);
    // Every module's result sets (all of them; visibleResults() picks the shown ones).
    QVector<ExportableResults> results() const;

    QString lastError() const { return lastError_; }
    QStringList lastWritten() const { return lastWritten_; }

public slots:
    void chooseViewPng();
    void chooseViewSvg();
    void chooseResults();
    void chooseTimingReport();

signals:
    void exported(const QStringList& paths);
    void exportFailed(const QString& message);

private:
    bool run(const QString& what, const std::function<QStringList()>& write);
    QString suggestedBase(const QString& suffix) const;
    // Asks where to save (starting at suggestedBase(suffix)); remembers the folder. Empty when cancelled.
    QString chooseSavePath(const QString& title, const QString& suffix, const QString& filter);
    void updateEnabled();

    MainWindow& window_;
    QAction* viewPng_;
    QAction* viewSvg_;
    QAction* results_;
    QAction* timing_;
    QString lastError_;
    QStringList lastWritten_;
    QString lastDirectory_;
};

} // namespace glint::ui
