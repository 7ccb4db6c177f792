#include "ui/modules/RegionStatisticsModule.h"

#include "ui/AppContext.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/canvas/ShapeTools.h"
#include "ui/docks/ResultsDock.h"
#include "core/io/ImageStats.h"
#include "core/jobs/Backend.h"
#include "ui/jobs/JobRunner.h"
#include "ui/overlay/LayerStack.h"
#include "ui/overlay/ShapeLayer.h"
#include "ui/results/ResultsModel.h"
#include "ui/results/TimingLog.h"
#include "ui/undo/UndoCommands.h"
#include "ui/session/SessionJson.h"
#include "core/util/Errors.h"

#include <QAction>
#include <QLabel>
#include <QPushButton>
#include <QUndoStack>
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
    : AnalysisModule(context, parent), tool_(new RectangleTool(this)),
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
        ++count_;
        const int id = count_;
        const QVariantList values{id, r.x(), r.y(), r.width(), r.height(), static_cast<double>(stats->count), stats->min,
                                  stats->max, stats->mean, stats->median};
        present(r, values);
        // Edit ▸ Undo takes the rectangle and its row away; Redo brings them back (as the last row).
        const QPointer<RegionStatisticsModule> self(this);
        ctx.undoStack()->push(new ImageEditCommand(
            ctx, tr("Measure rectangle #%1").arg(id),
            [self, id] {
                if (!self) return;
                QVector<Row> rows = self->shownRows();
                rows.removeIf([id](const Row& row) { return row.second.value(0).toInt() == id; });
                self->showRows(rows);
            },
            [self, r, values] {
                if (!self) return;
                QVector<Row> rows = self->shownRows();
                rows.append({r, values});
                self->showRows(rows);
            },
            true));
        RunRecord record = RunRecord::fromJob(name(), glint::Backend::Reference, control, *image,
                                              QStringLiteral("rect=%1,%2,%3,%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height()));
        record.backend = QStringLiteral("cpu");
        ctx.timingLog()->add(record);
    };
    return ctx.jobs()->start(std::move(job));
}

void RegionStatisticsModule::present(const QRect& r, const QVariantList& values) {
    ensureOutputs();
    const int item = layer_->add(OverlayShape::pixelRectangle(r, QStringLiteral("#%1").arg(values.value(0).toInt())));
    if (model_) model_->addRow(values, item);
    emit resultsChanged();
}

QVector<RegionStatisticsModule::Row> RegionStatisticsModule::shownRows() const {
    QVector<Row> rows;
    if (!layer_ || !model_) return rows;
    for (int row = 0; row < model_->rowCount(); ++row) {
        const int item = model_->overlayItem(row);
        if (item < 0 || item >= layer_->itemCount()) continue;
        QVariantList values;
        for (int c = 0; c < model_->columnCount(); ++c) values.append(model_->value(row, c));
        rows.append({layer_->shape(item).pixelRect(), values});
    }
    return rows;
}

void RegionStatisticsModule::showRows(const QVector<Row>& rows) {
    if (layer_) {
        layer_->setSelected(-1);
        layer_->clear();
    }
    if (model_) model_->clear();
    for (const auto& [r, values] : rows) present(r, values);
    emit resultsChanged();
}

QJsonObject RegionStatisticsModule::saveSession() const {
    QJsonArray rows;
    if (layer_ && model_) {
        for (int row = 0; row < model_->rowCount(); ++row) {
            const int item = model_->overlayItem(row);
            if (item < 0 || item >= layer_->itemCount()) continue;
            QJsonArray values;
            for (int c = 0; c < model_->columnCount(); ++c) values.append(QJsonValue::fromVariant(model_->value(row, c)));
            rows.append(QJsonObject{{QStringLiteral("rect"), sessionjson::rect(layer_->shape(item).pixelRect())},
                                    {QStringLiteral("values"), values}});
        }
    }
    return {{QStringLiteral("count"), count_}, {QStringLiteral("rows"), rows}};
}

std::function<void()> RegionStatisticsModule::prepareSession(const QJsonObject& state, const SessionImages& inputs) {
    using namespace sessionjson;
    const std::shared_ptr<const glint::Image> image = inputs.value(QString());
    const int count = integer(state[QStringLiteral("count")], QStringLiteral("statistics.count"));
    QVector<QPair<QRect, QVariantList>> rows;
    for (const QJsonValue& v : array(state[QStringLiteral("rows")], QStringLiteral("statistics.rows"))) {
        const QJsonObject o = object(v, QStringLiteral("statistics.rows[]"));
        const QRect r = readRect(o[QStringLiteral("rect")], QStringLiteral("statistics.rows[].rect"));
        if (!image || r.isEmpty() || !QRect(0, 0, image->width(), image->height()).contains(r))
            throw glint::InputError("session file: a region statistics rectangle lies outside the image");
        const QJsonArray values = array(o[QStringLiteral("values")], QStringLiteral("statistics.rows[].values"));
        if (values.size() != 10) throw glint::InputError("session file: a region statistics row has not 10 values");
        rows.append({r, values.toVariantList()});
    }
    return [this, count, rows] {
        for (const auto& [r, values] : rows) present(r, values);
        count_ = std::max(count_, count);
    };
}

} // namespace glint::ui
