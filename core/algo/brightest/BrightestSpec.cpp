#include "core/algo/brightest/BrightestSpec.h"

#include "core/algo/kmax/KMax.h"
#include "core/params/GeometryCodecs.h"
#include "core/util/Errors.h"

#include <limits>

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
constexpr double kNoLimit = std::numeric_limits<double>::max();

ParamSpec<P> makeSpec() {
    ParamSpec<P> s("brightest");
    const Json overlap = "overlap", disjoint = "disjoint";
    auto disjointOnly = [&](FieldInfo info) {
        info.onlyWhenKey = "mode";
        info.onlyWhenValues = {disjoint};
        return info;
    };
    const auto everyKind = [](ParamField& f, const Json& v) {
        for (ImageKind kind : {ImageKind::Sky, ImageKind::Mammogram, ImageKind::Aerial, ImageKind::Other}) f.setPreset(kind, v);
    };

    // Search.
    everyKind(s.add({"k", "--k", "K", "Regions (K)", "how many regions", "Search", FieldWidget::Integer},
                    IntegerCodec{1, static_cast<long long>(kMaxKMaxResults), kKMaxResultsWhy}, [](P& p) -> int& { return p.k; }),
              10); // a first answer worth looking at: the ten brightest regions
    s.add({"mode", "--mode", "disjoint|overlap", "Mode",
           "disjoint: the K best rectangles sharing no pixel, found in turn; overlap: the K largest sums over all "
           "rectangles, which may nest or overlap (K-MSP)",
           "Search", FieldWidget::Choice},
          ChoiceCodec<BrightestMode>{{{BrightestMode::Disjoint, "disjoint", "disjoint"},
                                      {BrightestMode::Overlap, "overlap", "overlap (K-MSP)"}},
                                     "mode"},
          [](P& p) -> BrightestMode& { return p.mode; });
    {
        FieldInfo info{"distinct", "--distinct", "F|none", "Distinct",
                       "overlap mode: list a rectangle only if it overlaps every higher-ranked one by at most this fraction "
                       "of the smaller area (0: no shared pixel; none: every rectangle, near-copies included)",
                       "Search", FieldWidget::OptionalNumber};
        info.decimals = 2;
        info.step = 0.05;
        info.onlyWhenKey = "mode";
        info.onlyWhenValues = {overlap};
        // The window lists one region per object in overlap mode, not near-copies of the brightest one.
        everyKind(s.add(info, OptionalCodec<NumberCodec>{{0.0, 0.99}}, [](P& p) -> std::optional<double>& { return p.distinct; }),
                  0.2);
    }
    {
        ParamField& pivot = s.add({"pivot", "--pivot", "mean|median|pNN|local|NUMBER", "Pivot",
                                   "subtracted from every pixel: the mean, the median, a percentile (p99), a number, or local "
                                   "(a background map, one value per pixel)",
                                   "Search", FieldWidget::Pivot},
                                  PivotCodec{}, [](P& p) -> PivotSpec& { return p.pivot; });
        pivot.setPreset(ImageKind::Sky, "local");
        pivot.setPreset(ImageKind::Mammogram, "local");
    }

    // Source finding.
    {
        FieldInfo info{"threshold", "--threshold", "N", "Threshold",
                       "subtract N RMS from every pixel before the search (the local RMS with the local pivot, the global "
                       "RMS otherwise): only what lies above it adds to a region",
                       "Source finding", FieldWidget::Number};
        info.decimals = 2;
        info.step = 0.5;
        info.suffix = " × RMS";
        info.maximum = 1000;
        ParamField& f = s.add(info, NumberCodec{0.0, kNoLimit}, [](P& p) -> double& { return p.threshold; });
        f.setPreset(ImageKind::Sky, 3.0);
        f.setPreset(ImageKind::Mammogram, 3.0);
    }
    {
        FieldInfo info = disjointOnly({"min_snr", "--min-snr", "S", "Min SNR",
                                       "skip regions with a lower signal-to-noise ratio and go on searching (0: none)",
                                       "Source finding", FieldWidget::Number});
        info.decimals = 2;
        info.specialText = "none";
        info.maximum = 1e6;
        ParamField& f = s.add(info, NumberCodec{0.0, kNoLimit}, [](P& p) -> double& { return p.minSnr; });
        f.setPreset(ImageKind::Sky, 5.0);
        f.setPreset(ImageKind::Mammogram, 5.0);
    }
    {
        FieldInfo info = disjointOnly({"min_area", "--min-area", "A", "Min area", "skip regions with fewer pixels (0: none)",
                                       "Source finding", FieldWidget::Integer});
        info.suffix = " px";
        info.specialText = "none";
        info.maximum = 1e9;
        s.add(info, IntegerCodec{0, 1LL << 40}, [](P& p) -> std::int64_t& { return p.minArea; });
    }
    {
        FieldInfo info = disjointOnly({"max_size", "--max-size", "P", "Max size",
                                       "skip regions whose longer side is larger (0: none)", "Source finding", FieldWidget::Integer});
        info.suffix = " px";
        info.specialText = "none";
        s.add(info, IntegerCodec{0, 1 << 20}, [](P& p) -> int& { return p.maxSize; });
    }
    {
        FieldInfo info{"max_box", "--max-box", "P|auto|none", "Max box",
                       "search only boxes whose sides are at most P px, so that bright sources are not joined across the "
                       "sky between them and a crowded field gives one box per star; auto: 5 times the PSF's FWHM measured "
                       "on the image's own stars (the mesh when it has too few clean ones)",
                       "Source finding", FieldWidget::Bound};
        info.suffix = " px";
        ParamField& f = s.add(info, AutoCodec<IntegerCodec, int>{{1, 1 << 20}, true, true, true},
                              [](P& p) -> AutoValue<int>& { return p.maxBox; });
        f.setPreset(ImageKind::Sky, "auto");
        // Mammograms: the mesh (no point sources to measure a PSF on; masses span tens of pixels).
        f.setPreset(ImageKind::Mammogram, BrightestParams{}.mesh);
    }
    {
        FieldInfo info = disjointOnly({"slope_rule", "--slope-rule", "on|off|auto", "Slope rule",
                                       "with filters, skip a region whose brightest pixel has a brighter neighbour outside "
                                       "it (it lies on a brighter source's slope); auto: on when the max box is measured on "
                                       "the image's stars",
                                       "Source finding", FieldWidget::Hidden});
        s.add(info, AutoCodec<SwitchCodec>{{}, false, true}, [](P& p) -> AutoValue<bool>& { return p.slopeRule; });
    }
    {
        FieldInfo info{"mesh", "--mesh", "N", "Mesh", "the background map's cell side in pixels (local pivot and the RMS)",
                       "Source finding", FieldWidget::Integer};
        info.suffix = " px";
        info.maximum = 4096;
        s.add(info, IntegerCodec{2, 1 << 20}, [](P& p) -> int& { return p.mesh; });
    }

    // Shapes drawn on the canvas.
    s.add({"roi", "--roi", "X,Y,W,H", "ROI", "search only this rectangle (whole pixels)"},
          OptionalCodec<RectCodec>{}, [](P& p) -> std::optional<PixelRect>& { return p.roi; });
    s.add({"exclude", "--exclude", "X,Y,W,H", "Exclusions", "leave this rectangle out of every region"},
          ListCodec<RectCodec>{}, [](P& p) -> std::vector<PixelRect>& { return p.excludeRects; });
    s.add({"exclude_polygon", "--exclude-polygon", "X1,Y1,X2,Y2,...", "Exclusions",
           "leave this polygon (pixel-centre coordinates, at least three points) out of every region"},
          ListCodec<PolygonCodec>{}, [](P& p) -> std::vector<PixelPolygon>& { return p.excludePolygons; });
    s.add({"auto_exclude", "--auto-exclude", "mammogram|none", "Auto-exclude",
           "mammogram: also leave out the outside of the breast, burned-in labels and markers, and the pectoral muscle"},
          ChoiceCodec<AutoExcludeMode>{{{AutoExcludeMode::None, "none", nullptr}, {AutoExcludeMode::Mammogram, "mammogram", nullptr}},
                                       "auto-exclusion"},
          [](P& p) -> AutoExcludeMode& { return p.autoExclude; })
        .setPreset(ImageKind::Mammogram, "mammogram");

    // The filters belong to the disjoint search (each round's rectangle is measured and refused); overlap mode
    // lists every rectangle by its sum, so they would be ignored there. The search bound applies to both modes.
    s.addRule([](const P& p) {
        if (p.mode == BrightestMode::Overlap) {
            std::string given;
            for (const auto& [on, name] : {std::pair{p.minSnr > 0.0, "--min-snr"}, std::pair{p.minArea > 0, "--min-area"},
                                           std::pair{p.maxSize > 0, "--max-size"}})
                if (on) given += (given.empty() ? "" : ", ") + std::string(name);
            if (!given.empty())
                throw UsageError(given + " apply to the disjoint search only (--mode disjoint); in overlap mode --distinct F "
                                         "keeps the listed rectangles apart");
        }
        if (p.distinct && p.mode != BrightestMode::Overlap) throw UsageError("option '--distinct' needs --mode overlap");
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
