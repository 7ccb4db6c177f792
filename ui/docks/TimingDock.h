// Lists every analysis run of the session (algorithm, backend, device, image, parameters, total and the
// speed-up against the reference), each expandable into its named timing steps.
#pragma once

#include <QDockWidget>

class QTreeWidget;

namespace glint::ui {

class TimingLog;

class TimingDock : public QDockWidget {
    Q_OBJECT
public:
    explicit TimingDock(TimingLog& log, QWidget* parent = nullptr);
    QTreeWidget* tree() const { return tree_; }

private:
    void addRun(int index);

    TimingLog& log_;
    QTreeWidget* tree_;
};

} // namespace glint::ui
