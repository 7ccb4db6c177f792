// The trace on real images (issue 32): the real cases of tests/data/trace-real (hand-placed centre lines on the
// aerial photograph resources/samples/aero.png) traced with --preset auto, the window's defaults. A regression
// gate on the figures reached (not a wall-clock bound), and live = committed: the window's preview parameters
// (liveTraceParams, fewer points per guide) give a path within 1 px of the committed trace on every case.
#include "tests/support/TestSupport.h"

#include "core/algo/trace/LineTrace.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"
#include "scenes/TraceRealCases.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

using namespace glint;

class TestTraceReal : public QObject {
    Q_OBJECT

    TraceRealSet set_;
    Image image_;

private slots:
    void initTestCase() {
        set_ = loadTraceRealSet(GLINT_SOURCE_DIR);
        QVERIFY(set_.cases.size() >= 30);
#if GLINT_WITH_IMGCODECS
        image_ = loadImage(set_.imagePath);
#endif
    }

    // The distance is what it claims: the truth itself is at 0, a line 3 px beside it at 3.
    void distanceDefinition() {
        const std::vector<TracePoint> truth = {{0, 0}, {10, 0}, {20, 5}};
        QCOMPARE(traceRealDistance(truth, truth).median, 0.0);
        const TraceRealDistance d = traceRealDistance({{0, 3}, {10, 3}}, {{0, 0}, {10, 0}});
        QVERIFY(std::abs(d.median - 3.0) < 1e-9 && std::abs(d.max - 3.0) < 1e-9);
    }

#if GLINT_WITH_IMGCODECS // the cases are on a PNG (aero.png): a build without raster codecs reads none
    // --preset auto on the real cases: median case distance, share <= 2 px, worst, no worse than reached when
    // this gate was set (0.55 px, 31 of 31, 1.71 px, with a margin of one case and ~0.8 px; the first pass of issue
    // 32: 0.79 px, 26 of 31, 7.56 px; before issue 32: 2.53 px, 13 of 31, 14.0 px).
    void presetAutoHoldsItsFigures() {
        std::vector<double> distances;
        for (const TraceRealCase& c : set_.cases) {
            const TraceResult r = traceRealCase(image_, c, traceRequestPresetAuto(image_), Backend::Cpu);
            distances.push_back(traceRealDistance(r.polyline(), c.truth).median);
        }
        const TraceRealSummary s = summariseTraceReal(set_.cases, distances);
        std::printf("preset auto: median %.2f px, %d/%d <= 2 px, worst %.2f px (%s)\n", s.median, s.within2, s.cases,
                    s.worst, s.worstCase.c_str());
        QVERIFY2(s.median <= 0.65, qPrintable(QString("median %1 px").arg(s.median)));
        QVERIFY2(s.within2 >= 30, qPrintable(QString("%1 cases within 2 px").arg(s.within2)));
        QVERIFY2(s.worst <= 2.5, qPrintable(QString("worst %1 px").arg(s.worst)));
    }

    // The clicked line's profile: --width auto saturates the ridge field at the strength measured at the first
    // click. road-east 0-0.4 starts on the faint west part of a 5-px road that meets a brighter curved road: on
    // the same field without the saturation the trace takes the curved road (median > 2 px off the truth), with
    // it the trace stays on the clicked road.
    void saturationKeepsToTheClickedRoad() {
        const auto it = std::find_if(set_.cases.begin(), set_.cases.end(),
                                     [](const TraceRealCase& c) { return c.name == "road-east 0-0.4"; });
        QVERIFY(it != set_.cases.end());
        TraceRequest request = traceRequestPresetAuto(image_);
        request.from = it->clicks.front();
        request.to = it->clicks.back();
        JobControl job;
        const ResolvedTrace r = resolveTrace(image_, request, job);
        const double saturation = r.request.field.saturation;
        QVERIFY(saturation > 0.0);
        QCOMPARE(saturation, kTraceSaturationFactor * measureTraceLineStrength(image_, it->clicks.front(), r.request.field,
                                                                                kTraceSaturationRadius));
        const float* xy = r.field->vectors();
        double longest = 0.0;
        for (std::size_t i = 0; i < static_cast<std::size_t>(r.field->width()) * r.field->height(); ++i)
            longest = std::max(longest, std::hypot(static_cast<double>(xy[2 * i]), static_cast<double>(xy[2 * i + 1])));
        QVERIFY2(longest <= saturation * (1.0 + 1e-6) && longest >= 0.99 * saturation,
                 qPrintable(QString("longest vector %1, saturation %2").arg(longest).arg(saturation)));
        TraceFieldOptions plain = r.request.field;
        plain.saturation = 0.0;
        JobControl saturatedJob, plainJob;
        const TraceResult saturated = runTrace(r.field, r.clicks, r.request.params, Backend::Cpu, saturatedJob);
        const TraceResult unsaturated =
            runTrace(TraceField::compute(image_, plain), r.clicks, r.request.params, Backend::Cpu, plainJob);
        const double on = traceRealDistance(saturated.polyline(), it->truth).median;
        const double off = traceRealDistance(unsaturated.polyline(), it->truth).median;
        std::printf("road-east 0-0.4: %.2f px saturated, %.2f px without\n", on, off);
        QVERIFY2(on <= 2.0 && off > 2.0, qPrintable(QString("saturated %1 px, plain %2 px").arg(on).arg(off)));
        // The strength is measured inside the image only.
        QVERIFY_THROWS_EXCEPTION(UsageError, measureTraceLineStrength(image_, {-5.0, 10.0}, r.request.field, 3.0));
    }

    // Live = committed: the preview's parameters (128 points per guide, as the window's default) on the resolved
    // field and clicks give a path whose median distance to the committed one is within 1 px on every case.
    void livePreviewStaysOnTheCommittedTrace() {
        double worst = 0.0;
        for (const TraceRealCase& c : set_.cases) {
            TraceRequest request = traceRequestPresetAuto(image_);
            request.from = c.clicks.front();
            request.to = c.clicks.back();
            JobControl job;
            const ResolvedTrace r = resolveTrace(image_, request, job);
            JobControl committedJob, liveJob;
            const TraceResult committed = runTrace(r.field, r.clicks, r.request.params, Backend::Cpu, committedJob);
            const TraceResult live = runTrace(r.field, r.clicks, liveTraceParams(r.request.params, 128), Backend::Cpu, liveJob);
            const double d = traceRealDistance(live.polyline(), committed.polyline()).median;
            worst = std::max(worst, d);
            QVERIFY2(d <= 1.0, qPrintable(QString("%1: the preview is %2 px off the committed trace")
                                              .arg(QString::fromStdString(c.name))
                                              .arg(d)));
        }
        std::printf("live vs committed: worst median distance %.2f px\n", worst);
    }
#endif
};

GLINT_BACKEND_TEST_MAIN(TestTraceReal)
#include "test_trace_real.moc"
