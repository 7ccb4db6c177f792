#include "core/algo/sources/Sources.h"

#include "core/algo/regions/WorkArray.h"
#include "core/algo/sources/Background.h"
#include "core/algo/sources/PsfWidth.h"
#include "core/algo/sources/RegionMeasure.h"
#include "core/algo/sources/SourceApertures.h"
#include "core/algo/sources/SourceMeasure.h"
#include "core/io/Image.h"
#include "core/io/ImageLoader.h"
#include "core/jobs/JobControl.h"
#include "core/jobs/Timing.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

namespace glint {

namespace {

// gauss:auto's FWHM when the image has too few clean stars to measure its PSF on.
constexpr double kFallbackFilterFwhm = 3.0;
// deblend_filter gauss:auto: this times the detection filter's FWHM.
constexpr double kDeblendFilterFactor = 0.5;
// A source whose AUTO ellipse's semi-major axis exceeds this many filter FWHMs is extended (a galaxy).
constexpr double kExtendedFwhm = 4.0;

// Blank, non-finite and excluded pixels, and those outside the ROI: 1.
std::vector<std::uint8_t> badPixels(const Image& image, const SourcesParams& params, PixelRect& roi) {
    BrightestParams shapes;
    shapes.roi = params.roi;
    shapes.excludeRects = params.excludeRects;
    shapes.excludePolygons = params.excludePolygons;
    roi = searchRoi(image, shapes); // UsageError when the ROI is not inside the image
    std::vector<std::uint8_t> bad = imageExclusionMask(image, shapes);
    const int w = image.width(), h = image.height();
    if (bad.empty()) bad.assign(image.pixelCount(), 0);
    if (params.roi)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (x < roi.x || y < roi.y || x >= roi.x + roi.width || y >= roi.y + roi.height)
                    bad[static_cast<std::size_t>(y) * w + x] = 1;
    return bad;
}

// A weight map (SExtractor's WEIGHT_IMAGE), read once a run: InputError when it cannot be read or has another size;
// applyWeightMap: InputError for negative values; a zero or non-finite weight leaves the pixel out.
Image loadWeightMap(const SourcesParams& params, const Image& image) {
    Image weight = loadImage(*params.weight);
    if (weight.width() != image.width() || weight.height() != image.height())
        throw InputError("weight map " + *params.weight + " is " + std::to_string(weight.width()) + "x" +
                         std::to_string(weight.height()) + ", the image " + std::to_string(image.width()) + "x" +
                         std::to_string(image.height()) + ": they must be the same size");
    return weight;
}

// The noise of every pixel from the loaded weight map; map_weight is scaled to the model's global RMS.
void applyWeightMap(const SourcesParams& params, const Image& weight, double globalRms, std::vector<float>& rms,
                    std::vector<std::uint8_t>& bad) {
    const std::size_t n = weight.pixelCount();
    std::size_t negative = 0;
    std::vector<double> w(n);
    for (std::size_t i = 0; i < n; ++i) {
        w[i] = weight.isBlank(i) ? NAN : weight.value(i);
        if (w[i] < 0.0) ++negative;
    }
    if (negative > 0)
        throw InputError("weight map " + *params.weight + " holds " + std::to_string(negative) +
                         " negative values: a weight, variance or RMS is never negative");
    double scale = 1.0;
    if (params.weightType == WeightType::MapWeight) {
        // Relative weights: scaled so that the median pixel's noise is the background map's.
        std::vector<double> good;
        for (std::size_t i = 0; i < n; ++i)
            if (std::isfinite(w[i]) && w[i] > 0.0 && !bad[i]) good.push_back(w[i]);
        if (good.empty()) throw InputError("weight map " + *params.weight + " has no positive weight");
        std::nth_element(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(good.size() / 2), good.end());
        scale = globalRms * std::sqrt(good[good.size() / 2]);
    }
    for (std::size_t i = 0; i < n; ++i) {
        const double v = w[i];
        double sigma = NAN;
        if (std::isfinite(v) && v > 0.0) {
            switch (params.weightType) {
            case WeightType::MapRms: sigma = v; break;
            case WeightType::MapVar: sigma = std::sqrt(v); break;
            case WeightType::MapWeight: sigma = scale / std::sqrt(v); break;
            }
        }
        if (std::isfinite(sigma) && sigma > 0.0 && sigma < 3.0e38) rms[i] = static_cast<float>(sigma);
        else bad[i] = 1;
    }
}

bool brighterFirst(const SourceRecord& a, const SourceRecord& b) {
    const bool fa = std::isfinite(a.fluxAuto), fb = std::isfinite(b.fluxAuto);
    if (fa != fb) return fa;
    if (fa && a.fluxAuto != b.fluxAuto) return a.fluxAuto > b.fluxAuto;
    return a.number < b.number;
}

} // namespace

SourcesResult runSources(const Image& image, SourcesParams& params, JobControl& job) {
    sourcesSpec().validate(params);
    if (image.pixelCount() >= static_cast<std::size_t>(INT32_MAX))
        throw InputError("the image has too many pixels for a catalogue (at most 2^31)");
    SourcesResult result;
    const int w = image.width(), h = image.height();
    result.width = w;
    result.height = h;
    const std::size_t n = image.pixelCount();
    job.setProgress(0.0);

    PixelRect roi;
    std::vector<std::uint8_t> bad;
    {
        auto step = job.timing().scope("mask");
        bad = badPixels(image, params, roi);
    }
    BackgroundMap model;
    BackgroundParams bp;
    bp.mesh = params.mesh;
    std::vector<BackgroundCell> cells; // the first model's, which the second reuses where it excludes nothing more
    {
        auto step = job.timing().scope("background model");
        cells = backgroundCells(image, bad, bp);
        model = backgroundFromCells(w, h, bp, cells);
    }
    job.throwIfCancelled();
    const std::optional<double> saturation = saturationLevel(image);
    if (!params.filter.isValue()) { // auto or none: decided before anything is measured, recorded as resolved
        if (params.filter.isAuto()) {
            result.filterFwhm = kFallbackFilterFwhm;
            if (!model.empty()) {
                auto step = job.timing().scope("psf width");
                const PsfWidth psf = measurePsfWidth(image, model, roi, saturation);
                if (psf.measured()) {
                    result.filterFwhm = psf.fwhm;
                    result.filterFromPsf = true;
                    result.psfStars = psf.stars;
                }
            }
            params.filter = AutoValue<double>::value(result.filterFwhm);
        }
    } else {
        result.filterFwhm = params.filter.get();
    }
    if (model.empty()) {
        result.note = "no source: the image has no good pixel (all blank, non-finite or excluded)";
        return result;
    }

    // A model at every pixel: the background, the noise and the pixels left out.
    const std::vector<std::uint8_t> badBefore = std::move(bad);
    std::optional<Image> weight;
    if (params.weight) weight = loadWeightMap(params, image);
    struct PixelMaps {
        std::vector<float> background, rms;
        std::vector<std::uint8_t> bad;
    };
    // Model m at every pixel, into maps of n values: the background B, the noise, and the pixels left out (badBefore,
    // a non-finite I - B, no RMS). The detection and the measurements read v = I - B from I and this B. Maps given
    // again are written over in place (their pages reused, none faulted in fresh).
    auto fillMaps = [&](const BackgroundMap& m, std::vector<float>& background, std::vector<float>& rms,
                        std::vector<std::uint8_t>& bad) {
        bad = badBefore;
        // The samples through their own type (image.visit), not Image::value's dispatch per pixel: the same values.
        image.visit([&](const auto* samples) {
            parallelFor(0, static_cast<std::size_t>(h), 16, [&](std::size_t y0, std::size_t y1) {
                std::vector<double> back(static_cast<std::size_t>(w)), noise(static_cast<std::size_t>(w));
                for (std::size_t y = y0; y < y1; ++y) {
                    m.row(static_cast<int>(y), 0, w, back.data(), noise.data());
                    const std::size_t row = y * static_cast<std::size_t>(w);
                    float* bg = background.data() + row;
                    float* sd = rms.data() + row;
                    std::uint8_t* bd = bad.data() + row;
                    const auto* in = samples + row;
                    // Branch-free (it vectorises): |v| <= FLT_MAX is a finite v (NaN compares false).
                    for (int x = 0; x < w; ++x) {
                        const float b = static_cast<float>(back[static_cast<std::size_t>(x)]);
                        bg[x] = b;
                        sd[x] = static_cast<float>(noise[static_cast<std::size_t>(x)]);
                        const float value = static_cast<float>(static_cast<double>(in[x]) - static_cast<double>(b));
                        bd[x] = static_cast<std::uint8_t>(bd[x] | !(std::fabs(value) <= std::numeric_limits<float>::max()));
                    }
                }
            });
        });
        if (weight) applyWeightMap(params, *weight, m.globalRms(), rms, bad);
        parallelFor(0, n, std::size_t{1} << 16, [&](std::size_t i0, std::size_t i1) {
            for (std::size_t i = i0; i < i1; ++i)
                if (!(rms[i] > 0.0f)) bad[i] = 1; // a zero or NaN RMS: no significance can be had there
        }, threadsForPixels(static_cast<double>(n)));
    };
    // The detection and the measurements read this first model (SExtractor's); extended sources are measured again
    // over a second one made without the sources' pixels (background_mask), below.
    PixelMaps first{std::vector<float>(n), std::vector<float>(n), {}};
    {
        auto step = job.timing().scope("background map");
        fillMaps(model, first.background, first.rms, first.bad);
    }
    job.setProgress(0.2);
    job.throwIfCancelled();

    DetectParams dp;
    dp.threshold = params.threshold;
    dp.filterFwhm = params.filter.isValue() ? params.filter.get() : 0.0;
    dp.minArea = params.minArea;
    dp.deblendLevels = params.deblendLevels;
    dp.deblendContrast = params.deblendContrast;
    dp.deblendProminence = params.deblendProminence;
    dp.clean = params.clean;
    dp.cleanBeta = params.cleanParam;
    // gauss:auto: half the detection filter's FWHM (close pairs that the matched filter blurs together stay apart).
    if (params.deblendFilter.isAuto())
        params.deblendFilter = dp.filterFwhm > 0.0 ? AutoValue<double>::value(std::max(0.5, kDeblendFilterFactor * dp.filterFwhm))
                                                   : AutoValue<double>::none();
    dp.deblendFilterFwhm = params.deblendFilter.isValue() ? params.deblendFilter.get() : 0.0;
    dp.minSnr = params.minSnr;
    dp.keepMaps = false;
    dp.coreRadius = std::max(4, static_cast<int>(std::ceil(2.0 * (result.filterFwhm > 0 ? result.filterFwhm : kFallbackFilterFwhm))));
    Detection det;
    {
        auto step = job.timing().scope("detect");
        det = detectSources(ResidualView(image, first.background), first.rms, first.bad, w, h, dp, &job);
    }

    // The second model: without the detection's footprints, each grown by half its radius, so that a large galaxy's
    // wings are not taken for sky and subtracted from its flux. (Small sources keep the first: on a galaxy's halo
    // the mesh's model is the local sky their positions and fluxes need.)
    // Its pixel maps are written only when some source is extended (below): most frames have none.
    std::optional<BackgroundMap> masked;
    if (params.backgroundMask) {
        auto step = job.timing().scope("background without sources");
        std::vector<std::uint8_t> excluded = sourceMask(det.footprintPixels, w, h);
        parallelFor(0, n, std::size_t{1} << 16, [&](std::size_t i0, std::size_t i1) {
            for (std::size_t i = i0; i < i1; ++i) excluded[i] = excluded[i] | badBefore[i];
        }, threadsForPixels(static_cast<double>(n)));
        masked = backgroundFromCells(w, h, bp, backgroundCells(image, excluded, bp, &cells, &badBefore));
        if (masked->empty()) masked.reset();
    }
    releaseMemory(det.footprintPixels);
    result.background = std::move(first.background); // the catalogue's model (its files, BACKGROUND)
    result.rms = std::move(first.rms);
    result.globalBackground = (masked ? *masked : model).globalBackground();
    result.globalRms = (masked ? *masked : model).globalRms();
    result.footprints = det.footprints;
    result.rejectedFootprints = det.rejectedFootprints;
    result.rejectedMarkers = det.rejectedMarkers;
    result.cleaned = det.cleaned;
    job.setProgress(0.7);
    job.throwIfCancelled();

    std::vector<SourceRecord> records;
    {
        auto step = job.timing().scope("measure");
        SourceField field;
        field.image = &image;
        field.background = &result.background;
        field.rms = &result.rms;
        field.bad = &first.bad;
        field.segmentation = &det.segmentation;
        field.saturation = saturation;
        field.wcs = image.meta.wcs.get();
        field.width = w;
        field.height = h;
        for (SourceSegment& s : det.segments)
            if (params.roi && (s.xmin == roi.x || s.ymin == roi.y || s.xmax == roi.x + roi.width - 1 ||
                               s.ymax == roi.y + roi.height - 1))
                s.flags |= kSourceTruncated; // cut by the ROI's edge
        MeasureParams mp;
        mp.apertures = params.apertures;
        mp.kronFactor = params.kronFactor;
        mp.kronMinRadius = params.kronMinRadius;
        mp.magZeropoint = params.magZeropoint;
        if (params.gain.isAuto()) {
            const std::optional<double> card = headerNumber(image, "GAIN");
            params.gain = AutoValue<double>::value(card && *card > 0.0 && *card < 1e9 ? *card : 0.0);
        }
        mp.gain = params.gain.get();
        records = measureSources(field, det.segments, mp);
        if (masked) {
            // Extended: an AUTO ellipse wider than kExtendedFwhm filter FWHMs; measured over the masked model --
            // unless another source's segment covers more of that ellipse than its own does: a star on a large
            // galaxy's halo, whose ellipse the halo's pedestal widened. The masked model takes the galaxy's light out
            // of the sky under it, which is right for the galaxy and wrong for the star on it (its Kron radius grew
            // from SExtractor's ~4-5 to 8-10 on NGC 1316).
            auto embedded = [&](const SourceRecord& r, int number) {
                const measure::Ellipse e{r.x, r.y, r.cxx, r.cyy, r.cxy, r.kronRadius};
                const auto [own, other] = measure::segmentShares(e, det.segmentation, w, h, number);
                return other > own;
            };
            std::vector<std::size_t> extended;
            std::vector<SourceSegment> segments;
            const double limit = kExtendedFwhm * std::max(result.filterFwhm, 1.0);
            for (std::size_t i = 0; i < records.size(); ++i)
                if (records[i].kronRadius * records[i].a > limit && !embedded(records[i], det.segments[i].number)) {
                    extended.push_back(i);
                    segments.push_back(det.segments[i]);
                }
            if (!extended.empty()) {
                // The field's maps become the model without the sources for these, then the first model's again
                // (the catalogue's files and BACKGROUND read it), written over in place: two more image-sized
                // maps would have made the run's peak.
                fillMaps(*masked, result.background, result.rms, first.bad);
                std::vector<SourceRecord> again = measureSources(field, segments, mp);
                fillMaps(model, result.background, result.rms, first.bad);
                // Their photometry and ellipse; the positions stay the first model's (a halo's pedestal would draw
                // a barycentre to the segment's middle).
                for (std::size_t k = 0; k < extended.size(); ++k) {
                    SourceRecord& r = records[extended[k]];
                    const SourceRecord& m = again[k];
                    r.fluxIso = m.fluxIso;
                    r.fluxErrIso = m.fluxErrIso;
                    r.fluxAuto = m.fluxAuto;
                    r.fluxErrAuto = m.fluxErrAuto;
                    r.magAuto = m.magAuto;
                    r.magErrAuto = m.magErrAuto;
                    r.fluxAper = m.fluxAper;
                    r.fluxErrAper = m.fluxErrAper;
                    r.magAper = m.magAper;
                    r.magErrAper = m.magErrAper;
                    r.kronRadius = m.kronRadius;
                    r.a = m.a;
                    r.b = m.b;
                    r.theta = m.theta;
                    r.cxx = m.cxx;
                    r.cyy = m.cyy;
                    r.cxy = m.cxy;
                    r.ellipticity = m.ellipticity;
                    r.snr = m.snr;
                    r.background = m.background;
                    r.flags |= m.flags;
                }
            }
        }
    }
    {
        // Brightest FLUX_AUTO first; NUMBER is the rank, in the catalogue and the segmentation map alike.
        auto step = job.timing().scope("order");
        std::vector<std::size_t> order(records.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return brighterFirst(records[a], records[b]); });
        std::vector<std::int32_t> newNumber(records.size() + 1, 0);
        result.catalog.sources.reserve(records.size());
        for (std::size_t rank = 0; rank < order.size(); ++rank) {
            SourceRecord r = records[order[rank]];
            newNumber[static_cast<std::size_t>(r.number)] = static_cast<std::int32_t>(rank + 1);
            r.number = static_cast<int>(rank + 1);
            result.catalog.sources.push_back(std::move(r));
            result.cores.push_back(det.cores[order[rank]]);
        }
        result.segmentation = std::move(det.segmentation);
        for (std::int32_t& s : result.segmentation) s = newNumber[static_cast<std::size_t>(s)];
    }
    result.catalog.apertures = params.apertures;
    result.catalog.magZeropoint = params.magZeropoint;
    if (result.catalog.sources.empty())
        result.note = result.footprints == 0
                          ? "no source: no pixel lies " + NumberCodec{}.text(params.threshold) + " sigma above the background"
                          : "no source: " + std::to_string(result.footprints) + " footprints, none with a core of SNR >= " +
                                NumberCodec{}.text(params.minSnr);
    job.setProgress(1.0);
    return result;
}

SourcesRun runSourcesRequest(const Image& image, const Json& request, JobControl& job) {
    const ParamSpec<SourcesParams>& spec = sourcesSpec();
    SourcesRun run;
    ImageKindGuess guess;
    const Json full = spec.applyPreset(request, &image, &guess);
    if (request.contains("preset") && request["preset"] == "auto") run.kind = guess;
    SourcesParams params = spec.read(full);
    const auto start = std::chrono::steady_clock::now();
    run.result = runSources(image, params, job);
    job.timing().setTotal(msSince(start));
    run.parameters = spec.write(params, full["preset"].get<std::string>());
    return run;
}

} // namespace glint
