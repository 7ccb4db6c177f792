// The line-trace descriptor: options, result schema, CSV row, region export, overlay, text.
#include "core/algo/trace/TraceAlgorithm.h"

#include "core/algo/Algorithm.h"
#include "core/algo/trace/TraceSpec.h"
#include "core/algo/trace/TraceWidth.h"
#include "core/algo/ResultJson.h"
#include "core/display/Display.h"
#include "core/export/CsvTable.h"
#include "core/export/OverlayImage.h"
#include "core/export/RegionCsv.h"
#include "core/export/TraceNetwork.h"
#include "core/io/Georef.h"
#include "core/util/Errors.h"

#include <chrono>
#include <cmath>
#include <ostream>

namespace glint {

namespace {

Json pointsJson(const std::vector<TracePoint>& points) {
    Json list = Json::array();
    for (const TracePoint& p : points) list.push_back(Json::array({p.x, p.y}));
    return list;
}

class TraceOutcome final : public AlgorithmOutcome {
public:
    TraceOutcome(TraceResult result, TraceParams params, TraceFieldOptions field, double sineThreshold, Backend backend,
                 std::string device, std::string path, int width, int height, Json extraParams, Json parameters)
        : result_(std::move(result)), params_(params), field_(field), sineThreshold_(sineThreshold), backend_(backend),
          device_(std::move(device)), path_(std::move(path)), width_(width), height_(height),
          extraParams_(std::move(extraParams)), parameters_(std::move(parameters)) {}
    Json parameters() const override { return parameters_; }
    // --network: the trace as a GIS layer in the image's CRS (core/export/TraceNetwork.h).
    void setGeoref(std::shared_ptr<const Georef> georef) { georef_ = std::move(georef); }
    // The feature's width measured along the path (TraceWidth.h): JSON width_px, the network's width attributes.
    void setWidth(TraceWidth width) { featureWidth_ = std::move(width); }
    void writeOutput(const std::string& option, const std::string& path) const override {
        if (option == "--network") writeTraceNetwork(path, {networkTrace(result_, 1, featureWidth_.medianPx)}, georef_.get());
        else AlgorithmOutcome::writeOutput(option, path);
    }
    Backend backend() const override { return backend_; }
    std::string device() const override { return device_; }

    Json json() const override {
        Json doc = Json::object();
        doc["image"] = {{"path", path_}, {"width", width_}, {"height", height_}};
        doc.update(traceResultJson(result_));
        doc["params"] = traceParamsJson(params_, field_);
        if (field_.score == TraceScore::Sine) doc["params"]["sine_threshold"] = sineThreshold_;
        doc["params"].update(extraParams_);
        // On a georeferenced image, the length on the map (RegionCsv's mapLength: metres along geodesics over a
        // geographic CRS, else the CRS's unit).
        if (georef_) {
            std::vector<std::pair<double, double>> points;
            for (const TracePoint& p : result_.polyline()) points.emplace_back(p.x, p.y);
            if (const auto length = mapLength(points, *georef_)) {
                doc["map_length"] = length->value;
                doc["map_length_unit"] = length->unit;
            }
        }
        addWidthJson(doc);
        return doc;
    }

    std::vector<std::vector<std::string>> csvRows() const override {
        const auto line = result_.polyline();
        double length = 0.0;
        std::string points;
        for (std::size_t i = 0; i < line.size(); ++i) {
            if (i) length += std::hypot(line[i].x - line[i - 1].x, line[i].y - line[i - 1].y);
            if (i) points += ';';
            points += formatNumber(line[i].x);
            points += ' ';
            points += formatNumber(line[i].y);
        }
        return {{std::to_string(width_), std::to_string(height_), backendName(backend_), formatNumber(result_.score),
                 std::to_string(result_.legs.size()), formatNumber(length), points}};
    }

    RegionDocument regions(const AlgorithmInputs& inputs) const override {
        RegionDocument doc = regionDocumentFor(*inputs.image);
        doc.description = "trace, score " + formatNumber(result_.score) + " (" + traceScoreName(field_.score) + ")";
        doc.regions = {regionFromTrace(result_, 1, {}, {}, featureWidth_.medianPx)};
        return doc;
    }

