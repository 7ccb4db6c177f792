#include "ui/modules/TracePanel.h"

#include "ui/docks/ParametersDock.h"
#include "ui/params/SpecForm.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace glint::ui {

TraceSettings::TraceSettings()
    : glint::TraceRequest(glint::traceSpec().read(glint::traceSpec().presetValues(glint::ImageKind::Other))) {}

glint::TraceParams TraceSettings::liveParams() const {
    return glint::liveTraceParams(params, livePoints);
}

QString TraceSettings::describe() const {
    const glint::Json values = glint::traceSpec().write(*this);
    QStringList parts;
    for (const auto& [key, value] : values.items()) {
        if (key == "preset" || key == "from" || key == "to" || key == "via") continue;
        const glint::ParamField* f = glint::traceSpec().field(key);
        if (f && !f->info().appliesWith(values)) continue;
        parts << QStringLiteral("%1=%2").arg(QString::fromStdString(key),
                                             QString::fromStdString(value.is_string() ? value.get<std::string>() : value.dump()));
    }
    return parts.join(QLatin1Char(' '));
}

TracePanel::TracePanel(const TraceSettings& settings, QWidget* parent)
    : QWidget(parent), form_(new SpecForm(glint::traceSpec())), livePoints_(new QSpinBox), backend_(new QComboBox),
      showGuides_(new QCheckBox(tr("Show guides"))), trace_(new QPushButton(tr("Trace Line"))) {
    livePoints_->setObjectName(QStringLiteral("livePoints"));
    backend_->setObjectName(QStringLiteral("backend"));
    showGuides_->setObjectName(QStringLiteral("showGuides"));
    trace_->setObjectName(QStringLiteral("traceButton"));
    livePoints_->setRange(2, glint::kMaxTracePoints);
    livePoints_->setToolTip(tr("Points per guide while the mouse moves; a click always traces with the full count"));
    for (const glint::Backend b : {glint::Backend::Auto, glint::Backend::Cuda, glint::Backend::Cpu, glint::Backend::Reference}) {
        const int index = backend_->count();
        backend_->addItem(QLatin1String(glint::backendName(b)), static_cast<int>(b));
        if (b == glint::Backend::Cuda && !glint::cudaDevice().usable) {
            backend_->setItemText(index, tr("cuda (none)"));
            backend_->setItemData(index, tr("No usable CUDA device: a run on cuda fails"), Qt::ToolTipRole);
        }
    }
    // Combo boxes as wide as a short entry, not as their longest one: the panel keeps to the dock's width.
    backend_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    backend_->setMinimumContentsLength(9);
    if (QComboBox* objective = form_->comboBox("objective")) {
        objective->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        objective->setMinimumContentsLength(10);
    }
    showGuides_->setToolTip(tr("Draw the guides of the leg being traced"));
    trace_->setToolTip(tr("Start a trace on the image (Analyze ▸ Line Trace)"));

    auto* about = new QLabel(tr("Click along a line; Enter finishes."));
    about->setWordWrap(true);
    about->setToolTip(tr("Click a start point; the best trace to the cursor follows the mouse. Click to fix a leg, "
                         "click again to chain more. Backspace removes the last point, Esc cancels, Enter or a "
                         "double-click finishes."));

    // The spec's groups ("Trace", "Ridge line", "Advanced"), with the window's own settings in the first.
    mainGroup_ = form_->group(QStringLiteral("Trace"));
    ridgeGroup_ = form_->group(QStringLiteral("Ridge line"));
    advancedGroup_ = form_->group(QStringLiteral("Advanced"));
    ridgeGroup_->setToolTip(tr("The ridge score's line: its width and whether it is brighter or darker than around it"));
    // The window's own settings beside the spec's fields they go with, so that the group keeps to its rows:
    // the live points beside the points, "Show guides" beside the snap radius.
    auto* mainForm = static_cast<QFormLayout*>(mainGroup_->layout());
    const auto besides = [mainForm](QWidget* field, const QString& label, QWidget* extra) {
        int row = -1;
        QFormLayout::ItemRole role;
        mainForm->getWidgetPosition(field, &row, &role);
        if (row < 0) return;
        const QFormLayout::TakeRowResult taken = mainForm->takeRow(row);
        if (taken.labelItem) {
            delete taken.labelItem->widget();
            delete taken.labelItem;
        }
        delete taken.fieldItem; // the field itself moves into the row's holder
        auto* holder = new QWidget;
        auto* line = new QHBoxLayout(holder);
        line->setContentsMargins(0, 0, 0, 0);
        line->addWidget(field, 1);
        if (!label.isEmpty()) {
            auto* text = new QLabel(label);
            text->setBuddy(extra);
            text->setToolTip(extra->toolTip());
            line->addWidget(text);
        }
        line->addWidget(extra, label.isEmpty() ? 0 : 1);
        holder->setToolTip(field->toolTip());
        mainForm->insertRow(row, QString::fromStdString(glint::traceSpec().field(field->objectName().toStdString())->info().label), holder);
    };
    besides(form_->spinBox("points"), tr("live"), livePoints_);
    besides(form_->doubleSpinBox("snap"), QString(), showGuides_);
    mainForm->addRow(tr("Backend"), backend_);
    mainForm->addRow(trace_);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(about);
    layout->addWidget(form_);
    layout->addStretch(1);

    setSettings(settings);
    const auto emitChanged = [this] {
        if (!updating_) emit changed();
    };
    connect(form_, &SpecForm::changed, this, emitChanged);
    connect(livePoints_, &QSpinBox::valueChanged, this, emitChanged);
    connect(backend_, &QComboBox::currentIndexChanged, this, emitChanged);
    connect(showGuides_, &QCheckBox::toggled, this, emitChanged);
    connect(trace_, &QPushButton::clicked, this, &TracePanel::traceRequested);
    // Choosing the ridge score shows its line's settings (the dock folds others if it must).
    if (QComboBox* score = form_->comboBox("score"))
        connect(score, &QComboBox::currentIndexChanged, this, [this, score] {
            if (updating_ || score->currentData().toString() != QLatin1String("ridge")) return;
            if (ParametersDock* dock = parametersDock(); dock && dock->isFolded(ridgeGroup_)) dock->setFolded(ridgeGroup_, false);
        });
}

