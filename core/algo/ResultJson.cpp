#include "core/algo/ResultJson.h"

#include "core/util/Errors.h"

#include <climits>
#include <cmath>

namespace glint::resultjson {

void fail(const std::string& what, const std::string& expected) {
    throw InputError("result: '" + what + "' should be " + expected);
}

const Json& field(const Json& object, const char* name, const std::string& what) {
    if (!object.is_object()) fail(what, "an object");
    const auto it = object.find(name);
    if (it == object.end()) fail(what + "." + name, "present");
    return *it;
}

const Json& objectField(const Json& object, const char* name, const std::string& what) {
    const Json& v = field(object, name, what);
    if (!v.is_object()) fail(what + "." + name, "an object");
    return v;
}

const Json& arrayField(const Json& object, const char* name, const std::string& what) {
    const Json& v = field(object, name, what);
    if (!v.is_array()) fail(what + "." + name, "a list");
    return v;
}

double number(const Json& value, const std::string& what) {
    if (!value.is_number()) fail(what, "a number");
    const double v = value.get<double>();
    if (!std::isfinite(v)) fail(what, "a finite number");
    return v;
}

std::int64_t integer(const Json& value, const std::string& what) {
    if (value.is_number_integer()) return value.get<std::int64_t>();
    if (value.is_number_unsigned()) {
        const auto u = value.get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(u);
    }
    // Some writers (Qt's, for one) write a whole number as a double.
    if (value.is_number_float()) {
        const double d = value.get<double>();
        if (d == std::floor(d) && std::fabs(d) < 9007199254740992.0) return static_cast<std::int64_t>(d);
    }
    fail(what, "a whole number");
}

int smallInteger(const Json& value, const std::string& what) {
    const std::int64_t v = integer(value, what);
    if (v < INT_MIN || v > INT_MAX) fail(what, "a whole number within 32 bits");
    return static_cast<int>(v);
}

bool boolean(const Json& value, const std::string& what) {
    if (!value.is_boolean()) fail(what, "true or false");
    return value.get<bool>();
}

std::string string(const Json& value, const std::string& what) {
    if (!value.is_string()) fail(what, "a string");
    return value.get<std::string>();
}

std::pair<double, double> point(const Json& value, const std::string& what) {
    if (!value.is_array() || value.size() != 2) fail(what, "[x, y]");
    return {number(value[0], what), number(value[1], what)};
}

} // namespace glint::resultjson
