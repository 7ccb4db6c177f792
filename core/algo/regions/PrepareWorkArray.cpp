// Preparing a region search: the background model when the search needs one, the local pivot's derived image
// (on the host or a backend's device), the pivot, the ROI crop, the mask and the counts.
#include "core/algo/regions/WorkArray.h"
#include "core/algo/regions/WorkArrayParts.h"

#include "core/io/Image.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace glint {

using regions::checkedRoi;
using regions::includedStats;
using regions::IncludedStats;
using regions::positiveSums;
using regions::roiExclusionMask;

PixelRect searchRoi(const Image& image, const BrightestParams& params) { return checkedRoi(image, params); }

PreparedRegionSearch prepareRegionSearch(const Image& image, const BrightestParams& params, BrightestMode mode,
                                         Backend resolved, JobControl& job, DeviceLocalPivot* device,
                                         std::shared_ptr<const BackgroundMap> model) {
    PreparedRegionSearch s;
    BrightestResult& result = s.result;
    result.pivotSpec = params.pivot;
    result.mode = mode;
    result.imageWidth = image.width();
    result.imageHeight = image.height();
    result.backend = resolved;
    result.device = job.device();
    {
        auto step = job.timing().scope("preprocess");
        s.work = prepareWorkArray(image, params, device, &job, std::move(model));
    }
    job.throwIfCancelled();
    checkSumRange(s.work, params.pivot); // every rectangle sum is bounded by the sum of |a|
    result.pivot = s.work.pivot;
    result.exactInteger = s.work.integer;
    result.includedPixels = s.work.includedCount;
    result.threshold = params.threshold;
    if (s.work.background && !s.work.background->empty()) {
        result.hasModel = true;
        result.globalBackground = s.work.background->globalBackground();
        result.globalRms = s.work.background->globalRms();
    }
    if (s.work.localPivot) result.pivot = result.globalBackground + params.threshold * result.globalRms;
    return s;
}


BackgroundParams backgroundParamsOf(const BrightestParams& params) {
    BackgroundParams b;
    b.mesh = params.mesh;
    return b;
}

bool needsBackgroundModel(const BrightestParams& params) {
    return params.pivot.kind == PivotSpec::Kind::Local || params.threshold != 0.0 || params.minSnr > 0.0;
}

namespace {

bool needsModel(const BrightestParams& params) { return needsBackgroundModel(params); }

// The model when the search needs it; null otherwise (it costs ~7 ms a megapixel on 2 cores, more than the
// GPU's whole search of large frames, so the plain pivots do without it and their regions have no SNR).
std::shared_ptr<const BackgroundMap> modelFor(const Image& image, const BrightestParams& params) {
    if (!needsModel(params)) return nullptr;
    return std::make_shared<const BackgroundMap>(
        estimateBackground(image, imageExclusionMask(image, params), backgroundParamsOf(params)));
}

// The double image I - bkg - threshold * rms over the ROI (0 elsewhere), blank where the source is.
std::shared_ptr<const Image> localWorkImage(const Image& image, const PixelRect& roi, const BackgroundMap& model,
                                            double threshold) {
    auto d = std::make_shared<Image>(image.width(), image.height(), SampleType::Float64);
    d->meta.integerValued = false;
    if (image.hasBlanks()) d->setBlankMask(image.blankMask());
    double* out = d->mutableSamples<double>();
    image.visit([&](const auto* p) {
        parallelFor(0, static_cast<std::size_t>(roi.height), 8, [&](std::size_t y0, std::size_t y1) {
            std::vector<double> back(static_cast<std::size_t>(roi.width)), rms(back.size());
            for (std::size_t yy = y0; yy < y1; ++yy) {
                const int y = roi.y + static_cast<int>(yy);
                model.row(y, roi.x, roi.x + roi.width, back.data(), threshold != 0.0 ? rms.data() : nullptr);
                const std::size_t base = static_cast<std::size_t>(y) * image.width() + roi.x;
                if (threshold != 0.0)
                    for (int x = 0; x < roi.width; ++x)
                        out[base + x] = static_cast<double>(p[base + x]) - back[x] - threshold * rms[x];
                else
                    for (int x = 0; x < roi.width; ++x) out[base + x] = static_cast<double>(p[base + x]) - back[x];
            }
        });
    });
    return d;
}

WorkArray prepareWorkArrayOf(const Image& image, const BrightestParams& params, double pivotShift);

} // namespace

double computePivot(const Image& image, const BrightestParams& params) {
    const PixelRect roi = checkedRoi(image, params);
    double shift = 0.0, base = 0.0;
    if (needsModel(params)) {
        const auto model = modelFor(image, params);
        shift = params.threshold * model->globalRms();
        if (params.pivot.kind == PivotSpec::Kind::Local) return model->globalBackground() + shift;
    }
    const auto mask = roiExclusionMask(image, roi, params);
    base = includedStats(image, roi, mask, params.pivot).pivot;
    return base + shift;
}

