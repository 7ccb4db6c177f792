#include "ui/jobs/JobStatusWidget.h"

#include "ui/jobs/JobRunner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

#include <algorithm>
#include <cmath>

namespace glint::ui {

JobStatusWidget::JobStatusWidget(JobRunner& runner, QWidget* parent)
    : QWidget(parent), runner_(runner), label_(new QLabel(this)), bar_(new QProgressBar(this)),
      cancel_(new QToolButton(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(label_);
    layout->addWidget(bar_);
    layout->addWidget(cancel_);
    bar_->setRange(0, 1000);
    bar_->setTextVisible(false);
    bar_->setFixedWidth(140);
    bar_->setMaximumHeight(14);
    cancel_->setText(tr("Cancel"));
    cancel_->setToolTip(tr("Stop the running job (Esc)"));
    setVisible(false);

    connect(cancel_, &QToolButton::clicked, this, [this] {
        runner_.cancel();
        label_->setText(tr("%1: cancelling…").arg(runner_.currentName()));
        cancel_->setEnabled(false);
    });
    connect(&runner_, &JobRunner::started, this, [this](const QString& name) {
        label_->setText(name);
        bar_->setValue(0);
        cancel_->setEnabled(true);
        setVisible(true);
    });
    // Which step runs, as the job's timing names it: "Brightest region: measure".
    connect(&runner_, &JobRunner::stepChanged, this, [this](const QString& step) {
        if (!cancel_->isEnabled()) return; // "cancelling…" stays
        label_->setText(step.isEmpty() ? runner_.currentName() : tr("%1: %2").arg(runner_.currentName(), step));
    });
    connect(&runner_, &JobRunner::progressChanged, this, [this](double f) {
        bar_->setValue(static_cast<int>(std::lround(std::clamp(f, 0.0, 1.0) * 1000.0)));
    });
    connect(&runner_, &JobRunner::busyChanged, this, [this](bool busy) {
        if (!busy) setVisible(false);
    });
}

} // namespace glint::ui