    void printText(std::ostream& out, const AlgorithmInputs& inputs, double totalMs) const override {
        out << inputs.path << ": trace of " << result_.legs.size() << (result_.legs.size() == 1 ? " leg" : " legs")
            << ", score " << result_.score << " (" << traceScoreName(field_.score) << ", " << backendName(backend_)
            << ", " << totalMs << " ms)";
        if (featureWidth_.medianPx) out << ", width " << *featureWidth_.medianPx << " px";
        out << "\n";
        for (const TracePoint& p : result_.polyline()) out << "  " << p.x << "," << p.y << "\n";
    }

    void writeOverlay(const std::string& path, const AlgorithmInputs& inputs) const override {
        const Image& image = *inputs.image;
        OverlayImage overlay(image, defaultDisplaySettings(image));
        const std::uint32_t guideColour = 0x4FC3F7, traceColour = 0xFFEB3B, clickColour = 0xFF5252;
        for (const TraceLeg& leg : result_.legs) {
            // The guides, faintly: where the trace was allowed to go.
            const double dx = leg.to.x - leg.from.x, dy = leg.to.y - leg.from.y;
            const double length = std::hypot(dx, dy);
            const double px = -dy / length, py = dx / length;
            const int guides = static_cast<int>(leg.guideIndices.size()); // a widened leg has more
            for (int k = 1; k <= guides; ++k) {
                const double f = static_cast<double>(k) / (guides + 1);
                const double cx = leg.from.x + f * dx, cy = leg.from.y + f * dy;
                overlay.drawPolyline({{cx - leg.halfWidth * px, cy - leg.halfWidth * py},
                                      {cx + leg.halfWidth * px, cy + leg.halfWidth * py}},
                                     guideColour, false, 0.35);
            }
        }
        std::vector<std::pair<double, double>> line;
        for (const TracePoint& p : result_.polyline()) line.emplace_back(p.x, p.y);
        overlay.drawPolyline(line, traceColour);
        overlay.drawMarker(result_.legs.front().from.x, result_.legs.front().from.y, clickColour);
        for (const TraceLeg& leg : result_.legs) overlay.drawMarker(leg.to.x, leg.to.y, clickColour);
        overlay.drawLegend(
            {{"trace, score " + std::to_string(result_.score), traceColour}, {"guides", guideColour}});
        overlay.savePng(path);
    }

private:
    // The feature's width along the path (TraceWidth.h): width_px (the median over the samples that found it),
    // width_mean_px and width_polarity per trace; per leg the same, width_samples, width_found and width_along
    // ([arc length px, width px or null] every sample). On a georeferenced image also map_width (and per leg),
    // converted with the line's own map/pixel length ratio as the --network layer's width is (square pixels),
    // unit map_length_unit.
    void addWidthJson(Json& doc) const {
        const auto orNull = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
        const auto mapRatio = [this](const std::vector<TracePoint>& line) -> std::optional<double> {
            if (!georef_ || line.size() < 2) return std::nullopt;
            std::vector<std::pair<double, double>> points;
            double px = 0.0;
            for (std::size_t i = 0; i < line.size(); ++i) {
                points.emplace_back(line[i].x, line[i].y);
                if (i) px += std::hypot(line[i].x - line[i - 1].x, line[i].y - line[i - 1].y);
            }
            const auto length = mapLength(points, *georef_);
            if (!length || !(px > 0.0)) return std::nullopt;
            return length->value / px;
        };
        doc["width_px"] = orNull(featureWidth_.medianPx);
        doc["width_mean_px"] = orNull(featureWidth_.meanPx);
        doc["width_polarity"] = tracePolarityName(featureWidth_.polarity);
        if (const auto ratio = mapRatio(result_.polyline()); ratio && featureWidth_.medianPx)
            doc["map_width"] = *featureWidth_.medianPx * *ratio;
        for (std::size_t i = 0; i < result_.legs.size() && i < featureWidth_.legs.size() && i < doc["legs"].size(); ++i) {
            const TraceLegWidth& w = featureWidth_.legs[i];
            Json& leg = doc["legs"][i];
            leg["width_px"] = orNull(w.medianPx);
            leg["width_mean_px"] = orNull(w.meanPx);
            leg["width_samples"] = w.samples;
            leg["width_found"] = static_cast<int>(w.widths.size());
            Json along = Json::array();
            for (const TraceWidthSample& s : w.along) along.push_back(Json::array({s.arc, orNull(s.width)}));
            leg["width_along"] = std::move(along);
            if (const auto ratio = mapRatio(result_.legs[i].points); ratio && w.medianPx) leg["map_width"] = *w.medianPx * *ratio;
        }
    }

