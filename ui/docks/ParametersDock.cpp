#include "ui/docks/ParametersDock.h"

#include <QComboBox>
#include <QLabel>
#include <QScrollArea>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace glint::ui {

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
}

void ParametersDock::addPanel(const QString& title, QWidget* panel) {
    auto* scroll = new QScrollArea;
    scroll->setWidget(panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    pages_->addWidget(scroll);
    chooser_->addItem(title);
}

void ParametersDock::showPanel(const QString& title) {
    const int index = chooser_->findText(title);
    if (index >= 0) chooser_->setCurrentIndex(index);
    show();
    raise();
}

int ParametersDock::panelCount() const { return chooser_->count(); }

QString ParametersDock::currentTitle() const { return chooser_->currentText(); }

} // namespace glint::ui
