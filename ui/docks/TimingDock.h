// Lists every analysis run of the session (algorithm, backend, device, image, parameters, total and the
// speed-up against the reference), each expandable into its named timing steps.
#pragma once

#include <QDockWidget>

class QAction;
class QToolButton;
class QTreeWidget;

namespace glint::ui {

class TimingLog;

class TimingDock : public QDockWidget {
    Q_OBJECT
public:
    explicit TimingDock(TimingLog& log, QWidget* parent = nullptr);
    QTreeWidget* tree() const { return tree_; }
    // The "Export timing report" button above the list (the window's action).
    void setExportAction(QAction* action);
    QToolButton* exportButton() const { return export_; }

private:
    void addRun(int index);

    TimingLog& log_;
    QTreeWidget* tree_;
    QToolButton* export_;
};

} // namespace glint::ui
