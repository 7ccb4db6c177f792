#include "core/algo/brightest/BrightestSpec.h"

#include "core/algo/kmax/KMax.h"
#include "core/params/GeometryCodecs.h"
#include "core/util/Errors.h"

namespace glint {

Json PivotCodec::toJson(const Value& p) const {
    if (p.kind == PivotSpec::Kind::Number) return p.value;
    return p.text();
}

PivotCodec::Value PivotCodec::fromJson(const Json& j, const std::string& what) const {
    if (j.is_number() && !j.is_boolean()) {
        const double v = j.get<double>();
        if (!std::isfinite(v)) failParameter(what, "a finite number", j);
        return {PivotSpec::Kind::Number, v};
    }
    if (!j.is_string()) failParameter(what, "mean, median, pNN, local or a number", j);
    return fromText(j.get<std::string>(), what);
}

PivotCodec::Value PivotCodec::fromText(const std::string& text, const std::string& what) const {
    try {
        return PivotSpec::parse(text);
    } catch (const UsageError& e) {
        throw UsageError(what + ": " + e.what());
    }
}

void PivotCodec::check(const Value& p, const std::string& what) const {
    if ((p.kind == PivotSpec::Kind::Number && !std::isfinite(p.value)) ||
        (p.kind == PivotSpec::Kind::Percentile && !(p.value >= 0 && p.value <= 100)))
        throw UsageError(what + ": invalid pivot '" + p.text() + "'");
}

namespace {

using P = BrightestParams;

ParamSpec<P> makeSpec() {
    ParamSpec<P> s("brightest");
    const Json overlap = "overlap", disjoint = "disjoint";

    // Search.
    s.add({.key = "k", .option = "--k", .valueName = "K", .label = "Regions (K)", .help = "how many regions",
           .group = "Search", .widget = FieldWidget::Integer},
          IntegerCodec{1, static_cast<long long>(kMaxKMaxResults), kKMaxResultsWhy}, [](P& p) -> int& { return p.k; })
        .presetForEveryKind(10); // a first answer worth looking at: the ten brightest regions
    s.add({.key = "mode", .option = "--mode", .valueName = "disjoint|overlap", .label = "Mode",
           .help = "disjoint: the K best rectangles sharing no pixel, found in turn; overlap: the K largest sums over "
                   "all rectangles, which may nest or overlap (K-MSP)",
           .group = "Search", .widget = FieldWidget::Choice},
          ChoiceCodec<BrightestMode>{{{BrightestMode::Disjoint, "disjoint", "disjoint"},
                                      {BrightestMode::Overlap, "overlap", "overlap (K-MSP)"}},
                                     "mode"},
          [](P& p) -> BrightestMode& { return p.mode; });
    // The window lists one region per object in overlap mode, not near-copies of the brightest one.
    s.add({.key = "distinct", .option = "--distinct", .valueName = "F|none", .label = "Distinct",
           .help = "overlap mode: list a rectangle only if it overlaps every higher-ranked one by at most this fraction "
                   "of the smaller area (0: no shared pixel; none: every rectangle, near-copies included)",
           .group = "Search", .widget = FieldWidget::OptionalNumber, .decimals = 2, .step = 0.05,
           .onlyWhenKey = "mode", .onlyWhenValues = {overlap}},
          OptionalCodec<NumberCodec>{{0.0, 0.99}}, [](P& p) -> std::optional<double>& { return p.distinct; })
        .presetForEveryKind(0.2);
    s.add({.key = "pivot", .option = "--pivot", .valueName = "mean|median|pNN|local|NUMBER", .label = "Pivot",
           .help = "subtracted from every pixel: the mean, the median, a percentile (p99), a number, or local (a "
                   "background map, one value per pixel)",
           .group = "Search", .widget = FieldWidget::Pivot},
          PivotCodec{}, [](P& p) -> PivotSpec& { return p.pivot; })
        .preset(ImageKind::Sky, "local")
        .preset(ImageKind::Mammogram, "local");

    // Source finding.
    s.add({.key = "threshold", .option = "--threshold", .valueName = "N", .label = "Threshold",
           .help = "subtract N RMS from every pixel before the search (the local RMS with the local pivot, the global "
                   "RMS otherwise): only what lies above it adds to a region",
           .group = "Source finding", .widget = FieldWidget::Number, .maximum = 1000, .decimals = 2, .step = 0.5,
           .suffix = " × RMS"},
          NumberCodec{0.0, NumberCodec::kNoLimit}, [](P& p) -> double& { return p.threshold; })
        .preset(ImageKind::Sky, 3.0)
        .preset(ImageKind::Mammogram, 3.0);
    s.add({.key = "min_snr", .option = "--min-snr", .valueName = "S", .label = "Min SNR",
           .help = "skip regions with a lower signal-to-noise ratio and go on searching (0: none)",
           .group = "Source finding", .widget = FieldWidget::Number, .maximum = 1e6, .decimals = 2,
           .specialText = "none", .onlyWhenKey = "mode", .onlyWhenValues = {disjoint}},
          NumberCodec{0.0, NumberCodec::kNoLimit}, [](P& p) -> double& { return p.minSnr; })
        .preset(ImageKind::Sky, 5.0)
        .preset(ImageKind::Mammogram, 5.0);
    s.add({.key = "min_area", .option = "--min-area", .valueName = "A", .label = "Min area",
           .help = "skip regions with fewer pixels (0: none)", .group = "Source finding", .widget = FieldWidget::Integer,
           .maximum = 1e9, .suffix = " px", .specialText = "none", .onlyWhenKey = "mode", .onlyWhenValues = {disjoint}},
          IntegerCodec{0, 1LL << 40}, [](P& p) -> std::int64_t& { return p.minArea; });
    s.add({.key = "max_size", .option = "--max-size", .valueName = "P", .label = "Max size",
           .help = "skip regions whose longer side is larger (0: none)", .group = "Source finding",
           .widget = FieldWidget::Integer, .suffix = " px", .specialText = "none", .onlyWhenKey = "mode",
           .onlyWhenValues = {disjoint}},
          IntegerCodec{0, 1 << 20}, [](P& p) -> int& { return p.maxSize; });
    s.add({.key = "min_peak", .option = "--min-peak", .valueName = "V", .label = "Min peak",
           .help = "skip regions whose brightest pixel lies less than V above the background (image units; 0: none)",
           .group = "Source finding", .widget = FieldWidget::Number, .maximum = 1e12, .decimals = 3,
           .specialText = "none", .onlyWhenKey = "mode", .onlyWhenValues = {disjoint}},
          NumberCodec{0.0, NumberCodec::kNoLimit}, [](P& p) -> double& { return p.minPeak; });
    s.add({.key = "max_box", .option = "--max-box", .valueName = "P|auto|none", .label = "Max box",
           .help = "search only boxes whose sides are at most P px, so that bright sources are not joined across the "
                   "sky between them and a crowded field gives one box per star; auto: 5 times the PSF's FWHM measured "
                   "on the image's own stars (the mesh when it has too few clean ones)",
           .group = "Source finding", .widget = FieldWidget::Bound, .suffix = " px"},
          AutoCodec<IntegerCodec, int>{{1, 1 << 20}, true, true, true}, [](P& p) -> AutoValue<int>& { return p.maxBox; })
        .preset(ImageKind::Sky, "auto")
        // Mammograms: the mesh (no point sources to measure a PSF on; masses span tens of pixels).
        .preset(ImageKind::Mammogram, BrightestParams{}.mesh);
    s.add({.key = "slope_rule", .option = "--slope-rule", .valueName = "on|off|auto", .label = "Slope rule",
           .help = "with filters, skip a region whose brightest pixel has a brighter neighbour outside it (it lies on "
                   "a brighter source's slope); auto: on when the max box is measured on the image's stars",
           .group = "Source finding", .onlyWhenKey = "mode", .onlyWhenValues = {disjoint}},
          AutoCodec<SwitchCodec>{{}, false, true}, [](P& p) -> AutoValue<bool>& { return p.slopeRule; });
    s.add({.key = "mesh", .option = "--mesh", .valueName = "N", .label = "Mesh",
           .help = "the background map's cell side in pixels (local pivot and the RMS)", .group = "Source finding",
           .widget = FieldWidget::Integer, .maximum = 4096, .suffix = " px"},
          IntegerCodec{2, 1 << 20}, [](P& p) -> int& { return p.mesh; });

    // Shapes drawn on the canvas.
    s.add({.key = "roi", .option = "--roi", .valueName = "X,Y,W,H", .label = "ROI", .help = "search only this rectangle (whole pixels)"},
          OptionalCodec<RectCodec>{}, [](P& p) -> std::optional<PixelRect>& { return p.roi; });
    s.add({.key = "exclude", .option = "--exclude", .valueName = "X,Y,W,H", .label = "Exclusions",
           .help = "leave this rectangle out of every region"},
          ListCodec<RectCodec>{}, [](P& p) -> std::vector<PixelRect>& { return p.excludeRects; });
    s.add({.key = "exclude_polygon", .option = "--exclude-polygon", .valueName = "X1,Y1,X2,Y2,...", .label = "Exclusions",
           .help = "leave this polygon (pixel-centre coordinates, at least three points) out of every region"},
          ListCodec<PolygonCodec>{}, [](P& p) -> std::vector<PixelPolygon>& { return p.excludePolygons; });
    s.add({.key = "auto_exclude", .option = "--auto-exclude", .valueName = "mammogram|none", .label = "Auto-exclude",
           .help = "mammogram: also leave out the outside of the breast, burned-in labels and markers, and the "
                   "pectoral muscle"},
          ChoiceCodec<AutoExcludeMode>{{{AutoExcludeMode::None, "none", nullptr}, {AutoExcludeMode::Mammogram, "mammogram", nullptr}},
                                       "auto-exclusion"},
          [](P& p) -> AutoExcludeMode& { return p.autoExclude; })
        .preset(ImageKind::Mammogram, "mammogram");
    s.add({.key = "rank", .option = "--rank", .valueName = "sum|contrast", .label = "Rank by",
           .help = "sum: the rectangles with the largest sums of (value - pivot); contrast: mammogram findings (masses "
                   "2-30 mm, calcification clusters) by their contrast against the surrounding tissue, one box each",
           .group = "Search", .widget = FieldWidget::Choice, .onlyWhenKey = "mode", .onlyWhenValues = {disjoint}},
          ChoiceCodec<RegionRank>{{{RegionRank::Sum, "sum", "sum"}, {RegionRank::Contrast, "contrast", "contrast (mammogram)"}},
                                  "rank"},
          [](P& p) -> RegionRank& { return p.rank; })
        .preset(ImageKind::Mammogram, "contrast");

    // The filters belong to the disjoint search (each round's rectangle is measured and refused); overlap mode
    // lists every rectangle by its sum, so they would be ignored there. The search bound applies to both modes.
    s.addRule([](const P& p) {
        if (p.mode == BrightestMode::Overlap) {
            std::string given;
            for (const auto& [on, name] : {std::pair{p.minSnr > 0.0, "--min-snr"}, std::pair{p.minArea > 0, "--min-area"},
                                           std::pair{p.maxSize > 0, "--max-size"}, std::pair{p.minPeak > 0.0, "--min-peak"}})
                if (on) given += (given.empty() ? "" : ", ") + std::string(name);
            if (!given.empty())
                throw UsageError(given + " apply to the disjoint search only (--mode disjoint); in overlap mode --distinct F "
                                         "keeps the listed rectangles apart");
        }
        if (p.distinct && p.mode != BrightestMode::Overlap) throw UsageError("option '--distinct' needs --mode overlap");
        if (p.rank == RegionRank::Contrast && p.mode != BrightestMode::Disjoint)
            throw UsageError("option '--rank contrast' needs --mode disjoint");
    });
    return s;
}

} // namespace

const ParamSpec<BrightestParams>& brightestSpec() {
    static const ParamSpec<BrightestParams> spec = makeSpec();
    return spec;
}

void validateBrightestParams(const BrightestParams& params) { brightestSpec().validate(params); }

BrightestParams sourceFinderParams(int k, std::optional<AutoValue<int>> maxBox) {
    BrightestParams p = brightestSpec().read(brightestSpec().applyPreset({{"preset", "sky"}}, nullptr));
    p.k = k;
    if (maxBox) p.maxBox = *maxBox;
    return p;
}

} // namespace glint
