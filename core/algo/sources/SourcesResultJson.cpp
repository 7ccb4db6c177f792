// The strict reader of the source catalogue's one JSON form (sourcesResultJson): sessions store a run's
// catalogue as that document and read it back here. A missing field or one of the wrong type is an InputError
// naming it; unknown values (JSON null) come back as NaN. The maps (segmentation, background, RMS) are not in
// the document and come back empty.
#include "core/algo/ResultJson.h"
#include "core/algo/sources/Sources.h"

#include <cmath>
#include <limits>
#include <string>

namespace glint {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A number or null (NaN).
double numberOrNaN(const resultjson::Object& o, const char* name) {
    const Json& v = o[name];
    return v.is_null() ? kNaN : o.number(name);
}

std::vector<double> numbersOrNaN(const Json& array, const std::string& what) {
    std::vector<double> out;
    for (const Json& v : array) out.push_back(v.is_null() ? kNaN : resultjson::number(v, what + "[]"));
    return out;
}

} // namespace

SourcesResult sourcesResultFromJson(const Json& json) {
    const resultjson::Object in(json, "sources");
    SourcesResult r;
    const resultjson::Object image = in.object("image");
    r.width = image.smallInteger("width");
    r.height = image.smallInteger("height");
    if (r.width <= 0 || r.height <= 0) image.fail("a positive width and height");
    const resultjson::Object background = in.object("background");
    r.globalBackground = background.number("global");
    r.globalRms = background.number("rms");
    const resultjson::Object filter = in.object("filter");
    r.filterFwhm = filter.number("fwhm");
    r.filterFromPsf = filter.boolean("from_psf");
    if (in.has("psf")) r.psfStars = in.object("psf").smallInteger("stars");
    r.footprints = in.smallInteger("footprints");
    const resultjson::Object rejected = in.object("rejected");
    r.rejectedFootprints = rejected.smallInteger("footprints");
    r.rejectedMarkers = rejected.smallInteger("markers");
    if (rejected.has("cleaned")) r.cleaned = rejected.smallInteger("cleaned"); // (documents before CLEAN have none)
    if (in.has("apertures")) r.catalog.apertures = numbersOrNaN(in.array("apertures"), in.path("apertures"));
    r.catalog.magZeropoint = in.number("mag_zeropoint");
    if (in.has("note")) r.note = in.string("note");
    const std::size_t apertures = r.catalog.apertures.size();
    int expected = 1;
    for (const Json& item : in.array("sources")) {
        const resultjson::Object o(item, "sources.sources[]");
        SourceRecord s;
        s.number = o.smallInteger("number");
        if (s.number != expected++) o.fail("number", "the catalogue's numbers 1, 2, ... in order");
        s.xWin = numberOrNaN(o, "x");
        s.yWin = numberOrNaN(o, "y");
        s.x = numberOrNaN(o, "x_iso");
        s.y = numberOrNaN(o, "y_iso");
        s.fluxAuto = numberOrNaN(o, "flux_auto");
        s.fluxErrAuto = numberOrNaN(o, "fluxerr_auto");
        s.magAuto = numberOrNaN(o, "mag_auto");
        s.magErrAuto = numberOrNaN(o, "magerr_auto");
        s.fluxIso = numberOrNaN(o, "flux_iso");
        s.fluxErrIso = numberOrNaN(o, "fluxerr_iso");
        s.peak = numberOrNaN(o, "peak");
        s.a = numberOrNaN(o, "a");
        s.b = numberOrNaN(o, "b");
        s.theta = numberOrNaN(o, "theta");
        s.ellipticity = numberOrNaN(o, "ellipticity");
        s.kronRadius = numberOrNaN(o, "kron_radius");
        s.fwhm = numberOrNaN(o, "fwhm");
        s.isoArea = o.integer("area");
        s.background = numberOrNaN(o, "background");
        s.threshold = numberOrNaN(o, "threshold");
        s.snr = numberOrNaN(o, "snr");
        s.flags = o.smallInteger("flags");
        const resultjson::Object box = o.object("bbox");
        s.xmin = box.smallInteger("x");
        s.ymin = box.smallInteger("y");
        s.xmax = s.xmin + box.smallInteger("width") - 1;
        s.ymax = s.ymin + box.smallInteger("height") - 1;
        if (s.xmin < 0 || s.ymin < 0 || s.xmax < s.xmin || s.ymax < s.ymin || s.xmax >= r.width || s.ymax >= r.height)
            o.fail("bbox", "a box inside the image");
        if (apertures > 0) {
            s.fluxAper = numbersOrNaN(o.array("flux_aper"), o.path("flux_aper"));
            s.fluxErrAper = numbersOrNaN(o.array("fluxerr_aper"), o.path("fluxerr_aper"));
            s.magAper = numbersOrNaN(o.array("mag_aper"), o.path("mag_aper"));
            if (s.fluxAper.size() != apertures || s.fluxErrAper.size() != apertures || s.magAper.size() != apertures)
                o.fail("flux_aper", "one value per aperture");
        }
        if (o.has("ra")) {
            s.ra = o.number("ra");
            s.dec = o.number("dec");
        }
        // CXX, CYY, CXY are not in the document: SExtractor's ellipse parameters from A, B and THETA.
        if (std::isfinite(s.a) && std::isfinite(s.b) && std::isfinite(s.theta) && s.a > 0.0 && s.b > 0.0) {
            const double t = s.theta * M_PI / 180.0, c = std::cos(t), sn = std::sin(t);
            s.cxx = c * c / (s.a * s.a) + sn * sn / (s.b * s.b);
            s.cyy = sn * sn / (s.a * s.a) + c * c / (s.b * s.b);
            s.cxy = 2.0 * c * sn * (1.0 / (s.a * s.a) - 1.0 / (s.b * s.b));
        }
        if (o.has("core")) {
            const resultjson::Object c = o.object("core");
            SourceCore core;
            core.x = c.smallInteger("x");
            core.y = c.smallInteger("y");
            core.width = c.smallInteger("width");
            core.height = c.smallInteger("height");
            core.snr = numberOrNaN(c, "snr");
            r.cores.push_back(core);
        }
        r.catalog.sources.push_back(std::move(s));
    }
    if (!r.cores.empty() && r.cores.size() != r.catalog.sources.size()) in.fail("sources", "a core for every source or none");
    return r;
}

} // namespace glint
