#include "ui/modules/TracePanel.h"

#include "ui/docks/ParametersDock.h"
#include "ui/FormWidgets.h"

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

glint::TraceParams TraceSettings::liveParams() const {
    glint::TraceParams p = params;
    p.points = std::clamp(livePoints, 2, params.points);
    p.maxWidenings = 0;
    p.autoGuides = false;
    return p;
}

QString TraceSettings::describe() const {
    QString text = QStringLiteral("guides=%1 points=%2 half-width=%3 max-angle=%4 objective=%5 widen=%6 guides-auto=%7 score=%8")
                       .arg(params.guides)
                       .arg(params.points)
                       .arg(params.halfWidth > 0.0 ? QString::number(params.halfWidth) : QStringLiteral("auto"))
                       .arg(params.maxAngleDeg)
                       .arg(QLatin1String(glint::traceObjectiveName(params.objective)))
                       .arg(params.maxWidenings)
                       .arg(params.autoGuides ? QStringLiteral("on") : QStringLiteral("off"))
                       .arg(QLatin1String(glint::traceScoreName(field.score)));
    if (field.score == glint::TraceScore::Ridge)
        text += QStringLiteral(" width=%1 polarity=%2")
                    .arg(autoWidth ? QStringLiteral("auto") : QString::number(field.lineWidth))
                    .arg(QLatin1String(glint::tracePolarityName(field.polarity)));
    return text;
}

namespace {

template <class Box>
Box* named(Box* box, const char* name) {
    box->setObjectName(QLatin1String(name));
    return box;
}

} // namespace

