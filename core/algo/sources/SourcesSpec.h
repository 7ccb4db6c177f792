// The source catalogue's parameters (`glint-cli sources`, `batch --algo sources`, the window's Sources panel) and
// their spec: the one declaration of options, defaults, ranges, help lines and keys.
#pragma once

#include "core/geometry/PixelGeometry.h"
#include "core/params/AutoValue.h"
#include "core/params/ParamSpec.h"

#include <optional>
#include <string>
#include <vector>

namespace glint {

enum class WeightType { MapRms, MapWeight, MapVar };
enum class CatalogFileFormat { Auto, Fits, Ldac, Ascii, Csv };

struct SourcesParams {
    int mesh = 64;                   // the background map's cell side
    bool backgroundMask = true;      // a second background pass without the sources' pixels
    double threshold = 3.5;          // detection: sigma of the filtered image (tuned on bench catalogue)
    AutoValue<double> filter = AutoValue<double>::automatic(); // gauss FWHM (px), auto (the PSF's), none
    int minArea = 5;                 // px
    int deblendLevels = 32;
    double deblendContrast = 0.005;
    AutoValue<double> deblendFilter = AutoValue<double>::automatic(); // the deblending's image: gauss FWHM, auto, none (D)
    double deblendProminence = 5.0;  // sigma of the filtered image; 0: contrast only (SExtractor's rule)
    bool clean = true;               // SExtractor's CLEAN: bumps a brighter source's profile explains are merged into it
    double cleanParam = 1.0;         // CLEAN's Moffat index (SExtractor's CLEAN_PARAM)
    double minSnr = 5.0;             // of each source's core (its brightest rectangle)
    std::vector<double> apertures;   // FLUX_APER diameters (px)
    double kronFactor = 2.5, kronMinRadius = 3.5;
    double magZeropoint = 0.0;
    AutoValue<double> gain = AutoValue<double>::automatic(); // e-/ADU; 0: no Poisson term; auto: the GAIN card
    std::optional<std::string> weight; // a weight map's path
    WeightType weightType = WeightType::MapRms;
    CatalogFileFormat catalogFormat = CatalogFileFormat::Auto;
    std::optional<PixelRect> roi;
    std::vector<PixelRect> excludeRects;
    std::vector<PixelPolygon> excludePolygons;
};

const ParamSpec<SourcesParams>& sourcesSpec();

// "gauss:FWHM", "gauss:auto" or "none" (JSON: the same text).
struct FilterCodec {
    using Value = AutoValue<double>;
    Json toJson(const Value& v) const { return text(v); }
    Value fromJson(const Json& j, const std::string& what) const;
    Value fromText(const std::string& text, const std::string& what) const;
    void check(const Value& v, const std::string& what) const;
    std::string text(const Value& v) const;
    void describe(FieldInfo&) const {}
};

// A file's path, or none (JSON null, the option's text "none").
struct PathCodec {
    using Value = std::optional<std::string>;
    Json toJson(const Value& v) const { return v ? Json(*v) : Json(nullptr); }
    Value fromJson(const Json& j, const std::string& what) const;
    Value fromText(const std::string& text, const std::string& what) const;
    void check(const Value& v, const std::string& what) const;
    std::string text(const Value& v) const { return v ? *v : "none"; }
    void describe(FieldInfo&) const {}
};

// "D1,D2,..." positive diameters in px (at most 32), or none; JSON an array of numbers.
struct ApertureListCodec {
    using Value = std::vector<double>;
    Json toJson(const Value& v) const { return Json(v); }
    Value fromJson(const Json& j, const std::string& what) const;
    Value fromText(const std::string& text, const std::string& what) const;
    void check(const Value& v, const std::string& what) const;
    std::string text(const Value& v) const;
    void describe(FieldInfo&) const {}
};

} // namespace glint
