#include "core/algo/sources/SourcesSpec.h"

#include "core/params/GeometryCodecs.h"
#include "core/params/Options.h"
#include "core/util/Errors.h"

#include <cmath>

namespace glint {

namespace {
constexpr double kMaxFilterFwhm = 64.0; // px: a wider kernel is a different measurement (and costs its width)
constexpr std::size_t kMaxApertures = 32;
} // namespace

// ---- FilterCodec --------------------------------------------------------------------------------------------

FilterCodec::Value FilterCodec::fromJson(const Json& j, const std::string& what) const {
    if (!j.is_string()) failParameter(what, "gauss:FWHM, gauss:auto or none", j);
    return fromText(j.get<std::string>(), what);
}

FilterCodec::Value FilterCodec::fromText(const std::string& text, const std::string& what) const {
    if (text == "none") return Value::none();
    if (text == "gauss:auto" || text == "auto") return Value::automatic();
    if (text.rfind("gauss:", 0) == 0) {
        double fwhm = 0.0;
        try {
            fwhm = parseNumber(text.substr(6), what);
        } catch (const UsageError&) {
            throw UsageError(what + " must be gauss:FWHM, gauss:auto or none (got '" + text + "')");
        }
        const Value v = Value::value(fwhm);
        check(v, what);
        return v;
    }
    throw UsageError(what + " must be gauss:FWHM, gauss:auto or none (got '" + text + "')");
}

void FilterCodec::check(const Value& v, const std::string& what) const {
    if (v.isValue() && !(v.get() >= 0.5 && v.get() <= kMaxFilterFwhm))
        throw UsageError(what + ": the filter's FWHM must be in [0.5, 64] px (got " + NumberCodec{}.text(v.get()) + ")");
}

std::string FilterCodec::text(const Value& v) const {
    if (v.isAuto()) return "gauss:auto";
    if (v.isNone()) return "none";
    return "gauss:" + NumberCodec{}.text(v.get());
}

// ---- PathCodec ----------------------------------------------------------------------------------------------

PathCodec::Value PathCodec::fromJson(const Json& j, const std::string& what) const {
    if (j.is_null()) return std::nullopt;
    if (!j.is_string()) failParameter(what, "a file's path or null", j);
    return fromText(j.get<std::string>(), what);
}

PathCodec::Value PathCodec::fromText(const std::string& text, const std::string& what) const {
    if (text == "none") return std::nullopt;
    const Value v = text;
    check(v, what);
    return v;
}

void PathCodec::check(const Value& v, const std::string& what) const {
    if (v && (v->empty() || v->find('\0') != std::string::npos)) throw UsageError(what + " must be a file's path");
}

// ---- ApertureListCodec --------------------------------------------------------------------------------------

ApertureListCodec::Value ApertureListCodec::fromJson(const Json& j, const std::string& what) const {
    if (!j.is_array()) failParameter(what, "a list of diameters in px", j);
    Value out;
    for (const Json& d : j) {
        if (!d.is_number() || d.is_boolean()) failParameter(what, "a list of diameters in px", j);
        out.push_back(d.get<double>());
    }
    check(out, what);
    return out;
}

ApertureListCodec::Value ApertureListCodec::fromText(const std::string& text, const std::string& what) const {
    if (text == "none") return {};
    Value out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = text.find(',', start);
        out.push_back(parseNumber(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), what));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    check(out, what);
    return out;
}

void ApertureListCodec::check(const Value& v, const std::string& what) const {
    if (v.size() > kMaxApertures) throw UsageError(what + ": at most 32 apertures");
    for (const double d : v)
        if (!(d > 0.0 && d <= 4096.0)) throw UsageError(what + ": diameters must be in (0, 4096] px (got " + NumberCodec{}.text(d) + ")");
}

std::string ApertureListCodec::text(const Value& v) const {
    if (v.empty()) return "none";
    std::string out;
    for (const double d : v) {
        if (!out.empty()) out += ',';
        out += NumberCodec{}.text(d);
    }
    return out;
}

// ---- The spec -----------------------------------------------------------------------------------------------

