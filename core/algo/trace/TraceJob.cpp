#include "core/algo/trace/TraceJob.h"

#include "core/jobs/Timing.h"

#include <chrono>
#include <cmath>

namespace glint {

double estimatedTraceCpuMs(const std::vector<TracePoint>& clicks, const TraceParams& params) {
    double samples = 0.0;
    for (std::size_t i = 1; i < clicks.size(); ++i)
        samples += static_cast<double>(params.points) * params.points * 1.2 *
                   std::hypot(clicks[i].x - clicks[i - 1].x, clicks[i].y - clicks[i - 1].y);
    return samples * 2.6e-6 / cpuThreadCount();
}

TraceRun runTrace(const Image& image, const std::vector<TracePoint>& clicks, const TraceParams& params,
                  const TraceFieldOptions& fieldOptions, Backend backend, JobControl& job) {
    validateTraceParams(params);
    validateTraceFieldOptions(fieldOptions);
    validateTracePoints(clicks, image.width(), image.height());
    TraceRun run;
    run.backend = resolveForJob<LineTracer>(backend, job, estimatedTraceCpuMs(clicks, params));
    auto tracer = BackendRegistry<LineTracer>::create(run.backend);
    job.setProgress(0.0);
    const auto start = std::chrono::steady_clock::now();
    std::shared_ptr<const TraceField> field;
    {
        auto step = job.timing().scope("field");
        field = TraceField::compute(image, fieldOptions);
    }
    tracer->setField(field, job);
    run.result = tracer->traceChain(clicks, params, job);
    run.sineThreshold = field->sineThreshold();
    job.timing().setTotal(msSince(start));
    run.device = job.device().empty() ? deviceNameFor(run.backend) : job.device();
    job.setProgress(1.0);
    return run;
}

} // namespace glint
