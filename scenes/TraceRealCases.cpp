#include "scenes/TraceRealCases.h"

#include "core/export/JsonOutput.h"
#include "core/jobs/JobControl.h"
#include "core/algo/trace/TraceWidth.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

namespace glint {

namespace {

std::vector<TracePoint> points(const Json& list) {
    std::vector<TracePoint> out;
    for (const Json& p : list) out.push_back({p.at(0).get<double>(), p.at(1).get<double>()});
    return out;
}

double segmentDistance(TracePoint p, TracePoint a, TracePoint b) {
    const double dx = b.x - a.x, dy = b.y - a.y, l2 = dx * dx + dy * dy;
    double t = l2 > 0.0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2 : 0.0;
    t = std::clamp(t, 0.0, 1.0);
    return std::hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

double polylineDistance(TracePoint p, const std::vector<TracePoint>& line) {
    if (line.size() == 1) return std::hypot(p.x - line[0].x, p.y - line[0].y);
    double best = INFINITY;
    for (std::size_t i = 0; i + 1 < line.size(); ++i) best = std::min(best, segmentDistance(p, line[i], line[i + 1]));
    return best;
}

double medianOf(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

TraceRealSet loadTraceRealSet(const std::string& sourceDir) {
    const std::string path = sourceDir + "/tests/data/trace-real/cases.json";
    std::ifstream in(path);
    if (!in) throw InputError("cannot read " + path);
    std::stringstream text;
    text << in.rdbuf();
    TraceRealSet set;
    try {
        const Json doc = Json::parse(text.str());
        set.imagePath = sourceDir + "/" + doc.at("image").get<std::string>();
        struct Feature {
            std::string name;
            TracePolarity polarity;
            std::vector<TracePoint> truth;
            double width;
        };
        std::vector<Feature> features;
        for (const Json& f : doc.at("features"))
            features.push_back({f.at("name").get<std::string>(), parseTracePolarity(f.at("polarity").get<std::string>()),
                                points(f.at("truth")), f.at("width_px").get<double>()});
        for (const Json& c : doc.at("cases")) {
            TraceRealCase rc;
            rc.name = c.at("name").get<std::string>();
            rc.feature = c.at("feature").get<std::string>();
            rc.clicks = points(c.at("clicks"));
            const auto it = std::find_if(features.begin(), features.end(), [&](const Feature& f) { return f.name == rc.feature; });
            if (it == features.end()) throw InputError(path + ": case '" + rc.name + "' names no feature");
            rc.polarity = it->polarity;
            rc.truth = it->truth;
            rc.truthWidth = it->width;
            if (rc.clicks.size() < 2 || rc.truth.size() < 2) throw InputError(path + ": case '" + rc.name + "' is incomplete");
            set.cases.push_back(std::move(rc));
        }
    } catch (const Json::exception& e) {
        throw InputError(path + ": " + e.what());
    }
    return set;
}

TraceRealDistance traceRealDistance(const std::vector<TracePoint>& path, const std::vector<TracePoint>& truth) {
    std::vector<double> d;
    if (path.empty()) return {INFINITY, INFINITY};
    d.push_back(polylineDistance(path.front(), truth));
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        const TracePoint a = path[i], b = path[i + 1];
        const int n = std::max(1, static_cast<int>(std::ceil(std::hypot(b.x - a.x, b.y - a.y) / 0.25)));
        for (int k = 1; k <= n; ++k) {
            const double t = static_cast<double>(k) / n;
            d.push_back(polylineDistance({a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)}, truth));
        }
    }
    TraceRealDistance out;
    out.max = *std::max_element(d.begin(), d.end());
    out.median = medianOf(std::move(d));
    return out;
}

TraceRequest traceRequestPresetAuto(const Image& image) {
    return traceSpec().read(traceSpec().applyPreset(Json{{"preset", "auto"}}, &image));
}

TraceRequest traceRequestBare() { return traceSpec().read(Json::object()); }

TraceResult traceRealCase(const Image& image, const TraceRealCase& c, TraceRequest request, Backend backend,
                          TracePolarity* resolvedPolarity) {
    request.from = c.clicks.front();
    request.to = c.clicks.back();
    request.via.assign(c.clicks.begin() + 1, c.clicks.end() - 1);
    JobControl job;
    const ResolvedTrace r = resolveTrace(image, request, job);
    if (resolvedPolarity) *resolvedPolarity = r.request.field.polarity;
    return runTrace(r.field, r.clicks, r.request.params, backend, job);
}

TraceRealSummary summariseTraceReal(const std::vector<TraceRealCase>& cases, const std::vector<double>& distances) {
    TraceRealSummary s;
    s.cases = static_cast<int>(distances.size());
    for (std::size_t i = 0; i < distances.size(); ++i) {
        s.within2 += distances[i] <= 2.0 ? 1 : 0;
        if (i == 0 || distances[i] > s.worst) {
            s.worst = distances[i];
            s.worstCase = i < cases.size() ? cases[i].name : "";
        }
    }
    s.shareWithin2 = s.cases ? static_cast<double>(s.within2) / s.cases : 0.0;
    s.median = medianOf(distances);
    return s;
}


bool traceRealWidthWithin(double width, double truth) {
    return std::abs(width - truth) <= (truth < 4.0 ? 1.0 : 0.25 * truth);
}

TraceRealWidths evaluateTraceRealWidths(const Image& image, const std::vector<TraceRealCase>& cases, Backend backend) {
    TraceRealWidths out;
    std::vector<double> errTrace, errLine;
    for (const TraceRealCase& c : cases) {
        TraceRealWidthCase r;
        r.name = c.name;
        r.truth = c.truthWidth;
        TracePolarity polarity = TracePolarity::Both;
        const TraceResult result = traceRealCase(image, c, traceRequestPresetAuto(image), backend, &polarity);
        const auto start = std::chrono::steady_clock::now();
        const TraceWidth along = measureTraceWidth(image, result, polarity);
        r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        TraceResult line;
        TraceLeg leg;
        leg.from = c.truth.front();
        leg.to = c.truth.back();
        leg.points = c.truth;
        line.legs = {leg};
        const TraceWidth onLine = measureTraceWidth(image, line, c.polarity);
        r.trace = along.medianPx.value_or(0.0);
        r.centreLine = onLine.medianPx.value_or(0.0);
        for (const TraceLegWidth& w : along.legs) {
            r.samples += w.samples;
            r.found += static_cast<int>(w.widths.size());
        }
        const double e = std::abs(r.trace - r.truth) / r.truth;
        errTrace.push_back(e);
        errLine.push_back(std::abs(r.centreLine - r.truth) / r.truth);
        out.within += traceRealWidthWithin(r.trace, r.truth) ? 1 : 0;
        out.centreLineWithin += traceRealWidthWithin(r.centreLine, r.truth) ? 1 : 0;
        if (e >= out.worstError) {
            out.worstError = e;
            out.worstCase = c.name;
        }
        out.cases.push_back(std::move(r));
    }
    out.medianError = errTrace.empty() ? 0.0 : medianOf(errTrace);
    out.centreLineMedianError = errLine.empty() ? 0.0 : medianOf(errLine);
    return out;
}

} // namespace glint