namespace {

using P = SourcesParams;

ParamSpec<P> makeSpec() {
    ParamSpec<P> s("sources");
    // Detection.
    s.add({.key = "threshold", .option = "--threshold", .valueName = "N", .label = "Threshold",
           .help = "detect pixels whose filtered value lies N sigma above the background, sigma being the filtered "
                   "image's own noise (so N is a significance whatever the filter; SExtractor's 1.5 with its default "
                   "filter is about 4 here)",
           .group = "Detection", .widget = FieldWidget::Number, .maximum = 1000, .decimals = 2, .step = 0.5, .suffix = " σ"},
          NumberCodec{0.0, NumberCodec::kNoLimit, true}, [](P& p) -> double& { return p.threshold; });
    s.add({.key = "filter", .option = "--filter", .valueName = "gauss:FWHM|gauss:auto|none", .label = "Filter",
           .help = "the matched filter before thresholding: a Gaussian of this FWHM in px; gauss:auto: the PSF's FWHM "
                   "measured on the image's stars (3 px when it has too few)",
           .group = "Detection"},
          FilterCodec{}, [](P& p) -> AutoValue<double>& { return p.filter; });
    s.add({.key = "min_area", .option = "--min-area", .valueName = "A", .label = "Min area",
           .help = "the fewest pixels of a footprint and of a deblended branch", .group = "Detection",
           .widget = FieldWidget::Integer, .maximum = 1e6, .suffix = " px"},
          IntegerCodec{1, 1 << 24}, [](P& p) -> int& { return p.minArea; });
    s.add({.key = "min_snr", .option = "--min-snr", .valueName = "S", .label = "Min SNR",
           .help = "keep a source only when its core (the brightest rectangle of its segment above the threshold) "
                   "has at least this flux over its noise (0: none)",
           .group = "Detection", .widget = FieldWidget::Number, .maximum = 1e6, .decimals = 2, .specialText = "none"},
          NumberCodec{0.0, NumberCodec::kNoLimit}, [](P& p) -> double& { return p.minSnr; });
    s.add({.key = "deblend_levels", .option = "--deblend-levels", .valueName = "N", .label = "Deblend levels",
           .help = "thresholds of the multi-threshold deblending between a footprint's floor and peak (1: none)",
           .group = "Detection", .widget = FieldWidget::Integer, .maximum = 256},
          IntegerCodec{1, 256}, [](P& p) -> int& { return p.deblendLevels; });
    s.add({.key = "deblend_contrast", .option = "--deblend-contrast", .valueName = "C", .label = "Deblend contrast",
           .help = "a branch becomes its own source when it holds more than this fraction of its footprint's flux",
           .group = "Detection", .widget = FieldWidget::Number, .maximum = 1, .decimals = 4, .step = 0.001},
          NumberCodec{0.0, 1.0}, [](P& p) -> double& { return p.deblendContrast; });
    s.add({.key = "deblend_filter", .option = "--deblend-filter", .valueName = "gauss:FWHM|gauss:auto|none", .label = "Deblend filter",
           .help = "the image the deblending splits: under a Gaussian of this FWHM; gauss:auto: half the detection filter's "
                   "(close pairs that the matched filter blurs together stay apart); none: the detection image itself",
           .group = "Detection"},
          FilterCodec{}, [](P& p) -> AutoValue<double>& { return p.deblendFilter; });
    s.add({.key = "deblend_prominence", .option = "--deblend-prominence", .valueName = "S", .label = "Deblend prominence",
           .help = "... or when it rises S sigma (of the filtered image) above the level where it parts from the others, "
                   "however faint beside its footprint: stars in a cluster's core (0: the contrast alone, as SExtractor)",
           .group = "Detection", .widget = FieldWidget::Number, .maximum = 1000, .decimals = 1, .specialText = "off"},
          NumberCodec{0.0, NumberCodec::kNoLimit}, [](P& p) -> double& { return p.deblendProminence; });
    s.add({.key = "clean", .option = "--clean", .valueName = "on|off", .label = "Clean",
           .help = "SExtractor's CLEAN: a source whose light a brighter neighbour's profile (a Moffat of that neighbour's "
                   "flux and shape) explains is merged into it -- bumps on a galaxy's or a bright star's wing",
           .group = "Detection", .widget = FieldWidget::Flag},
          SwitchCodec{}, [](P& p) -> bool& { return p.clean; });
    s.add({.key = "clean_param", .option = "--clean-param", .valueName = "B", .label = "Clean parameter",
           .help = "the Moffat index of CLEAN's profiles (SExtractor's CLEAN_PARAM): smaller, wider wings, more merged",
           .group = "Detection", .widget = FieldWidget::Number, .maximum = 10, .decimals = 2, .step = 0.1},
          NumberCodec{0.1, 10.0}, [](P& p) -> double& { return p.cleanParam; });
    s.add({.key = "mesh", .option = "--mesh", .valueName = "N", .label = "Mesh",
           .help = "the background map's cell side in pixels", .group = "Detection", .widget = FieldWidget::Integer,
           .maximum = 4096, .suffix = " px"},
          IntegerCodec{2, 1 << 20}, [](P& p) -> int& { return p.mesh; });
    s.add({.key = "background_mask", .option = "--background-mask", .valueName = "on|off", .label = "Mask sources in background",
           .help = "on: estimate the background map a second time without the first pass's sources (each grown by half its "
                   "radius), so that a large galaxy's wings are not taken for sky", .group = "Detection", .widget = FieldWidget::Flag},
          SwitchCodec{}, [](P& p) -> bool& { return p.backgroundMask; });
    s.add({.key = "weight", .option = "--weight", .valueName = "FILE", .label = "Weight map",
           .help = "a weight map of the image's size (what --weight-type says it holds); zero or NaN: the pixel is "
                   "left out", .group = "Detection"},
          PathCodec{}, [](P& p) -> std::optional<std::string>& { return p.weight; });
    s.add({.key = "weight_type", .option = "--weight-type", .valueName = "map_rms|map_weight|map_var", .label = "Weight type",
           .help = "map_rms: each pixel's noise sigma; map_var: its variance; map_weight: relative 1/variance, scaled "
                   "to the background map's noise", .group = "Detection", .widget = FieldWidget::Choice},
          ChoiceCodec<WeightType>{{{WeightType::MapRms, "map_rms", nullptr}, {WeightType::MapWeight, "map_weight", nullptr},
                                   {WeightType::MapVar, "map_var", nullptr}}, "weight type"},
          [](P& p) -> WeightType& { return p.weightType; });

    // Measurements.
    s.add({.key = "apertures", .option = "--aper", .valueName = "D,...", .label = "Apertures",
           .help = "FLUX_APER: circular aperture diameters in px", .group = "Photometry"},
          ApertureListCodec{}, [](P& p) -> std::vector<double>& { return p.apertures; });
    s.add({.key = "kron_factor", .option = "--kron-factor", .valueName = "K", .label = "Kron factor",
           .help = "FLUX_AUTO's ellipse is K times KRON_RADIUS (SExtractor's PHOT_AUTOPARAMS)", .group = "Photometry",
           .widget = FieldWidget::Number, .maximum = 20, .decimals = 2, .step = 0.1},
          NumberCodec{0.0, 20.0, true}, [](P& p) -> double& { return p.kronFactor; });
    s.add({.key = "kron_min_radius", .option = "--kron-min-radius", .valueName = "R", .label = "Kron min radius",
           .help = "... and at least R (in units of A and B)", .group = "Photometry", .widget = FieldWidget::Number,
           .maximum = 100, .decimals = 2, .step = 0.1},
          NumberCodec{0.0, 100.0, true}, [](P& p) -> double& { return p.kronMinRadius; });
    s.add({.key = "mag_zeropoint", .option = "--mag-zeropoint", .valueName = "Z", .label = "Zero point",
           .help = "MAG = Z - 2.5 log10(FLUX)", .group = "Photometry", .widget = FieldWidget::Number, .minimum = -100,
           .maximum = 100, .decimals = 3},
          NumberCodec{-100.0, 100.0}, [](P& p) -> double& { return p.magZeropoint; });
    s.add({.key = "gain", .option = "--gain", .valueName = "G|auto", .label = "Gain",
           .help = "e-/ADU, for the sources' photon noise in the errors (0: background noise only); auto: the image's GAIN "
                   "card, as SExtractor's GAIN_KEY (0 without one)", .group = "Photometry",
           .widget = FieldWidget::AutoNumber, .maximum = 1e6, .decimals = 3},
          AutoCodec<NumberCodec, double>{{0.0, 1e9}, false, true}, [](P& p) -> AutoValue<double>& { return p.gain; });
    s.add({.key = "catalog_format", .option = "--catalog-format", .valueName = "fits|ldac|ascii|csv", .label = "Catalogue format",
           .help = "the --catalog file's format (default: by its extension: .fits, .ldac, .cat, .csv)"},
          ChoiceCodec<CatalogFileFormat>{{{CatalogFileFormat::Auto, "auto", nullptr}, {CatalogFileFormat::Fits, "fits", nullptr},
                                          {CatalogFileFormat::Ldac, "ldac", nullptr}, {CatalogFileFormat::Ascii, "ascii", nullptr},
                                          {CatalogFileFormat::Csv, "csv", nullptr}}, "catalogue format"},
          [](P& p) -> CatalogFileFormat& { return p.catalogFormat; });

    // Shapes drawn on the canvas.
    s.add({.key = "roi", .option = "--roi", .valueName = "X,Y,W,H", .label = "ROI", .help = "detect only in this rectangle (whole pixels)"},
          OptionalCodec<RectCodec>{}, [](P& p) -> std::optional<PixelRect>& { return p.roi; });
    s.add({.key = "exclude", .option = "--exclude", .valueName = "X,Y,W,H", .label = "Exclusions",
           .help = "leave this rectangle out of every source"},
          ListCodec<RectCodec>{}, [](P& p) -> std::vector<PixelRect>& { return p.excludeRects; });
    s.add({.key = "exclude_polygon", .option = "--exclude-polygon", .valueName = "X1,Y1,X2,Y2,...", .label = "Exclusions",
           .help = "leave this polygon (pixel-centre coordinates, at least three points) out of every source"},
          ListCodec<PolygonCodec>{}, [](P& p) -> std::vector<PixelPolygon>& { return p.excludePolygons; });
    return s;
}

} // namespace

const ParamSpec<SourcesParams>& sourcesSpec() {
    static const ParamSpec<SourcesParams> spec = makeSpec();
    return spec;
}

} // namespace glint
