#include "core/params/Options.h"

#include "core/algo/kmax/KMax.h"
#include "core/util/Errors.h"

#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>

namespace glint {

std::optional<std::string> ParsedArgs::value(const std::string& option) const {
    auto it = options_.find(option);
    if (it == options_.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
}

std::string ParsedArgs::valueOr(const std::string& option, const std::string& fallback) const {
    auto v = value(option);
    return v ? *v : fallback;
}

std::vector<std::string> ParsedArgs::values(const std::string& option) const {
    auto it = options_.find(option);
    return it == options_.end() ? std::vector<std::string>{} : it->second;
}

ParsedArgs parseArgs(const std::vector<std::string>& args, const OptionSpec& spec) {
    ParsedArgs parsed;
    bool onlyPositionals = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (onlyPositionals || arg.size() < 2 || arg.rfind("--", 0) != 0) {
            if (!onlyPositionals && arg.size() >= 2 && arg[0] == '-' && !std::isdigit(static_cast<unsigned char>(arg[1])) &&
                arg[1] != '.')
                throw UsageError("unknown option '" + arg + "'");
            parsed.positionals.push_back(arg);
            continue;
        }
        if (arg == "--") {
            onlyPositionals = true;
            continue;
        }
        std::string name = arg;
        std::optional<std::string> inlineValue;
        if (auto eq = arg.find('='); eq != std::string::npos) {
            name = arg.substr(0, eq);
            inlineValue = arg.substr(eq + 1);
        }
        if (spec.flags.count(name)) {
            if (inlineValue) throw UsageError("option '" + name + "' takes no value");
            parsed.add(name, "");
        } else if (spec.valueOptions.count(name)) {
            if (inlineValue) {
                parsed.add(name, *inlineValue);
            } else {
                if (i + 1 >= args.size()) throw UsageError("option '" + name + "' needs a value");
                parsed.add(name, args[++i]);
            }
        } else {
            throw UsageError("unknown option '" + name + "'");
        }
    }
    return parsed;
}

long long parseInteger(const std::string& text, const std::string& option) {
    // Whole token, decimal digits with an optional '-', no spaces, no '+', no "-0"; inside long long.
    long long v = 0;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(first, last, v, 10);
    if (text.empty() || ec == std::errc::invalid_argument || end != last || (v == 0 && text[0] == '-'))
        throw UsageError("option '" + option + "': '" + text + "' is not an integer");
    if (ec == std::errc::result_out_of_range)
        throw UsageError("option '" + option + "': '" + text + "' is out of range");
    return v;
}

long long parseInteger(const std::string& text, const std::string& option, long long lo, long long hi) {
    const long long v = parseInteger(text, option);
    if (v < lo || v > hi)
        throw UsageError("option '" + option + "' must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                         " (got " + text + ")");
    return v;
}

double parseNumber(const std::string& text, const std::string& option) {
    // Whole token in decimal or scientific notation; "nan", "inf", hex floats and values beyond double's
    // range are not numbers here.
    double v = 0.0;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(first, last, v, std::chars_format::general);
    if (text.empty() || ec != std::errc() || end != last || !std::isfinite(v))
        throw UsageError("option '" + option + "': '" + text + "' is not a finite number");
    return v;
}

int parseResultCount(const std::string& text, const std::string& option) {
    static_assert(kMaxKMaxResults <= static_cast<std::uint64_t>(INT_MAX));
    const long long k = parseInteger(text, option);
    if (k < 1) throw UsageError("option '" + option + "' must be at least 1 (got " + text + ")");
    if (static_cast<unsigned long long>(k) > kMaxKMaxResults)
        throw UsageError("option '" + option + "' must be at most " + std::to_string(kMaxKMaxResults) + " (got " + text +
                         "): the results of a run are held in memory, about " + std::to_string(kKMaxResultBytes) +
                         " bytes each, within " + std::to_string(kKMaxMemoryBudget >> 30) + " GiB");
    return static_cast<int>(k);
}

std::vector<double> parseNumberList(const std::string& text, const std::string& option, std::size_t count) {
    std::vector<double> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        out.push_back(parseNumber(item, option));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (count > 0 && out.size() != count)
        throw UsageError("option '" + option + "' needs " + std::to_string(count) + " comma-separated numbers, got '" +
                         text + "'");
    if (count == 0 && (out.size() < 6 || out.size() % 2 != 0))
        throw UsageError("option '" + option + "' needs at least three X,Y pairs, got '" + text + "'");
    return out;
}

PixelRect parseRect(const std::string& text, const std::string& option) {
    const std::vector<double> v = parseNumberList(text, option, 4);
    for (double d : v)
        if (d != std::floor(d) || std::fabs(d) > INT_MAX)
            throw UsageError("option '" + option + "' takes whole pixels X,Y,W,H, got '" + text + "'");
    const PixelRect r{static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2]), static_cast<int>(v[3])};
    if (r.width <= 0 || r.height <= 0)
        throw UsageError("option '" + option + "' needs a positive width and height, got '" + text + "'");
    return r;
}

} // namespace glint
