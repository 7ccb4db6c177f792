// Strict reading of result JSON (sessions read results back): a missing field or one of the wrong type
// is an InputError that names it, so that a damaged file is refused before anything is applied.
#pragma once

#include "core/export/JsonOutput.h"

#include <cstdint>
#include <string>

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

} // namespace glint::resultjson
