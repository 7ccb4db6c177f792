#include "cli/Args.h"

#include "util/Errors.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace glint::cli {

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
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end == text.c_str() || *end != '\0' || errno == ERANGE)
        throw UsageError("option '" + option + "': '" + text + "' is not an integer");
    return v;
}

double parseNumber(const std::string& text, const std::string& option) {
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
        throw UsageError("option '" + option + "': '" + text + "' is not a finite number");
    return v;
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

} // namespace glint::cli
