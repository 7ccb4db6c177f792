#include "ui/docks/TimingDock.h"

#include "ui/results/TimingLog.h"

#include <QAction>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace glint::ui {

namespace {
QString ms(double v) { return QString::number(v, 'f', v < 10 ? 3 : 1); }
} // namespace

TimingDock::TimingDock(TimingLog& log, QWidget* parent)
    : QDockWidget(tr("Timing"), parent), log_(log), tree_(new QTreeWidget), export_(new QToolButton) {
    setObjectName(QStringLiteral("TimingDock"));
    tree_->setHeaderLabels({tr("Run / step"), tr("Backend"), tr("Device"), tr("Image"), tr("Parameters"), tr("ms"),
                            tr("vs reference")});
    tree_->setRootIsDecorated(true);
    tree_->setMinimumHeight(40);
    tree_->setAlternatingRowColors(true);
    tree_->header()->setStretchLastSection(false);
    auto* body = new QWidget;
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* bar = new QHBoxLayout;
    export_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    export_->setText(tr("Export timing report…"));
    export_->setEnabled(false);
    bar->addWidget(export_);
    bar->addStretch(1);
    layout->addLayout(bar);
    layout->addWidget(tree_);
    setWidget(body);
    connect(&log_, &TimingLog::recordAdded, this, &TimingDock::addRun);
    connect(&log_, &TimingLog::cleared, tree_, &QTreeWidget::clear);
    for (int i = 0; i < static_cast<int>(log_.records().size()); ++i) addRun(i);
}

void TimingDock::setExportAction(QAction* action) {
    export_->setDefaultAction(action);
    export_->setText(tr("Export timing report…"));
    connect(action, &QAction::changed, export_, [this] { export_->setText(tr("Export timing report…")); });
}

void TimingDock::addRun(int index) {
    const RunRecord& r = log_.records().at(static_cast<std::size_t>(index));
    const auto speedup = log_.speedupAgainstReference(static_cast<std::size_t>(index));
    auto* run = new QTreeWidgetItem(tree_);
    run->setText(0, QStringLiteral("%1  %2").arg(r.when.toString(QStringLiteral("HH:mm:ss")), r.algorithm));
    run->setText(1, r.backend);
    run->setText(2, r.device);
    run->setText(3, QStringLiteral("%1 (%2×%3)").arg(QFileInfo(r.imagePath).fileName()).arg(r.imageSize.width()).arg(r.imageSize.height()));
    run->setText(4, r.parameters);
    run->setText(5, ms(r.totalMs));
    run->setText(6, speedup ? QStringLiteral("%1×").arg(*speedup, 0, 'f', 1) : QString());
    run->setTextAlignment(5, Qt::AlignRight | Qt::AlignVCenter);
    for (const glint::TimingStep& step : r.steps) {
        auto* child = new QTreeWidgetItem(run);
        child->setText(0, QString::fromStdString(step.name));
        child->setText(5, ms(step.ms));
        child->setTextAlignment(5, Qt::AlignRight | Qt::AlignVCenter);
    }
    tree_->scrollToItem(run);
    for (int c = 0; c < tree_->columnCount(); ++c) tree_->resizeColumnToContents(c);
}

} // namespace glint::ui
