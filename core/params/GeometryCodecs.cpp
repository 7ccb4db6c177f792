#include "core/params/GeometryCodecs.h"

#include "core/util/Errors.h"

#include <climits>
#include <cmath>

namespace glint {

namespace {

std::string optionName(const std::string& what) {
    return what.rfind("option '", 0) == 0 ? what.substr(8, what.size() - 9) : what;
}

bool wholeNumber(const Json& j) {
    if (j.is_number_integer()) return true;
    if (!j.is_number_float()) return false;
    const double d = j.get<double>();
    return std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= INT_MAX;
}

} // namespace

RectCodec::Value RectCodec::fromJson(const Json& j, const std::string& what) const {
    if (!j.is_array() || j.size() != 4) failParameter(what, "a rectangle [x, y, width, height] in whole pixels", j);
    for (const Json& v : j)
        if (!wholeNumber(v) || std::fabs(v.get<double>()) > INT_MAX)
            failParameter(what, "a rectangle [x, y, width, height] in whole pixels", j);
    const Value r{j[0].get<int>(), j[1].get<int>(), j[2].get<int>(), j[3].get<int>()};
    check(r, what);
    return r;
}

RectCodec::Value RectCodec::fromText(const std::string& text, const std::string& what) const {
    return parseRect(text, optionName(what));
}

void RectCodec::check(const Value& r, const std::string& what) const {
    if (r.width <= 0 || r.height <= 0)
        throw UsageError(what + " needs a positive width and height, got " + text(r));
}

std::string RectCodec::text(const Value& r) const {
    return std::to_string(r.x) + "," + std::to_string(r.y) + "," + std::to_string(r.width) + "," + std::to_string(r.height);
}

Json PolygonCodec::toJson(const Value& p) const {
    Json out = Json::array();
    for (const auto& [x, y] : p.points) out.push_back(Json::array({x, y}));
    return out;
}

PolygonCodec::Value PolygonCodec::fromJson(const Json& j, const std::string& what) const {
    const std::string expected = "a polygon [[x, y], ...] of at least three points";
    if (!j.is_array()) failParameter(what, expected, j);
    Value p;
    for (const Json& pt : j) {
        if (!pt.is_array() || pt.size() != 2 || !pt[0].is_number() || !pt[1].is_number() || pt[0].is_boolean() ||
            pt[1].is_boolean())
            failParameter(what, expected, j);
        p.points.emplace_back(pt[0].get<double>(), pt[1].get<double>());
    }
    check(p, what);
    return p;
}

PolygonCodec::Value PolygonCodec::fromText(const std::string& text, const std::string& what) const {
    const std::vector<double> xy = parseNumberList(text, optionName(what), 0);
    Value p;
    for (std::size_t i = 0; i + 1 < xy.size(); i += 2) p.points.emplace_back(xy[i], xy[i + 1]);
    return p;
}

void PolygonCodec::check(const Value& p, const std::string& what) const {
    if (p.points.size() < 3) throw UsageError(what + " needs at least three points");
    for (const auto& [x, y] : p.points) checkFinitePoint(x, y, what);
}

void checkFinitePoint(double x, double y, const std::string& what) {
    if (!std::isfinite(x) || !std::isfinite(y)) throw UsageError(what + " has a point that is not finite");
}

} // namespace glint