TracePanel::TracePanel(const TraceSettings& settings, QWidget* parent)
    : QWidget(parent), guides_(named(new QSpinBox, "guides")), points_(named(new QSpinBox, "points")),
      livePoints_(named(new QSpinBox, "livePoints")), halfWidth_(named(new QDoubleSpinBox, "halfWidth")),
      maxAngle_(named(new QDoubleSpinBox, "maxAngle")), score_(named(new QComboBox, "score")),
      lineWidth_(named(new QDoubleSpinBox, "lineWidth")), polarity_(named(new QComboBox, "polarity")),
      backend_(named(new QComboBox, "backend")), objective_(named(new QComboBox, "objective")),
      autoWidth_(named(new QCheckBox(tr("auto")), "autoWidth")),
      autoGuides_(named(new QCheckBox(tr("auto")), "guidesAuto")),
      snap_(named(new QCheckBox(tr("Snap to line")), "snap")), showGuides_(named(new QCheckBox(tr("Show guides")), "showGuides")),
      widenings_(named(new QSpinBox, "widenings")), trace_(named(new QPushButton(tr("Trace Line")), "traceButton")) {
    // Combo boxes as wide as a short entry, not as their longest one: the panel keeps to the dock's width.
    const auto narrow = [](QComboBox* box, int characters) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(characters);
    };
    guides_->setRange(1, glint::kMaxTraceGuides);
    guides_->setToolTip(tr("Guides: the lines across the leg on which the trace picks one point each"));
    points_->setRange(2, glint::kMaxTracePoints);
    points_->setToolTip(tr("Points per guide: the candidate positions along each guide"));
    livePoints_->setRange(2, glint::kMaxTracePoints);
    livePoints_->setToolTip(tr("Points per guide while the mouse moves; a click always traces with the full count"));
    setUpSpinBox(halfWidth_, 0.0, 1e6, 1, tr(" px"));
    halfWidth_->setSpecialValueText(tr("auto"));
    halfWidth_->setToolTip(tr("Half the length of each guide (how far the trace may stray from the straight leg); "
                              "auto (0): ¼ of the leg, at least 8 px"));
    setUpSpinBox(maxAngle_, 0.1, 180.0, 1, QStringLiteral("°"));
    maxAngle_->setToolTip(tr("Maximum turning angle between consecutive segments of the trace"));
    addEnumItems(score_, {glint::TraceScore::Magnitude, glint::TraceScore::Sine, glint::TraceScore::Ridge},
                 &glint::traceScoreName);
    score_->setToolTip(tr("magnitude: edges (shorelines, field boundaries); sine: the paper's form; "
                          "ridge: the centre line of a road, river or vessel"));
    objective_->addItem(tr("mean per length"), static_cast<int>(glint::TraceObjective::Ratio));
    objective_->setItemData(0, tr("Mean score per length: a detour wins only if it scores more per pixel"), Qt::ToolTipRole);
    objective_->addItem(tr("total (paper)"), static_cast<int>(glint::TraceObjective::Sum));
    objective_->setItemData(1, tr("Total score: the paper's objective, which rewards longer paths"), Qt::ToolTipRole);
    objective_->setToolTip(tr("mean score per length: a detour wins only if it scores more per pixel; "
                              "total score: the paper's objective, which rewards longer paths"));
    narrow(objective_, 10);
    widenings_->setRange(0, glint::kMaxTraceWidenings);
    widenings_->setSpecialValueText(tr("none"));
    widenings_->setToolTip(tr("How many times a leg whose trace touches a guide's end (the feature lies further out) "
                              "is traced again on guides twice as wide"));
    autoWidth_->setToolTip(tr("Estimate the ridge width by scale selection at the first two clicks"));
    autoGuides_->setToolTip(tr("A fixed leg whose fit is poor (low confidence, a sharp turn, the trace at a guide's "
                               "end) is traced again on finer or wider guides, kept when it scores higher"));
    snap_->setToolTip(tr("The cursor and the clicks snap to the strongest line (or edge) within %1 pixels")
                          .arg(TraceSettings::kSnapRadius));
    showGuides_->setToolTip(tr("Draw the guides of the leg being traced"));
    setUpSpinBox(lineWidth_, 0.5, 1000.0, 1, tr(" px"));
    lineWidth_->setToolTip(tr("The width of the ridge (road, river, vessel) the score looks for"));
    addEnumItems(polarity_, {glint::TracePolarity::Both, glint::TracePolarity::Bright, glint::TracePolarity::Dark},
                 &glint::tracePolarityName);
    polarity_->setToolTip(tr("bright: lines brighter than their surroundings; dark: darker; both: either"));
    for (const glint::Backend b : {glint::Backend::Auto, glint::Backend::Cuda, glint::Backend::Cpu, glint::Backend::Reference}) {
        const int index = backend_->count();
        backend_->addItem(QLatin1String(glint::backendName(b)), static_cast<int>(b));
        if (b == glint::Backend::Cuda && !glint::cudaDevice().usable) {
            backend_->setItemText(index, tr("cuda (none)"));
            backend_->setItemData(index, tr("No usable CUDA device: a run on cuda fails"), Qt::ToolTipRole);
        }
    }
    narrow(backend_, 9);
    trace_->setToolTip(tr("Start a trace on the image (Analyze ▸ Line Trace)"));

    auto* about = new QLabel(tr("Click along a line; Enter finishes."));
    about->setWordWrap(true);
    about->setToolTip(tr("Click a start point; the best trace to the cursor follows the mouse. Click to fix a leg, "
                         "click again to chain more. Backspace removes the last point, Esc cancels, Enter or a "
                         "double-click finishes."));

    // A value and its "auto" box on one row.
    const auto withAuto = [](QWidget* value, QCheckBox* automatic) {
        auto* row = new QHBoxLayout;
        row->setContentsMargins(0, 0, 0, 0);
        row->addWidget(value, 1);
        row->addWidget(automatic);
        return row;
    };

    mainGroup_ = new QGroupBox(tr("Trace"));
    auto* mainForm = new QFormLayout(mainGroup_);
    mainForm->addRow(tr("Score"), score_);
    mainForm->addRow(tr("Guides"), withAuto(guides_, autoGuides_));
    auto* pointsRow = new QHBoxLayout;
    pointsRow->setContentsMargins(0, 0, 0, 0);
    pointsRow->addWidget(points_, 1);
    auto* liveLabel = new QLabel(tr("live"));
    liveLabel->setBuddy(livePoints_);
    liveLabel->setToolTip(livePoints_->toolTip());
    pointsRow->addWidget(liveLabel);
    pointsRow->addWidget(livePoints_, 1);
    mainForm->addRow(tr("Points"), pointsRow);
    mainForm->addRow(tr("Max. angle"), maxAngle_);
    mainForm->addRow(tr("Backend"), backend_);
    auto* toggles = new QHBoxLayout;
    toggles->setContentsMargins(0, 0, 0, 0);
    toggles->addWidget(snap_);
    toggles->addWidget(showGuides_);
    toggles->addStretch(1);
    mainForm->addRow(toggles);
    mainForm->addRow(trace_);

    ridgeGroup_ = new QGroupBox(tr("Ridge line"));
    ridgeGroup_->setToolTip(tr("The ridge score's line: its width and whether it is brighter or darker than around it"));
    auto* ridgeForm = new QFormLayout(ridgeGroup_);
    ridgeForm->addRow(tr("Width"), withAuto(lineWidth_, autoWidth_));
    ridgeForm->addRow(tr("Polarity"), polarity_);

    advancedGroup_ = new QGroupBox(tr("Advanced"));
    auto* advancedForm = new QFormLayout(advancedGroup_);
    advancedForm->addRow(tr("Objective"), objective_);
    advancedForm->addRow(tr("Widenings"), widenings_);
    advancedForm->addRow(tr("Half-width"), halfWidth_);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(about);
    layout->addWidget(mainGroup_);
    layout->addWidget(ridgeGroup_);
    layout->addWidget(advancedGroup_);
    layout->addStretch(1);

    setSettings(settings);
    const auto emitChanged = [this] {
        updateEnabled();
        if (!updating_) emit changed();
    };
    for (QSpinBox* box : {guides_, points_, livePoints_, widenings_}) connect(box, &QSpinBox::valueChanged, this, emitChanged);
    for (QDoubleSpinBox* box : {halfWidth_, maxAngle_, lineWidth_}) connect(box, &QDoubleSpinBox::valueChanged, this, emitChanged);
    for (QComboBox* box : {score_, polarity_, backend_, objective_}) connect(box, &QComboBox::currentIndexChanged, this, emitChanged);
    for (QCheckBox* box : {showGuides_, snap_, autoWidth_, autoGuides_}) connect(box, &QCheckBox::toggled, this, emitChanged);
    connect(trace_, &QPushButton::clicked, this, &TracePanel::traceRequested);
    // Choosing the ridge score shows its line's settings (the dock folds others if it must).
    connect(score_, &QComboBox::currentIndexChanged, this, [this] {
        if (updating_ || score_->currentData().toInt() != static_cast<int>(glint::TraceScore::Ridge)) return;
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
    TraceSettings s;
    s.params.guides = guides_->value();
    s.params.points = points_->value();
    s.livePoints = livePoints_->value();
    s.params.halfWidth = halfWidth_->value();
    s.params.maxAngleDeg = maxAngle_->value();
    s.params.objective = static_cast<glint::TraceObjective>(objective_->currentData().toInt());
    s.params.maxWidenings = widenings_->value();
    s.params.autoGuides = autoGuides_->isChecked();
    s.field.score = static_cast<glint::TraceScore>(score_->currentData().toInt());
    s.field.lineWidth = lineWidth_->value();
    s.field.sineThresholdFraction = sineThreshold_;
    s.field.polarity = static_cast<glint::TracePolarity>(polarity_->currentData().toInt());
    s.backend = static_cast<glint::Backend>(backend_->currentData().toInt());
    s.showGuides = showGuides_->isChecked();
    s.snap = snap_->isChecked();
    s.autoWidth = autoWidth_->isChecked();
    return s;
}

void TracePanel::setSettings(const TraceSettings& s) {
    updating_ = true;
    guides_->setValue(s.params.guides);
    points_->setValue(s.params.points);
    livePoints_->setValue(s.livePoints);
    halfWidth_->setValue(s.params.halfWidth);
    maxAngle_->setValue(s.params.maxAngleDeg);
    objective_->setCurrentIndex(objective_->findData(static_cast<int>(s.params.objective)));
    widenings_->setValue(s.params.maxWidenings);
    autoGuides_->setChecked(s.params.autoGuides);
    score_->setCurrentIndex(score_->findData(static_cast<int>(s.field.score)));
    lineWidth_->setValue(s.field.lineWidth);
    sineThreshold_ = s.field.sineThresholdFraction;
    polarity_->setCurrentIndex(polarity_->findData(static_cast<int>(s.field.polarity)));
    backend_->setCurrentIndex(backend_->findData(static_cast<int>(s.backend)));
    showGuides_->setChecked(s.showGuides);
    snap_->setChecked(s.snap);
    autoWidth_->setChecked(s.autoWidth);
    updating_ = false;
    updateEnabled();
}

void TracePanel::updateEnabled() {
    const bool ridge = score_->currentData().toInt() == static_cast<int>(glint::TraceScore::Ridge);
    lineWidth_->setEnabled(ridge && !autoWidth_->isChecked());
    autoWidth_->setEnabled(ridge);
    polarity_->setEnabled(ridge);
}

} // namespace glint::ui
