// The shared job set-up (runJob) as the job functions use it: the backend and device in the result and
// in the job, the total and the progress; runTrace against a hand-assembled field + tracer + chain.
#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/algo/brightest/Brightest.h"
#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/algo/trace/LineTrace.h"
#include "core/jobs/JobRunner.h"
#include "core/util/Errors.h"

#include <QtTest>

#include <random>

using namespace glint;

namespace {

bool sameTrace(const TraceResult& a, const TraceResult& b) {
    if (a.legs.size() != b.legs.size() || a.score != b.score) return false;
    for (std::size_t i = 0; i < a.legs.size(); ++i)
        if (a.legs[i].guideIndices != b.legs[i].guideIndices || a.legs[i].segmentScores != b.legs[i].segmentScores)
            return false;
    return true;
}

std::vector<std::string> stepNames(const JobControl& job) {
    std::vector<std::string> names;
    for (const TimingStep& s : job.timing().steps()) names.push_back(s.name);
    return names;
}

} // namespace

class TestJobFunctions : public QObject {
    Q_OBJECT

private slots:
    void runJobSetsDeviceTotalAndProgress() {
        JobControl job;
        std::vector<double> progress;
        job.setProgressObserver([&](JobControl&, double f) { progress.push_back(f); });
        Backend seen = Backend::Auto, created = Backend::Auto;
        std::string device;
        const int answer = runJob<LineTracer>(Backend::Cpu, job, 1.0, [&](LineTracer& tracer, Backend resolved) {
            seen = resolved;
            created = tracer.backend();
            device = job.device();
            return 42;
        });
        QCOMPARE(answer, 42);
        QCOMPARE(seen, Backend::Cpu);
        QCOMPARE(created, Backend::Cpu);
        QCOMPARE(device, deviceNameFor(Backend::Cpu));
        QVERIFY(job.timing().total() >= 0.0);
        QVERIFY(job.timing().deviceInit() < 0.0); // not a GPU run
        QCOMPARE(progress.front(), 0.0);
        QCOMPARE(progress.back(), 1.0);
    }

    void runTraceMatchesTheHandAssembledChain() {
        const Image image = test::randomIntImage(64, 48, 0, 255, test::Seed{7});
        const std::vector<TracePoint> clicks = {{3, 4}, {30, 20}, {60, 44}};
        TraceParams params;
        params.guides = 4;
        params.points = 16;
        TraceFieldOptions options;
        options.score = TraceScore::Ridge;
        for (Backend backend : {Backend::Reference, Backend::Cpu}) {
            JobControl job;
            const TraceResult r = runTrace(image, clicks, params, options, backend, job);
            QCOMPARE(r.backend, backend);
            QCOMPARE(r.device, deviceNameFor(backend));
            QCOMPARE(job.device(), r.device);
            QVERIFY(r.field != nullptr);
            QCOMPARE(stepNames(job).front(), std::string("field"));
            QVERIFY(job.timing().total() >= job.timing().step("field"));
            QCOMPARE(job.progress(), 1.0);

            auto tracer = BackendRegistry<LineTracer>::create(backend);
            JobControl manual;
            tracer->setField(TraceField::compute(image, options), manual);
            QVERIFY(sameTrace(r, tracer->traceChain(clicks, params, manual)));

            // On a field kept between requests: the same trace, no "field" step.
            JobControl cached;
            const TraceResult again = runTrace(r.field, clicks, params, backend, cached);
            QVERIFY(sameTrace(r, again));
            QCOMPARE(cached.timing().step("field"), 0.0);
            QCOMPARE(again.field, r.field);
        }
    }

    void runTraceRejectsBadInputBeforeWork() {
        const Image image = test::randomIntImage(20, 10, 0, 9, test::Seed{3});
        JobControl job;
        QVERIFY_THROWS_EXCEPTION(UsageError, runTrace(image, {{1, 1}, {50, 5}}, {}, {}, Backend::Cpu, job));
        QVERIFY_THROWS_EXCEPTION(UsageError, runTrace(image, {{1, 1}}, {}, {}, Backend::Cpu, job));
        QVERIFY(job.timing().steps().empty());
    }

    void commonComponentResultCarriesBackendAndDevice() {
        std::mt19937 rng(5);
        const Image a = test::randomIntImage(12, 9, 0, 3, rng);
        const Image b = test::randomIntImage(10, 11, 0, 3, rng);
        JobControl ref, cpu;
        const CommonComponentResult r = findCommonComponent(a, b, {}, Backend::Reference, ref);
        const CommonComponentResult c = findCommonComponent(a, b, {}, Backend::Cpu, cpu);
        QCOMPARE(r.backend, Backend::Reference);
        QCOMPARE(c.backend, Backend::Cpu);
        QCOMPARE(r.device, ref.device());
        QCOMPARE(c.device, cpu.device());
        QCOMPARE(c.size, r.size);
        QCOMPARE(cpu.progress(), 1.0);
    }

    void brightestAndSweepThroughTheRunner() {
        const Image image = test::randomIntImage(40, 30, 0, 255, test::Seed{11});
        BrightestParams params;
        params.k = 3;
        JobControl one, sweep;
        const BrightestResult r = runBrightest(image, params, Backend::Cpu, one);
        QCOMPARE(r.backend, Backend::Cpu);
        QCOMPARE(r.device, one.device());
        QCOMPARE(one.progress(), 1.0);
        const std::vector<BrightestResult> all =
            runPivotSweep(image, params, {PivotSpec::parse("mean"), PivotSpec::parse("p90")}, Backend::Reference, sweep);
        QCOMPARE(all.size(), std::size_t(2));
        QCOMPARE(all[0].regions.size(), r.regions.size());
        for (std::size_t i = 0; i < r.regions.size(); ++i) QCOMPARE(all[0].regions[i].sumInt, r.regions[i].sumInt);
        QCOMPARE(sweep.progress(), 1.0);
        QVERIFY(sweep.timing().total() >= 0.0);
    }
};

GLINT_BACKEND_TEST_MAIN(TestJobFunctions)
#include "test_job_functions.moc"
