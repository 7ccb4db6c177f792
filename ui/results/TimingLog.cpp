#include "ui/results/TimingLog.h"

#include "core/io/Image.h"
#include "core/jobs/JobControl.h"

namespace glint::ui {

RunRecord RunRecord::fromJob(const QString& algorithm, glint::Backend resolved, const glint::JobControl& job,
                             const glint::Image& image, const QString& parameters) {
    RunRecord r;
    r.algorithm = algorithm;
    r.backend = QString::fromLatin1(glint::backendName(resolved));
    r.device = QString::fromStdString(job.device().empty() ? glint::deviceNameFor(resolved) : job.device());
    r.imagePath = QString::fromStdString(image.meta.path);
    r.imageSize = QSize(image.width(), image.height());
    r.parameters = parameters;
    r.steps = job.timing().steps();
    r.totalMs = job.timing().total();
    r.when = QDateTime::currentDateTime();
    return r;
}

TimingLog::TimingLog(QObject* parent) : QObject(parent) {}

void TimingLog::add(RunRecord record) {
    if (!record.when.isValid()) record.when = QDateTime::currentDateTime();
    records_.push_back(std::move(record));
    emit recordAdded(static_cast<int>(records_.size()) - 1);
}

void TimingLog::clear() {
    records_.clear();
    emit cleared();
}

std::optional<double> TimingLog::speedupAgainstReference(std::size_t index) const {
    if (index >= records_.size()) return std::nullopt;
    const RunRecord& run = records_[index];
    if (run.backend == QLatin1String("reference") || run.totalMs <= 0.0) return std::nullopt;
    for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
        if (&*it == &run) continue;
        if (it->backend == QLatin1String("reference") && it->algorithm == run.algorithm &&
            it->imagePath == run.imagePath && it->imageSize == run.imageSize && it->parameters == run.parameters)
            return it->totalMs / run.totalMs;
    }
    return std::nullopt;
}

} // namespace glint::ui