namespace {

// The local pivot's work array from the device (DeviceLocalPivot): the same fields as the host path's,
// `image` null and the samples in device memory. Null model: the device declined after all (a not finite
// where the host path would exclude it: the caller prepares on the host with that model).
bool prepareOnDevice(const Image& image, const BrightestParams& params, DeviceLocalPivot& device, JobControl& job,
                     WorkArray& w, std::shared_ptr<const BackgroundMap>& model) {
    const PixelRect roi = checkedRoi(image, params);
    const BackgroundParams bp = backgroundParamsOf(params);
    checkBackgroundParams(image.width(), image.height(), bp);
    const std::vector<std::uint8_t> imageMask = imageExclusionMask(image, params);
    if (model)
        device.upload(image, job);
    else
        model = std::make_shared<const BackgroundMap>(
            backgroundFromCells(image.width(), image.height(), bp, device.cells(image, imageMask, bp, job)));
    const bool whole = roi.x == 0 && roi.y == 0 && roi.width == image.width() && roi.height == image.height();
    std::vector<std::uint8_t> mask = whole ? imageMask : roiExclusionMask(image, roi, params);
    const DeviceDerivedStats d = device.derive(*model, roi, params.threshold, mask, job);
    if (d.nonFinite > 0) return false;
    w.image = nullptr;
    w.deviceSamples = d.samples;
    w.roi = roi;
    w.includedCount = d.included;
    w.pivot = 0.0;
    w.transposed = roi.height > roi.width;
    w.rows = w.transposed ? roi.width : roi.height;
    w.cols = w.transposed ? roi.height : roi.width;
    w.integer = false;
    if (d.included > 0) {
        w.maxAbs = d.maxAbs;
        w.positiveSum = d.positiveSum;
    }
    if (!mask.empty() && w.transposed) {
        std::vector<std::uint8_t> t(mask.size());
        for (int y = 0; y < roi.height; ++y)
            for (int x = 0; x < roi.width; ++x)
                t[static_cast<std::size_t>(x) * w.cols + y] = mask[static_cast<std::size_t>(y) * roi.width + x];
        mask.swap(t);
    }
    w.excluded = std::move(mask);
    w.localPivot = true;
    return true;
}

} // namespace

WorkArray prepareWorkArray(const Image& image, const BrightestParams& params, DeviceLocalPivot* device, JobControl* job,
                           std::shared_ptr<const BackgroundMap> model) {
    const PixelRect roi = checkedRoi(image, params);
    if (!needsModel(params)) model.reset();
    WorkArray w;
    JobControl local;
    if (device && params.pivot.kind == PivotSpec::Kind::Local && device->accepts(image, params) &&
        prepareOnDevice(image, params, *device, job ? *job : local, w, model)) {
        w.source = &image;
        w.background = std::move(model);
        w.threshold = params.threshold;
        return w;
    }
    if (!model) model = modelFor(image, params);
    if (params.pivot.kind == PivotSpec::Kind::Local) {
        std::shared_ptr<const Image> derived = localWorkImage(image, roi, *model, params.threshold);
        BrightestParams inner = params;
        inner.pivot = PivotSpec::parse("0");
        w = prepareWorkArrayOf(*derived, inner, 0.0);
        w.derived = std::move(derived);
        w.localPivot = true;
    } else {
        w = prepareWorkArrayOf(image, params, model && params.threshold != 0.0 ? params.threshold * model->globalRms() : 0.0);
    }
    w.source = &image;
    w.background = std::move(model);
    w.threshold = params.threshold;
    return w;
}

namespace {

WorkArray prepareWorkArrayOf(const Image& image, const BrightestParams& params, double pivotShift) {
    WorkArray w;
    w.image = &image;
    w.source = &image;
    w.roi = checkedRoi(image, params);
    std::vector<std::uint8_t> mask = roiExclusionMask(image, w.roi, params);
    const IncludedStats stats = includedStats(image, w.roi, mask, params.pivot);
    w.includedCount = stats.count;
    w.pivot = (params.pivot.kind == PivotSpec::Kind::Number ? params.pivot.value : stats.pivot) + pivotShift;
    if (!std::isfinite(w.pivot)) throw UsageError("the pivot is not a finite number");
    w.transposed = w.roi.height > w.roi.width;
    w.rows = w.transposed ? w.roi.width : w.roi.height;
    w.cols = w.transposed ? w.roi.height : w.roi.width;
    if (stats.count > 0) {
        w.maxAbs = std::max(std::fabs(stats.max - w.pivot), std::fabs(stats.min - w.pivot));
        const bool integerSamples = isIntegerSampleType(image.sampleType()) || image.meta.integerValued;
        w.integer = integerSamples && std::floor(w.pivot) == w.pivot && std::fabs(w.pivot) < 9.0e15 &&
                    w.maxAbs * static_cast<double>(stats.count) < 4.0e18;
        if (w.integer) w.pivotInt = static_cast<std::int64_t>(w.pivot);
        positiveSums(w, stats, mask);
    }
    if (!mask.empty() && w.transposed) {
        std::vector<std::uint8_t> t(mask.size());
        for (int y = 0; y < w.roi.height; ++y)
            for (int x = 0; x < w.roi.width; ++x)
                t[static_cast<std::size_t>(x) * w.cols + y] = mask[static_cast<std::size_t>(y) * w.roi.width + x];
        mask.swap(t);
    }
    w.excluded = std::move(mask);
    return w;
}

} // namespace

} // namespace glint