ParametersDock* TracePanel::parametersDock() const {
    for (QWidget* w = parentWidget(); w; w = w->parentWidget())
        if (auto* dock = qobject_cast<ParametersDock*>(w)) return dock;
    return nullptr;
}

void TracePanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!defaultsFolded_) QTimer::singleShot(0, this, &TracePanel::foldDefaults);
}

// The first time the panel is shown in the Parameters dock, the groups beyond the main one fold (as a click on
// their titles would: they stay folded until the user unfolds one).
void TracePanel::foldDefaults() {
    if (defaultsFolded_ || !isVisible()) return;
    ParametersDock* dock = parametersDock();
    if (!dock) return;
    defaultsFolded_ = true;
    for (QGroupBox* box : foldedByDefault())
        if (!dock->isFolded(box)) dock->setFolded(box, true);
}

TraceSettings TracePanel::settings() const {
    // Every field, applying or not (a field the score does not use keeps its value for when it does), over the
    // settings last given (a value the panel has no field for, the sine threshold, stays as it was).
    glint::Json values = glint::traceSpec().write(base_);
    for (const char* click : {"preset", "from", "to", "via"}) values.erase(click);
    const glint::Json shown = form_->allValues();
    for (const auto& [key, value] : shown.items()) values[key] = value;
    TraceSettings s(glint::traceSpec().read(values));
    s.livePoints = livePoints_->value();
    s.backend = static_cast<glint::Backend>(backend_->currentData().toInt());
    s.showGuides = showGuides_->isChecked();
    return s;
}

void TracePanel::setSettings(const TraceSettings& s) {
    updating_ = true;
    base_ = s;
    glint::Json values = glint::traceSpec().write(s);
    for (const char* click : {"preset", "from", "to", "via"}) values.erase(click);
    form_->setValues(values);
    livePoints_->setValue(s.livePoints);
    backend_->setCurrentIndex(backend_->findData(static_cast<int>(s.backend)));
    showGuides_->setChecked(s.showGuides);
    updating_ = false;
}

} // namespace glint::ui
