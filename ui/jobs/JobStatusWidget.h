// The status-bar face of a JobRunner: the running job's name and the step it is in ("Brightest region:
// measure"), a progress bar and a Cancel button (Esc), hidden while no job runs.
#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;

namespace glint::ui {

class JobRunner;

class JobStatusWidget : public QWidget {
    Q_OBJECT
public:
    explicit JobStatusWidget(JobRunner& runner, QWidget* parent = nullptr);
    QToolButton* cancelButton() const { return cancel_; }
    QProgressBar* progressBar() const { return bar_; }
    QLabel* label() const { return label_; }

private:
    JobRunner& runner_;
    QLabel* label_;
    QProgressBar* bar_;
    QToolButton* cancel_;
};

} // namespace glint::ui
