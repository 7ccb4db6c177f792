#include "ui/export/TimingExport.h"

#include "core/jobs/Backend.h"
#include "ui/export/FileOutputs.h"
#include "ui/results/TimingLog.h"
#include "core/util/Errors.h"

#include <QRegularExpression>

#include <utility>

namespace glint::ui {

glint::TimingRun timingRunFrom(const RunRecord& record) {
    glint::TimingRun run;
    run.algorithm = record.algorithm.toStdString();
    run.backend = record.backend.toStdString();
    run.device = record.device.toStdString();
    run.imagePath = record.imagePath.toStdString();
    run.imageWidth = record.imageSize.width();
    run.imageHeight = record.imageSize.height();
    run.parameters = record.parameters.toStdString();
    run.steps = record.steps;
    run.totalMs = record.totalMs;
    run.when = record.when.isValid() ? record.when.toString(Qt::ISODate).toStdString() : std::string();
    return run;
}

std::vector<glint::TimingRun> timingRunsFrom(const TimingLog& log) {
    std::vector<glint::TimingRun> runs;
    runs.reserve(log.records().size());
    for (const RunRecord& r : log.records())
        runs.push_back(timingRunFrom(r));
    return runs;
}

QStringList writeTimingReports(const TimingLog& log, const QString& base) {
    const std::vector<glint::TimingRun> runs = timingRunsFrom(log);
    if (runs.empty()) throw glint::UsageError("no runs to report yet: run an analysis first");
    QString stem = base;
    stem.remove(QRegularExpression(QStringLiteral("\\.(html?|json|csv)$"), QRegularExpression::CaseInsensitiveOption));
    glint::TimingReportInfo info;
    info.title = "Glint timing report";
    info.environment = glint::backendStatusText();
    const std::pair<QString, glint::TimingReportFormat> formats[] = {
        {stem + QStringLiteral(".html"), glint::TimingReportFormat::Html},
        {stem + QStringLiteral(".json"), glint::TimingReportFormat::Json},
        {stem + QStringLiteral(".csv"), glint::TimingReportFormat::Csv}};
    FileOutputs outputs;
    for (const auto& [path, format] : formats)
        outputs.emplace_back(path, glint::timingReportText(runs, info, format));
    return writeOutputs(outputs);
}

} // namespace glint::ui
