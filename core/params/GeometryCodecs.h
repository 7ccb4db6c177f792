// Codecs (ParamSpec.h) of the shapes parameters hold: a rectangle X,Y,W,H, a polygon X1,Y1,X2,Y2,..., a point X,Y.
#pragma once

#include "core/geometry/PixelGeometry.h"
#include "core/params/ParamSpec.h"

namespace glint {

// "X,Y,W,H" in whole pixels, positive width and height; JSON [x, y, w, h].
struct RectCodec {
    using Value = PixelRect;
    Json toJson(const Value& r) const { return Json::array({r.x, r.y, r.width, r.height}); }
    Value fromJson(const Json& j, const std::string& what) const;
    Value fromText(const std::string& text, const std::string& what) const;
    void check(const Value& r, const std::string& what) const;
    std::string text(const Value& r) const;
    void describe(FieldInfo&) const {}
};

// "X1,Y1,X2,Y2,..." (at least three points); JSON [[x, y], ...].
struct PolygonCodec {
    using Value = PixelPolygon;
    Json toJson(const Value& p) const;
    Value fromJson(const Json& j, const std::string& what) const;
    Value fromText(const std::string& text, const std::string& what) const;
    void check(const Value& p, const std::string& what) const;
    std::string text(const Value& p) const { return std::to_string(p.points.size()) + " points"; }
    void describe(FieldInfo&) const {}
};

// "X,Y" (finite, real-valued); JSON [x, y]. P has members x and y.
template <class P>
struct PointCodec {
    using Value = P;
    Json toJson(const Value& p) const { return Json::array({p.x, p.y}); }
    Value fromJson(const Json& j, const std::string& what) const {
        if (!j.is_array() || j.size() != 2 || !j[0].is_number() || !j[1].is_number() || j[0].is_boolean() || j[1].is_boolean())
            failParameter(what, "a point [x, y]", j);
        Value p{};
        p.x = j[0].get<double>();
        p.y = j[1].get<double>();
        check(p, what);
        return p;
    }
    Value fromText(const std::string& text, const std::string& what) const {
        const std::string option = what.rfind("option '", 0) == 0 ? what.substr(8, what.size() - 9) : what;
        const std::vector<double> v = parseNumberList(text, option, 2);
        Value p{};
        p.x = v[0];
        p.y = v[1];
        return p;
    }
    void check(const Value& p, const std::string& what) const;
    std::string text(const Value& p) const { return jsonText(toJson(p)); }
    void describe(FieldInfo&) const {}
};

void checkFinitePoint(double x, double y, const std::string& what);
template <class P>
void PointCodec<P>::check(const Value& p, const std::string& what) const {
    checkFinitePoint(p.x, p.y, what);
}

} // namespace glint
