// The timing dock's "Export timing report": the window's run records as core TimingRuns, written as a
// self-contained HTML page (with the core's charts), JSON and CSV, each atomically.
#pragma once

#include "core/export/TimingReport.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace glint::ui {

struct RunRecord;
class TimingLog;

glint::TimingRun timingRunFrom(const RunRecord& record);
std::vector<glint::TimingRun> timingRunsFrom(const TimingLog& log);

// base "/data/timing" -> timing.html, timing.json, timing.csv (a known extension on base is dropped).
// Every text is made before the first file is written. Throws glint::UsageError (no runs) / OutputError.
QStringList writeTimingReports(const TimingLog& log, const QString& base);

} // namespace glint::ui