    TraceResult result_;
    TraceWidth featureWidth_;
    TraceParams params_;
    TraceFieldOptions field_;
    double sineThreshold_;
    Backend backend_;
    std::string device_;
    std::string path_;
    int width_, height_;
    Json extraParams_; // width_auto, snap, clicks (as given, before snapping)
    Json parameters_;
    std::shared_ptr<const Georef> georef_;
};

class TraceAlgorithm final : public Algorithm {
public:
    const char* name() const override { return "trace"; }
    const char* summary() const override {
        return "trace a line between clicked points (best path over guides, exact DP)";
    }
    const ParamSpecBase& spec() const override { return traceSpec(); }
    std::vector<std::string> outputOptions() const override { return {"--network"}; }
    std::string outputPlaceholder(const std::string&) const override { return "OUT.gpkg|OUT.shp|OUT.geojson"; }
    void checkOutput(const std::string& option, const std::string& path) const override {
        if (option == "--network") networkFormatForPath(path); // a bad extension is a usage error now
    }
    std::vector<std::string> csvColumns() const override {
        return {"image_width", "image_height", "backend", "score", "legs", "length", "points"};
    }
    std::unique_ptr<AlgorithmOutcome> run(const Json& given, const AlgorithmInputs& inputs, Backend backend,
                                          JobControl& job) const override {
        const Image& image = *inputs.image;
        const auto start = std::chrono::steady_clock::now();
        const Json full = traceSpec().applyPreset(given, &image);
        const TraceRequest request = traceSpec().read(full);
        // Width auto, the field and snapping: as the window resolves them when the first click lands.
        ResolvedTrace resolved = resolveTrace(image, request, job);
        TraceResult result = runTrace(resolved.field, resolved.clicks, resolved.request.params, backend, job);
        // The feature's width along the path, with the field's polarity (measured at the clicks when it is "both").
        const auto widthStart = std::chrono::steady_clock::now();
        TraceWidth width = measureTraceWidth(image, result, resolved.request.field.polarity);
        job.timing().add("width", msSince(widthStart));
        job.timing().setTotal(msSince(start));
        Json extra = Json::object();
        if (request.autoWidth) extra["width_auto"] = true;
        if (request.snap > 0.0) {
            Json given = Json::array();
            for (const TracePoint& c : request.clicks()) given.push_back(Json::array({c.x, c.y}));
            extra["snap"] = request.snap;
            extra["clicks"] = given;
        }
        const double sineThreshold = result.field ? result.field->sineThreshold() : 0.0;
        const Backend ran = result.backend;
        std::string device = result.device;
        result.field.reset(); // the outcome keeps the answer, not the field
        auto outcome = std::make_unique<TraceOutcome>(std::move(result), resolved.request.params, resolved.request.field,
                                                      sineThreshold, ran, std::move(device), inputs.path, image.width(),
                                                      image.height(), std::move(extra),
                                                      traceSpec().write(resolved.request, full["preset"].get<std::string>()));
        outcome->setGeoref(image.meta.georef);
        outcome->setWidth(std::move(width));
        return outcome;
    }

protected:
    void checkRequest(const Json& request) const override {
        if (!request.contains("from") || !request.contains("to") || request["from"].is_null() || request["to"].is_null())
            throw UsageError("trace needs --from X,Y and --to X,Y");
    }
};

} // namespace

Json traceResultJson(const TraceResult& r) {
    Json doc = Json::object();
    doc["points"] = pointsJson(r.polyline());
    doc["score"] = r.score;
    doc["segment_scores"] = r.segmentScores();
    Json legs = Json::array();
    for (const TraceLeg& leg : r.legs) {
        Json l = Json::object();
        l["from"] = Json::array({leg.from.x, leg.from.y});
        l["to"] = Json::array({leg.to.x, leg.to.y});
        l["half_width"] = leg.halfWidth;
        l["points"] = pointsJson(leg.points);
        l["guide_indices"] = leg.guideIndices;
        l["score"] = leg.score;
        l["segment_scores"] = leg.segmentScores;
        l["optimum_score"] = leg.optimumScore;
        l["length"] = leg.length;
        l["mean_score"] = leg.meanScore;
        l["iterations"] = leg.iterations;
        l["widened"] = leg.widened;
        if (leg.refineTries > 0) { // --guides auto refined (or tried to refine) this leg
            l["refined"] = leg.refined;
            l["refine_tries"] = leg.refineTries;
            l["refine_reasons"] = leg.refineReasons;
        }
        l["background_score"] = leg.backgroundScore;
        l["confidence"] = leg.confidence;
        legs.push_back(l);
    }
    doc["legs"] = legs;
    return doc;
}

TraceResult traceResultFromJson(const Json& json) {
    const resultjson::Object in(json, "trace");
    TraceResult r;
    r.score = in.number("score");
    for (const Json& legJson : in.array("legs")) {
        const resultjson::Object l(legJson, in.path("legs") + "[]");
        TraceLeg leg;
        const auto from = l.point("from"), to = l.point("to");
        leg.from = {from.first, from.second};
        leg.to = {to.first, to.second};
        leg.halfWidth = l.number("half_width");
        for (const Json& i : l.array("guide_indices"))
            leg.guideIndices.push_back(resultjson::smallInteger(i, l.path("guide_indices")));
        for (const Json& p : l.array("points")) {
            const auto xy = resultjson::point(p, l.path("points"));
            leg.points.push_back({xy.first, xy.second});
        }
        for (const Json& s : l.array("segment_scores"))
            leg.segmentScores.push_back(resultjson::number(s, l.path("segment_scores")));
        leg.score = l.number("score");
        leg.optimumScore = l.number("optimum_score");
        if (leg.points.size() < 2) l.fail("points", "a path of at least two points");
        // Documents written before the ratio objective have no length, mean score or iterations: derived.
        if (l.has("length")) {
            leg.length = l.number("length");
        } else {
            leg.length = 0.0;
            for (std::size_t i = 1; i < leg.points.size(); ++i)
                leg.length += std::hypot(leg.points[i].x - leg.points[i - 1].x, leg.points[i].y - leg.points[i - 1].y);
        }
        leg.meanScore = l.has("mean_score") ? l.number("mean_score")
                        : leg.length > 0.0  ? leg.score / leg.length
                                            : 0.0;
        leg.iterations = l.has("iterations") ? l.smallInteger("iterations") : 1;
        leg.widened = l.has("widened") ? l.smallInteger("widened") : 0;
        leg.refined = l.has("refined") ? l.smallInteger("refined") : 0;
        leg.refineTries = l.has("refine_tries") ? l.smallInteger("refine_tries") : 0;
        if (l.has("refine_reasons"))
            for (const Json& reason : l.array("refine_reasons")) {
                if (!reason.is_string()) l.fail("refine_reasons", "a list of strings");
                leg.refineReasons.push_back(reason.get<std::string>());
            }
        // Without a measured confidence a leg reads as confident (drawn as before).
        leg.backgroundScore = l.has("background_score") ? l.number("background_score") : 0.0;
        leg.confidence = l.has("confidence") ? l.number("confidence") : 1.0;
        r.legs.push_back(std::move(leg));
    }
    if (r.legs.empty()) in.fail("legs", "a list of at least one leg");
    return r;
}

Json traceParamsJson(const TraceParams& params, const TraceFieldOptions& field) {
    return {{"guides", params.guides},
            {"points", params.points},
            {"max_angle", params.maxAngleDeg},
            {"objective", traceObjectiveName(params.objective)},
            {"max_widenings", params.maxWidenings},
            {"guides_auto", params.autoGuides},
            {"score", traceScoreName(field.score)},
            {"width", field.lineWidth},
            {"polarity", tracePolarityName(field.polarity)},
            {"saturation", field.saturation}};
}

const Algorithm& traceAlgorithm() {
    static const TraceAlgorithm algorithm;
    return algorithm;
}

} // namespace glint
