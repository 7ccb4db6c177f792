// glint-cli trace: the best path between clicked points (with --via, several legs), as JSON, text and an
// overlay picture.
#include "core/algo/trace/LineTrace.h"
#include "app/cli/Args.h"
#include "app/cli/Commands.h"
#include "core/export/JsonOutput.h"
#include "core/export/OverlayImage.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"

#include <cmath>
#include <iostream>

namespace glint::cli {

namespace {

TracePoint parsePoint(const std::string& text, const std::string& option) {
    const std::vector<double> v = parseNumberList(text, option, 2);
    return {v[0], v[1]};
}

int parseCount(const ParsedArgs& a, const std::string& option, int fallback) {
    const auto v = a.value(option);
    if (!v) return fallback;
    const long long n = parseInteger(*v, option);
    if (n < -1000000000LL || n > 1000000000LL) throw UsageError("option '" + option + "' is out of range");
    return static_cast<int>(n);
}

Json pointsJson(const std::vector<TracePoint>& points) {
    Json list = Json::array();
    for (const TracePoint& p : points) list.push_back(Json::array({p.x, p.y}));
    return list;
}

void drawOverlay(const Image& image, const TraceResult& result, const TraceParams& params, const std::string& path) {
    OverlayImage overlay(image, defaultDisplaySettings(image));
    const std::uint32_t guideColour = 0x4FC3F7, traceColour = 0xFFEB3B, clickColour = 0xFF5252;
    for (const TraceLeg& leg : result.legs) {
        // The guides, faintly: where the trace was allowed to go.
        const double dx = leg.to.x - leg.from.x, dy = leg.to.y - leg.from.y;
        const double length = std::hypot(dx, dy);
        const double px = -dy / length, py = dx / length;
        for (int k = 1; k <= params.guides; ++k) {
            const double f = static_cast<double>(k) / (params.guides + 1);
            const double cx = leg.from.x + f * dx, cy = leg.from.y + f * dy;
            overlay.drawPolyline({{cx - leg.halfWidth * px, cy - leg.halfWidth * py},
                                  {cx + leg.halfWidth * px, cy + leg.halfWidth * py}},
                                 guideColour, false, 0.35);
        }
    }
    std::vector<std::pair<double, double>> line;
    for (const TracePoint& p : result.polyline()) line.emplace_back(p.x, p.y);
    overlay.drawPolyline(line, traceColour);
    overlay.drawMarker(result.legs.front().from.x, result.legs.front().from.y, clickColour);
    for (const TraceLeg& leg : result.legs) overlay.drawMarker(leg.to.x, leg.to.y, clickColour);
    overlay.drawLegend({{"trace, score " + std::to_string(result.score), traceColour}, {"guides", guideColour}});
    overlay.savePng(path);
}

} // namespace

int runTrace(const std::vector<std::string>& args) {
    const ParsedArgs a = parseArgs(args, {{"--from", "--to", "--via", "--guides", "--points", "--half-width", "--max-angle",
                                           "--score", "--width", "--polarity", "--backend", "--json", "--overlay"},
                                          {}});
    if (a.positionals.size() != 1) throw UsageError("trace takes exactly one IMAGE");
    if (!a.has("--from") || !a.has("--to")) throw UsageError("trace needs --from X,Y and --to X,Y");
    std::vector<TracePoint> clicks{parsePoint(*a.value("--from"), "--from")};
    for (const auto& v : a.values("--via")) clicks.push_back(parsePoint(v, "--via"));
    clicks.push_back(parsePoint(*a.value("--to"), "--to"));

    TraceParams params;
    params.guides = parseCount(a, "--guides", params.guides);
    params.points = parseCount(a, "--points", params.points);
    if (auto v = a.value("--half-width")) {
        params.halfWidth = parseNumber(*v, "--half-width");
        if (params.halfWidth <= 0.0) throw UsageError("option '--half-width' must be more than 0");
    }
    if (auto v = a.value("--max-angle")) params.maxAngleDeg = parseNumber(*v, "--max-angle");
    validateTraceParams(params);

    TraceFieldOptions fieldOptions;
    if (auto v = a.value("--score")) fieldOptions.score = parseTraceScore(*v);
    if (auto v = a.value("--width")) fieldOptions.lineWidth = parseNumber(*v, "--width");
    if (auto v = a.value("--polarity")) fieldOptions.polarity = parseTracePolarity(*v);
    validateTraceFieldOptions(fieldOptions);
    const Backend requested = parseBackend(a.valueOr("--backend", "auto"));

    const std::string path = a.positionals[0];
    const Image image = loadImage(path);
    JobControl job;
    const TraceResult result = glint::runTrace(image, clicks, params, fieldOptions, requested, job);
    const Timing& timing = job.timing();
    const Backend backend = result.backend;
    const std::shared_ptr<const TraceField>& field = result.field;

    Json doc = resultDocument("trace", backendName(backend), result.device, timing);
    doc["image"] = {{"path", path}, {"width", image.width()}, {"height", image.height()}};
    doc["points"] = pointsJson(result.polyline());
    doc["score"] = result.score;
    doc["segment_scores"] = result.segmentScores();
    Json legs = Json::array();
    for (const TraceLeg& leg : result.legs) {
        Json l = Json::object();
        l["from"] = Json::array({leg.from.x, leg.from.y});
        l["to"] = Json::array({leg.to.x, leg.to.y});
        l["half_width"] = leg.halfWidth;
        l["points"] = pointsJson(leg.points);
        l["guide_indices"] = leg.guideIndices;
        l["score"] = leg.score;
        l["segment_scores"] = leg.segmentScores;
        legs.push_back(l);
    }
    doc["legs"] = legs;
    doc["params"] = {{"guides", params.guides},
                     {"points", params.points},
                     {"max_angle", params.maxAngleDeg},
                     {"score", traceScoreName(fieldOptions.score)},
                     {"width", fieldOptions.lineWidth},
                     {"polarity", tracePolarityName(fieldOptions.polarity)}};
    if (fieldOptions.score == TraceScore::Sine) doc["params"]["sine_threshold"] = field->sineThreshold();

    if (auto out = a.value("--overlay")) drawOverlay(image, result, params, *out);
    if (auto dest = a.value("--json")) {
        writeJson(doc, *dest);
        return 0;
    }
    std::cout << path << ": trace of " << result.legs.size() << (result.legs.size() == 1 ? " leg" : " legs")
              << ", score " << result.score << " (" << traceScoreName(fieldOptions.score) << ", "
              << backendName(backend) << ", " << timing.total() << " ms)\n";
    for (const TracePoint& p : result.polyline()) std::cout << "  " << p.x << "," << p.y << "\n";
    return 0;
}

} // namespace glint::cli
