// A small, strict command-line parser for glint-cli: options are declared up front, unknown options and
// malformed values are usage errors (exit code 2) with a message that names the option.
#pragma once

#include "core/geometry/PixelGeometry.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace glint {

struct OptionSpec {
    std::set<std::string> valueOptions; // "--k", "--json", ... (take one value; may repeat)
    std::set<std::string> flags;        // options without a value
};

class ParsedArgs {
public:
    std::vector<std::string> positionals;

    bool has(const std::string& option) const { return options_.count(option) != 0; }
    // The last value given for the option.
    std::optional<std::string> value(const std::string& option) const;
    std::string valueOr(const std::string& option, const std::string& fallback) const;
    // Every value given for a repeatable option, in order.
    std::vector<std::string> values(const std::string& option) const;

    void add(const std::string& option, std::string value) { options_[option].push_back(std::move(value)); }

private:
    std::map<std::string, std::vector<std::string>> options_;
};

// Accepts "--opt value" and "--opt=value". A lone "-" is a positional (standard input/output).
ParsedArgs parseArgs(const std::vector<std::string>& args, const OptionSpec& spec);

// Value parsers: each throws UsageError naming the option when the text is not a valid value.
// Strict: the whole token, std::from_chars; "10abc", "1e999", "nan", "-0", "+3" and values beyond the
// type's range are usage errors. Numbers are finite doubles in decimal or scientific notation.
long long parseInteger(const std::string& text, const std::string& option);
// ... and lo <= value <= hi, else a usage error that names the valid range.
long long parseInteger(const std::string& text, const std::string& option, long long lo, long long hi);
double parseNumber(const std::string& text, const std::string& option);
// K (--k of brightest, kmax1d, batch): 1 .. kMaxKMaxResults, the most results one run may hold in
// memory (algo/kmax/KMax.h: per-result cost against a memory budget); the message names the maximum.
int parseResultCount(const std::string& text, const std::string& option);
// "X,Y" or "X,Y,W,H" etc.: exactly `count` comma-separated numbers (count 0 = any even number >= 6).
std::vector<double> parseNumberList(const std::string& text, const std::string& option, std::size_t count);
// "X,Y,W,H" in whole pixels with a positive width and height.
PixelRect parseRect(const std::string& text, const std::string& option);

} // namespace glint
