#include "ui/docks/ParametersDock.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QEvent>
#include <QGroupBox>
#include <QLabel>
#include <QLayout>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStyle>
#include <QStyleOption>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace glint::ui {

namespace {

// A panel's foldable groups: its group boxes that no other group box holds (directly in the panel, or in a
// form the panel holds, as SpecForm's groups are), top to bottom.
QVector<QGroupBox*> topGroups(QWidget* panel) {
    QVector<QGroupBox*> out;
    for (QGroupBox* box : panel->findChildren<QGroupBox*>()) {
        bool nested = false;
        for (QWidget* w = box->parentWidget(); w && w != panel; w = w->parentWidget())
            if (qobject_cast<QGroupBox*>(w)) nested = true;
        if (!nested) out.append(box);
    }
    std::sort(out.begin(), out.end(), [panel](const QGroupBox* a, const QGroupBox* b) {
        return a->mapTo(panel, QPoint(0, 0)).y() < b->mapTo(panel, QPoint(0, 0)).y();
    });
    return out;
}

} // namespace

namespace {
const QString kFolded = QStringLiteral("▸ ");
const QString kUnfolded = QStringLiteral("▾ ");

// The height of a group box's title strip (where a click folds it).
int titleHeight(const QGroupBox* box) { return box->fontMetrics().height() + 8; }

// A folded group drawn as its title row alone: the style's title (and check box), no frame.
QStyleOptionGroupBox titleOnlyOption(const QGroupBox* box) {
    QStyleOptionGroupBox option;
    option.initFrom(box);
    option.text = box->title();
    option.textAlignment = box->alignment();
    option.subControls = QStyle::SC_GroupBoxLabel;
    if (box->isCheckable()) {
        option.subControls |= QStyle::SC_GroupBoxCheckBox;
        option.state |= box->isChecked() ? QStyle::State_On : QStyle::State_Off;
    }
    option.features = QStyleOptionFrame::Flat;
    option.lineWidth = 0;
    option.midLineWidth = 0;
    option.textColor = box->palette().color(QPalette::WindowText);
    return option;
}

// The height of a folded group: its title row, as the style places the title.
int foldedHeight(const QGroupBox* box) {
    const QStyleOptionGroupBox option = titleOnlyOption(box);
    const QRect label = box->style()->subControlRect(QStyle::CC_GroupBox, &option, QStyle::SC_GroupBoxLabel, box);
    return std::max(label.bottom() + 1, box->fontMetrics().height()) + 3;
}
} // namespace

ParametersDock::ParametersDock(QWidget* parent)
    : QDockWidget(tr("Parameters"), parent), chooser_(new QComboBox), pages_(new QStackedWidget) {
    setObjectName(QStringLiteral("ParametersDock"));
    auto* body = new QWidget;
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(chooser_);
    layout->addWidget(pages_, 1);
    setWidget(body);
    connect(chooser_, &QComboBox::currentIndexChanged, pages_, &QStackedWidget::setCurrentIndex);
    connect(pages_, &QStackedWidget::currentChanged, this, [this] { QTimer::singleShot(0, this, &ParametersDock::fitCurrentPanel); });
}

