// Strict reading of result JSON (sessions read results back): a missing field or one of the wrong type
// is an InputError that names it, so that a damaged file is refused before anything is applied.
#pragma once

#include "core/export/JsonOutput.h"

#include <cstdint>
#include <string>
#include <utility>

namespace glint::resultjson {

const Json& field(const Json& object, const char* name, const std::string& what);
const Json& objectField(const Json& object, const char* name, const std::string& what);
const Json& arrayField(const Json& object, const char* name, const std::string& what);
double number(const Json& value, const std::string& what);
std::int64_t integer(const Json& value, const std::string& what);
int smallInteger(const Json& value, const std::string& what);
bool boolean(const Json& value, const std::string& what);
std::string string(const Json& value, const std::string& what);
// [x, y]
std::pair<double, double> point(const Json& value, const std::string& what);
[[noreturn]] void fail(const std::string& what, const std::string& expected);

// An object of a result document and its path in messages ("brightest", "trace.legs[]"): its members read by
// name, each named once (a member `name` is what.name in messages). Whether the JSON is an object at all is
// checked at the first member read (field).
class Object {
public:
    Object(const Json& json, std::string what) : json_(json), what_(std::move(what)) {}
    const std::string& what() const { return what_; }
    std::string path(const char* name) const { return what_ + "." + name; }
    bool has(const char* name) const { return json_.contains(name); }
    const Json& operator[](const char* name) const { return field(json_, name, what_); }
    Object object(const char* name) const { return {objectField(json_, name, what_), path(name)}; }
    const Json& array(const char* name) const { return arrayField(json_, name, what_); }
    double number(const char* name) const { return resultjson::number((*this)[name], path(name)); }
    std::int64_t integer(const char* name) const { return resultjson::integer((*this)[name], path(name)); }
    int smallInteger(const char* name) const { return resultjson::smallInteger((*this)[name], path(name)); }
    bool boolean(const char* name) const { return resultjson::boolean((*this)[name], path(name)); }
    std::string string(const char* name) const { return resultjson::string((*this)[name], path(name)); }
    std::pair<double, double> point(const char* name) const { return resultjson::point((*this)[name], path(name)); }
    [[noreturn]] void fail(const char* name, const std::string& expected) const { resultjson::fail(path(name), expected); }
    [[noreturn]] void fail(const std::string& expected) const { resultjson::fail(what_, expected); }

private:
    const Json& json_;
    std::string what_;
};

} // namespace glint::resultjson
