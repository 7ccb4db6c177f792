#include "ui/modules/TracePanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
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
      autoWidth_(named(new QCheckBox(tr("auto (estimated at the first two clicks)")), "autoWidth")),
      autoGuides_(named(new QCheckBox(tr("auto (more where the fit is poor)")), "guidesAuto")),
      snap_(named(new QCheckBox(tr("Snap to line")), "snap")), showGuides_(named(new QCheckBox(tr("Show the guides of the current leg")), "showGuides")),
      trace_(named(new QPushButton(tr("Trace Line")), "traceButton")) {
    guides_->setRange(1, glint::kMaxTraceGuides);
    points_->setRange(2, glint::kMaxTracePoints);
    livePoints_->setRange(2, glint::kMaxTracePoints);
    livePoints_->setToolTip(tr("Points per guide while the mouse moves; a click always traces with the full count"));
    halfWidth_->setRange(0.0, 1e6);
    halfWidth_->setDecimals(1);
    halfWidth_->setSuffix(tr(" px"));
    halfWidth_->setSpecialValueText(tr("auto (¼ of the leg, ≥ 8 px)"));
    maxAngle_->setRange(0.1, 180.0);
    maxAngle_->setDecimals(1);
    maxAngle_->setSuffix(QStringLiteral("°"));
    for (const glint::TraceScore s : {glint::TraceScore::Magnitude, glint::TraceScore::Sine, glint::TraceScore::Ridge})
        score_->addItem(QLatin1String(glint::traceScoreName(s)), static_cast<int>(s));
    score_->setToolTip(tr("magnitude: edges (shorelines, field boundaries); sine: the paper's form; "
                          "ridge: the centre line of a road, river or vessel"));
    objective_->addItem(tr("mean score per length"), static_cast<int>(glint::TraceObjective::Ratio));
    objective_->addItem(tr("total score (the paper's)"), static_cast<int>(glint::TraceObjective::Sum));
    objective_->setToolTip(tr("mean score per length: a detour wins only if it scores more per pixel; "
                              "total score: the paper's objective, which rewards longer paths"));
    autoWidth_->setToolTip(tr("Pick the ridge width by scale selection at the first two clicks"));
    autoGuides_->setToolTip(tr("A fixed leg whose fit is poor (low confidence, a sharp turn, the trace at a guide's "
                               "end) is traced again on finer or wider guides, kept when it scores higher"));
    snap_->setToolTip(tr("The cursor and the clicks snap to the strongest line (or edge) within %1 pixels")
                          .arg(TraceSettings::kSnapRadius));
    lineWidth_->setRange(0.5, 1000.0);
    lineWidth_->setDecimals(1);
    lineWidth_->setSuffix(tr(" px"));
    for (const glint::TracePolarity p : {glint::TracePolarity::Both, glint::TracePolarity::Bright, glint::TracePolarity::Dark})
        polarity_->addItem(QLatin1String(glint::tracePolarityName(p)), static_cast<int>(p));
    for (const glint::Backend b : {glint::Backend::Auto, glint::Backend::Cuda, glint::Backend::Cpu, glint::Backend::Reference}) {
        QString label = QLatin1String(glint::backendName(b));
        if (b == glint::Backend::Cuda && !glint::cudaDevice().usable) label += tr(" (no usable device)");
        backend_->addItem(label, static_cast<int>(b));
    }

    auto* about = new QLabel(tr("Click a start point; the best trace to the cursor follows the mouse. Click to fix a "
                                "leg, click again to chain more. Backspace removes the last point, Esc cancels, "
                                "Enter or a double-click finishes."));
    about->setWordWrap(true);
    auto* form = new QFormLayout;
    form->addRow(tr("Guides"), guides_);
    form->addRow(QString(), autoGuides_);
    form->addRow(tr("Points per guide"), points_);
    form->addRow(tr("… while moving"), livePoints_);
    form->addRow(tr("Half-width"), halfWidth_);
    form->addRow(tr("Max. turning angle"), maxAngle_);
    form->addRow(tr("Objective"), objective_);
    form->addRow(tr("Score"), score_);
    form->addRow(tr("Ridge width"), lineWidth_);
    form->addRow(QString(), autoWidth_);
    form->addRow(tr("Ridge polarity"), polarity_);
    form->addRow(tr("Backend"), backend_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(about);
    layout->addLayout(form);
    layout->addWidget(snap_);
    layout->addWidget(showGuides_);
    layout->addWidget(trace_);
    layout->addStretch(1);

    setSettings(settings);
    const auto emitChanged = [this] {
        updateEnabled();
        if (!updating_) emit changed();
    };
    for (QSpinBox* box : {guides_, points_, livePoints_}) connect(box, &QSpinBox::valueChanged, this, emitChanged);
    for (QDoubleSpinBox* box : {halfWidth_, maxAngle_, lineWidth_}) connect(box, &QDoubleSpinBox::valueChanged, this, emitChanged);
    for (QComboBox* box : {score_, polarity_, backend_, objective_}) connect(box, &QComboBox::currentIndexChanged, this, emitChanged);
    for (QCheckBox* box : {showGuides_, snap_, autoWidth_, autoGuides_}) connect(box, &QCheckBox::toggled, this, emitChanged);
    connect(trace_, &QPushButton::clicked, this, &TracePanel::traceRequested);
}

TraceSettings TracePanel::settings() const {
    TraceSettings s;
    s.params.guides = guides_->value();
    s.params.points = points_->value();
    s.livePoints = livePoints_->value();
    s.params.halfWidth = halfWidth_->value();
    s.params.maxAngleDeg = maxAngle_->value();
    s.params.objective = static_cast<glint::TraceObjective>(objective_->currentData().toInt());
    s.params.maxWidenings = widenings_;
    s.params.autoGuides = autoGuides_->isChecked();
    s.field.score = static_cast<glint::TraceScore>(score_->currentData().toInt());
    s.field.lineWidth = lineWidth_->value();
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
    widenings_ = s.params.maxWidenings;
    autoGuides_->setChecked(s.params.autoGuides);
    score_->setCurrentIndex(score_->findData(static_cast<int>(s.field.score)));
    lineWidth_->setValue(s.field.lineWidth);
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