void ParametersDock::addPanel(const QString& title, QWidget* panel) {
    auto* scroll = new QScrollArea;
    scroll->setWidget(panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->viewport()->installEventFilter(this); // its resizes refit the panel
    pages_->addWidget(scroll);
    chooser_->addItem(title);
    // Lists in a panel show a few rows and scroll themselves, rather than stretching the panel.
    for (QAbstractItemView* view : panel->findChildren<QAbstractItemView*>())
        if (!qobject_cast<QComboBox*>(view->parentWidget())) view->setMaximumHeight(view->fontMetrics().height() * 5 + 12);
    for (QGroupBox* box : topGroups(panel)) {
        groups_.insert(box, {box->title(), false, false, {}});
        box->setTitle(kUnfolded + box->title());
        box->installEventFilter(this);
    }
}

void ParametersDock::showPanel(const QString& title) {
    const int index = chooser_->findText(title);
    if (index >= 0) chooser_->setCurrentIndex(index);
    show();
    raise();
}

int ParametersDock::panelCount() const { return chooser_->count(); }

QString ParametersDock::currentTitle() const { return chooser_->currentText(); }

QVector<QGroupBox*> ParametersDock::groups(const QString& panelTitle) const {
    const int index = chooser_->findText(panelTitle);
    const auto* scroll = qobject_cast<QScrollArea*>(pages_->widget(index));
    if (!scroll || !scroll->widget()) return {};
    QVector<QGroupBox*> out;
    for (QGroupBox* box : topGroups(scroll->widget()))
        if (groups_.contains(box)) out.append(box);
    return out;
}

bool ParametersDock::isFolded(const QGroupBox* group) const { return groups_.value(group).folded; }

void ParametersDock::setFolded(QGroupBox* group, bool folded) {
    if (!groups_.contains(group)) return;
    fold(group, folded);
    groups_[group].byUser = true;
    if (!folded) lastUnfolded_ = group;
    fitCurrentPanel();
}

void ParametersDock::fold(QGroupBox* box, bool folded) {
    Group& g = groups_[box];
    if (g.folded == folded) return;
    g.folded = folded;
    box->setTitle((folded ? kFolded : kUnfolded) + g.title);
    if (folded) {
        g.hidden.clear();
        for (QWidget* child : box->findChildren<QWidget*>(Qt::FindDirectChildrenOnly)) {
            if (child->isHidden()) continue; // hidden by its panel: stays so
            g.hidden.append(child);
            child->hide();
        }
        if (box->layout()) {
            g.margins = box->layout()->contentsMargins();
            box->layout()->setContentsMargins(0, 0, 0, 0);
        }
        // Only the title row: the frame the style keeps below a title would show as an empty bar.
        g.maximumHeight = box->maximumHeight();
        box->setMaximumHeight(foldedHeight(box));
    } else {
        for (const QPointer<QWidget>& child : g.hidden)
            if (child) child->show();
        g.hidden.clear();
        if (box->layout()) box->layout()->setContentsMargins(g.margins);
        box->setMaximumHeight(g.maximumHeight);
    }
    box->update();
    if (box->layout()) box->layout()->invalidate();
    // Up to the panel (through a form that holds the group): each layout sizes again.
    for (QWidget* w = box->parentWidget(); w && !qobject_cast<QScrollArea*>(w); w = w->parentWidget()) {
        if (w->layout()) w->layout()->invalidate();
        w->updateGeometry();
    }
}

QScrollArea* ParametersDock::currentScroll() const { return qobject_cast<QScrollArea*>(pages_->currentWidget()); }

QWidget* ParametersDock::currentPanel() const {
    const QScrollArea* scroll = currentScroll();
    return scroll ? scroll->widget() : nullptr;
}

int ParametersDock::panelHeight(QWidget* panel) const {
    QLayout* layout = panel->layout();
    if (!layout) return panel->sizeHint().height();
    layout->invalidate();
    layout->activate();
    // Wrapped text is as tall as the width it gets: measure at the width the scroll area gives the panel.
    const QScrollArea* scroll = qobject_cast<QScrollArea*>(panel->parentWidget() ? panel->parentWidget()->parentWidget() : nullptr);
    const int width = scroll ? scroll->viewport()->width() : panel->width();
    return layout->hasHeightForWidth() ? layout->totalHeightForWidth(width) : layout->totalSizeHint().height();
}

bool ParametersDock::currentPanelFits() const {
    const QScrollArea* scroll = currentScroll();
    QWidget* panel = currentPanel();
    return !panel || panelHeight(panel) <= scroll->viewport()->height();
}

void ParametersDock::fitCurrentPanel() {
    QScrollArea* scroll = currentScroll();
    QWidget* panel = currentPanel();
    if (fitting_ || !panel || !isVisible() || scroll->viewport()->height() < 40) return;
    fitting_ = true;
    const int room = scroll->viewport()->height();
    QVector<QGroupBox*> boxes;
    for (QGroupBox* box : topGroups(panel))
        if (groups_.contains(box)) boxes.append(box);
    // Too tall: fold from the bottom, sparing the one last unfolded; the first group (the main settings and
    // the Run button) goes last.
    for (int i = static_cast<int>(boxes.size()) - 1; i >= 0 && panelHeight(panel) > room; --i) {
        QGroupBox* box = boxes[i];
        if (box == lastUnfolded_ || groups_[box].folded) continue;
        fold(box, true);
        groups_[box].byUser = false;
    }
    // Room to spare: unfold what the fitting folded, top first, while it still fits.
    for (QGroupBox* box : boxes) {
        Group& g = groups_[box];
        if (!g.folded || g.byUser) continue;
        fold(box, false);
        if (panelHeight(panel) > room) {
            fold(box, true);
            break;
        }
    }
    fitting_ = false;
}

bool ParametersDock::eventFilter(QObject* watched, QEvent* event) {
    if (auto* box = qobject_cast<QGroupBox*>(watched); box && groups_.contains(box)) {
        if (event->type() == QEvent::Paint && isFolded(box)) {
            QPainter painter(box);
            const QStyleOptionGroupBox option = titleOnlyOption(box);
            box->style()->drawComplexControl(QStyle::CC_GroupBox, &option, &painter, box);
            return true;
        }
        if (event->type() == QEvent::MouseButtonRelease) {
            const auto* mouse = static_cast<QMouseEvent*>(event);
            if (mouse->button() == Qt::LeftButton && mouse->position().y() <= titleHeight(box)) {
                setFolded(box, !isFolded(box));
                return true;
            }
        }
        return false;
    }
    if (event->type() == QEvent::Resize) {
        const QScrollArea* scroll = currentScroll();
        if (scroll && watched == scroll->viewport()) QTimer::singleShot(0, this, &ParametersDock::fitCurrentPanel);
    }
    return QDockWidget::eventFilter(watched, event);
}

} // namespace glint::ui
