#include "modules/RegionStatisticsModule.h"

#include "AppContext.h"
#include "canvas/ImageCanvas.h"
#include "canvas/ShapeTools.h"
#include "docks/ResultsDock.h"
#include "io/ImageStats.h"
#include "jobs/Backend.h"
#include "jobs/JobRunner.h"
#include "overlay/LayerStack.h"
#include "overlay/ShapeLayer.h"
#include "results/ResultsModel.h"
#include "results/TimingLog.h"

#include <QAction>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <memory>

namespace glint::ui {

namespace {
// The pixels of a rectangle as an image of their own (samples and blanks copied, nothing computed).
glint::Image cropImage(const glint::Image& image, const QRect& r) {
    glint::Image out = image.visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        std::vector<T> samples;
        samples.reserve(static_cast<std::size_t>(r.width()) * r.height());
        for (int y = r.top(); y <= r.bottom(); ++y) {
            const T* row = p + static_cast<std::size_t>(y) * image.width();
            samples.insert(samples.end(), row + r.left(), row + r.left() + r.width());
        }
        return glint::Image::fromSamples<T>(r.width(), r.height(), std::move(samples));
    });
    if (image.hasBlanks()) {
        std::vector<std::uint8_t> mask;
        mask.reserve(out.pixelCount());
        for (int y = r.top(); y <= r.bottom(); ++y)
            for (int x = r.left(); x <= r.right(); ++x) mask.push_back(image.isBlank(x, y) ? 1 : 0);
        out.setBlankMask(std::move(mask));
    }
    return out;
}
} // namespace

RegionStatisticsModule::RegionStatisticsModule(AppContext& context, QObject* parent)
    : AnalysisModule(context, parent), tool_(new RectangleTool(true, this)),
      drawAction_(new QAction(tr("Region Statistics: Draw Rectangle"), this)),
      wholeImageAction_(new QAction(tr("Region Statistics: Whole Image"), this)) {
    drawAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(drawAction_, &QAction::triggered, this, [this] {
        emit panelRequested();
        if (this->context().canvas() && this->context().hasImage()) this->context().canvas()->setTool(tool_);
    });
    connect(wholeImageAction_, &QAction::triggered, this, [this] {
        emit panelRequested();
        if (this->context().hasImage())
            measure(QRect(0, 0, this->context().image()->width(), this->context().image()->height()));
    });
    connect(tool_, &RectangleTool::rectangleDrawn, this, &RegionStatisticsModule::measure);
    connect(&context, &AppContext::imageChanged, this, [this] { count_ = 0; });
}

QWidget* RegionStatisticsModule::createPanel() {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    auto* about = new QLabel(tr("Pixels, minimum, maximum, mean and median of a rectangle (blank pixels left out). "
                                "Draw it on the image; each one becomes a row of the results."));
    about->setWordWrap(true);
    auto* draw = new QPushButton(tr("Draw Rectangle"));
    auto* whole = new QPushButton(tr("Whole Image"));
    layout->addWidget(about);
    layout->addWidget(draw);
    layout->addWidget(whole);
    layout->addStretch(1);
    connect(draw, &QPushButton::clicked, drawAction_, &QAction::trigger);
    connect(whole, &QPushButton::clicked, wholeImageAction_, &QAction::trigger);
    return panel;
}

void RegionStatisticsModule::ensureOutputs() {
    AppContext& ctx = context();
    if (!layer_) {
        layer_ = new ShapeLayer(name(), QColor(0, 220, 255));
        ctx.layers()->add(layer_);
    }
    if (!model_ && ctx.results()) {
        model_ = new ResultsModel({tr("#"), tr("x"), tr("y"), tr("width"), tr("height"), tr("pixels"), tr("min"),
                                   tr("max"), tr("mean"), tr("median")});
        ctx.results()->addResultSet(name(), model_, layer_);
    }
}

bool RegionStatisticsModule::measure(const QRect& pixels) {
    AppContext& ctx = context();
    if (!ctx.hasImage() || pixels.isEmpty()) return false;
    const std::shared_ptr<const glint::Image> image = ctx.image();
    const QRect r = pixels.intersected(QRect(0, 0, image->width(), image->height()));
    if (r.isEmpty()) return false;
    auto stats = std::make_shared<glint::ImageStats>();
    JobRequest job;
    job.name = name();
    job.work = [image, r, stats](glint::JobControl& control) {
        glint::Image crop = [&] {
            auto step = control.timing().scope("crop");
            return cropImage(*image, r);
        }();
        control.throwIfCancelled();
        auto step = control.timing().scope("statistics");
        *stats = glint::computeStats(crop);
        control.setProgress(1.0);
    };
    job.done = [this, image, r, stats](glint::JobControl& control) {
        AppContext& ctx = context();
        if (ctx.image() != image) return; // another image was opened meanwhile
        ensureOutputs();
        const int item = layer_->add(OverlayShape::pixelRectangle(r, QStringLiteral("#%1").arg(++count_)));
        if (model_)
            model_->addRow({count_, r.x(), r.y(), r.width(), r.height(), static_cast<double>(stats->count), stats->min,
                            stats->max, stats->mean, stats->median},
                           item);
        RunRecord record = RunRecord::fromJob(name(), glint::Backend::Reference, control, *image,
                                              QStringLiteral("rect=%1,%2,%3,%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height()));
        record.backend = QStringLiteral("cpu");
        ctx.timingLog()->add(record);
    };
    return ctx.jobs()->start(std::move(job));
}

} // namespace glint::ui
