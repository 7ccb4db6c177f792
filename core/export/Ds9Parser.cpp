// Reading DS9 region files (the parser half of Ds9Regions.h).
#include "core/export/Ds9Regions.h"

#include "core/util/Errors.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

namespace glint {

namespace {

const std::set<std::string> kSystems = {"image", "physical", "detector", "amplifier", "linear", "fk4", "b1950",
                                        "fk5", "j2000", "icrs", "galactic", "ecliptic", "wcs"};
const std::set<std::string> kSkySystems = {"fk4", "fk5", "icrs", "galactic", "ecliptic", "wcs"};
// Shapes DS9 writes behind a '#' (its own region types that other tools would not read).
const std::set<std::string> kCommentedShapes = {"text", "vector", "ruler", "compass", "projection", "composite",
                                                "segment", "box", "circle", "polygon", "line", "point"};

std::string trim(const std::string& s) {
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string tagOf(const ExportRegion& r) { return std::string(regionKindName(r.kind)) + " " + std::to_string(r.rank); }

[[noreturn]] void fail(int line, const std::string& what) {
    throw InputError("DS9 region file, line " + std::to_string(line) + ": " + what);
}

// "12.5", "12.5\"", "3'", "1.2d", "03:22:41.7" (sexagesimal: hours when hours is set).
void parseArgument(const std::string& token, bool hours, int line, double& value, char& unit) {
    std::string t = trim(token);
    unit = 0;
    if (t.empty()) fail(line, "empty argument");
    if (t.find(':') != std::string::npos) {
        const bool negative = t[0] == '-';
        double parts[3] = {0, 0, 0};
        std::size_t start = (t[0] == '-' || t[0] == '+') ? 1 : 0;
        for (int i = 0; i < 3 && start <= t.size(); ++i) {
            const std::size_t colon = t.find(':', start);
            const std::string part = t.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
            char* end = nullptr;
            parts[i] = std::strtod(part.c_str(), &end);
            if (part.empty() || *end != '\0') fail(line, "'" + t + "' is not a sexagesimal number");
            if (colon == std::string::npos) break;
            start = colon + 1;
        }
        value = (parts[0] + parts[1] / 60.0 + parts[2] / 3600.0) * (hours ? 15.0 : 1.0) * (negative ? -1.0 : 1.0);
        return;
    }
    const char last = t.back();
    if (last == '"' || last == '\'' || last == 'd' || last == 'r' || last == 'i' || last == 'p') {
        unit = last;
        t.pop_back();
    }
    char* end = nullptr;
    value = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0') fail(line, "'" + token + "' is not a number");
}

// key=value, key={..}, key="..", key='..'; words without '=' continue the previous value ("line=0 0").
std::map<std::string, std::string> parseProperties(const std::string& text) {
    std::map<std::string, std::string> props;
    std::string lastKey;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        if (i >= text.size()) break;
        std::size_t j = i;
        while (j < text.size() && text[j] != '=' && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
        if (j < text.size() && text[j] == '=') {
            const std::string key = lower(text.substr(i, j - i));
            std::size_t k = j + 1;
            std::string value;
            if (k < text.size() && (text[k] == '{' || text[k] == '"' || text[k] == '\'')) {
                const char close = text[k] == '{' ? '}' : text[k];
                const std::size_t end = text.find(close, k + 1);
                value = text.substr(k + 1, end == std::string::npos ? std::string::npos : end - k - 1);
                i = end == std::string::npos ? text.size() : end + 1;
            } else {
                std::size_t end = k;
                while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
                value = text.substr(k, end - k);
                i = end;
            }
            props[key] = value;
            lastKey = key;
        } else {
            if (!lastKey.empty()) {
                std::string& value = props[lastKey];
                value += ' ';
                value += text.substr(i, j - i);
            }
            i = j;
        }
    }
    return props;
}

// Splits a line into statements at ';' outside parentheses, braces and quotes, stopping at a '#'
// outside them (the rest of the line is the properties of the last statement).
struct Statement {
    std::string body;
    std::string props;
};

std::vector<Statement> splitStatements(const std::string& line) {
    std::vector<Statement> out;
    std::string current;
    int depth = 0;
    char quote = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quote) {
            if (c == quote) quote = 0;
            current += c;
            continue;
        }
        if (c == '"' || c == '\'') {
            // A quote right after a number is an arcsec/arcmin unit, not the start of a string.
            if (depth > 0) {
                current += c;
                continue;
            }
            quote = c;
        }
        if (c == '(' || c == '{') ++depth;
        if (c == ')' || c == '}') --depth;
        if (depth == 0 && c == ';') {
            out.push_back({current, ""});
            current.clear();
            continue;
        }
        if (depth == 0 && c == '#') {
            out.push_back({current, line.substr(i + 1)});
            return out;
        }
        current += c;
    }
    out.push_back({current, ""});
    return out;
}

} // namespace

Ds9File parseDs9Regions(const std::string& text) {
    Ds9File file;
    std::string system = "physical"; // DS9's default when a file names none
    int lineNumber = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t eol = text.find('\n', pos);
        std::string raw = text.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
        pos = eol == std::string::npos ? text.size() + 1 : eol + 1;
        ++lineNumber;
        std::string line = trim(raw);
        if (line.empty()) continue;
        if (line[0] == '#') {
            const std::string rest = trim(line.substr(1));
            if (rest.rfind("Region file format", 0) == 0) {
                file.formatLine = line;
                continue;
            }
            // DS9 writes some of its own shapes as comments ("# text(...)"); everything else is a comment.
            const std::size_t paren = rest.find('(');
            if (paren == std::string::npos || !kCommentedShapes.count(lower(trim(rest.substr(0, paren))))) continue;
            line = rest;
        }
        for (const Statement& st : splitStatements(line)) {
            std::string body = trim(st.body);
            if (body.empty()) continue;
            const std::string word = lower(body);
            if (word.rfind("global", 0) == 0 && (word.size() == 6 || std::isspace(static_cast<unsigned char>(word[6])))) {
                for (auto& [k, v] : parseProperties(body.substr(6))) file.global[k] = v;
                continue;
            }
            if (kSystems.count(word)) {
                system = word == "j2000" ? "fk5" : word == "b1950" ? "fk4" : word;
                continue;
            }
            Ds9Shape shape;
            shape.system = system;
            shape.line = lineNumber;
            if (body[0] == '-' || body[0] == '+') {
                shape.exclude = body[0] == '-';
                body = trim(body.substr(1));
            }
            const std::size_t open = body.find('(');
            std::size_t close = std::string::npos;
            for (std::size_t i = open, depth = 0; open != std::string::npos && i < body.size(); ++i) {
                if (body[i] == '(') ++depth;
                if (body[i] == ')' && --depth == 0) {
                    close = i;
                    break;
                }
            }
            if (open == std::string::npos || close == std::string::npos || close < open)
                fail(lineNumber, "expected SHAPE(ARGUMENTS), got '" + body + "'");
            shape.type = lower(trim(body.substr(0, open)));
            if (shape.type.empty()) fail(lineNumber, "a shape without a name");
            const std::string args = body.substr(open + 1, close - open - 1);
            std::size_t start = 0;
            int index = 0;
            while (start <= args.size() && !trim(args).empty()) {
                const std::size_t comma = args.find(',', start);
                double value = 0;
                char unit = 0;
                // In sky systems the first of each coordinate pair is RA, in hours when sexagesimal.
                const bool hours = kSkySystems.count(system) && system != "galactic" && system != "ecliptic" &&
                                   index % 2 == 0;
                parseArgument(args.substr(start, comma == std::string::npos ? std::string::npos : comma - start), hours,
                              lineNumber, value, unit);
                shape.numbers.push_back(value);
                shape.units.push_back(unit);
                ++index;
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
            shape.properties = parseProperties(st.props);
            // A trailing text after ')' such as "text={..}" on the statement itself.
            if (close + 1 < body.size())
                for (auto& [k, v] : parseProperties(body.substr(close + 1))) shape.properties[k] = v;
            file.shapes.push_back(std::move(shape));
        }
    }
    return file;
}

std::vector<ExportRegion> regionsFromDs9(const Ds9File& file) {
    std::vector<ExportRegion> out;
    auto setCommon = [](ExportRegion& r, const Ds9Shape& s) {
        const auto tag = s.properties.find("tag");
        if (tag != s.properties.end()) {
            const std::string& t = tag->second;
            const std::size_t space = t.find(' ');
            if (auto kind = parseRegionKind(t.substr(0, space))) r.kind = *kind;
            if (space != std::string::npos) r.rank = std::atoi(t.c_str() + space + 1);
        }
        const auto text = s.properties.find("text");
        if (text != s.properties.end()) r.label = text->second;
        const auto colour = s.properties.find("color");
        if (colour != s.properties.end() && colour->second.size() == 7 && colour->second[0] == '#')
            r.colour = static_cast<std::uint32_t>(std::strtoul(colour->second.c_str() + 1, nullptr, 16));
    };
    auto toCorner = [](const Ds9Shape& s, std::size_t i) {
        // DS9 image = Glint + 1 and corners sit half a pixel before the centres.
        const double x = s.numbers[i] - 0.5, y = s.numbers[i + 1] - 0.5;
        if (x != std::round(x) || y != std::round(y))
            fail(s.line, "a polygon vertex that is not on the pixel grid");
        return GridCorner{static_cast<int>(x), static_cast<int>(y)};
    };
    const std::string* lastLineTag = nullptr;
    for (const Ds9Shape& s : file.shapes) {
        if (s.system != "image") fail(s.line, "only image coordinates can be read back into pixels (got " + s.system + ")");
        if (s.type == "box") {
            if (s.numbers.size() < 4) fail(s.line, "box needs x, y, width and height");
            if (s.numbers.size() > 4 && s.numbers[4] != 0) fail(s.line, "a rotated box is not a pixel rectangle");
            ExportRegion r;
            r.width = static_cast<int>(std::lround(s.numbers[2]));
            r.height = static_cast<int>(std::lround(s.numbers[3]));
            r.x = static_cast<int>(std::lround(s.numbers[0] - 0.5 - s.numbers[2] / 2.0));
            r.y = static_cast<int>(std::lround(s.numbers[1] - 0.5 - s.numbers[3] / 2.0));
            setCommon(r, s);
            out.push_back(std::move(r));
            lastLineTag = nullptr;
        } else if (s.type == "ellipse") {
            if (s.numbers.size() != 5) fail(s.line, "ellipse needs x, y, a, b and an angle");
            if (!(s.numbers[2] > 0) || !(s.numbers[3] > 0)) fail(s.line, "an ellipse's semi-axes must be positive");
            ExportRegion r;
            r.kind = RegionKind::Source;
            r.ellipse = RegionEllipse{s.numbers[0] - 1.0, s.numbers[1] - 1.0, s.numbers[2], s.numbers[3], s.numbers[4]};
            r.points = ellipsePoints(*r.ellipse);
            setCommon(r, s);
            out.push_back(std::move(r));
            lastLineTag = nullptr;
        } else if (s.type == "line") {
            if (s.numbers.size() != 4) fail(s.line, "line needs x1, y1, x2, y2");
            const auto tag = s.properties.find("tag");
            const std::pair<double, double> a{s.numbers[0] - 1.0, s.numbers[1] - 1.0}, b{s.numbers[2] - 1.0, s.numbers[3] - 1.0};
            const bool continues = lastLineTag && tag != s.properties.end() && *lastLineTag == tag->second &&
                                   !out.empty() && !out.back().points.empty() && out.back().points.back() == a;
            if (!continues) {
                ExportRegion r;
                r.kind = RegionKind::Trace;
                setCommon(r, s);
                r.points.push_back(a);
                out.push_back(std::move(r));
            } else if (out.back().label.empty()) {
                setCommon(out.back(), s);
            }
            out.back().points.push_back(b);
            lastLineTag = tag != s.properties.end() ? &tag->second : nullptr;
        } else if (s.type == "polygon") {
            if (s.numbers.size() < 6 || s.numbers.size() % 2) fail(s.line, "polygon needs three or more x, y pairs");
            CornerRing ring;
            for (std::size_t i = 0; i < s.numbers.size(); i += 2) ring.push_back(toCorner(s, i));
            if (s.exclude) {
                if (out.empty() || out.back().outline.empty()) fail(s.line, "a hole (-polygon) without its polygon");
                out.back().outline.back().holes.push_back(std::move(ring));
                continue;
            }
            const auto tag = s.properties.find("tag");
            const bool samePart = !out.empty() && !out.back().outline.empty() && tag != s.properties.end() &&
                                  tagOf(out.back()) == tag->second;
            if (!samePart) {
                ExportRegion r;
                r.kind = RegionKind::Common;
                setCommon(r, s);
                out.push_back(std::move(r));
            }
            out.back().outline.push_back({std::move(ring), {}});
            lastLineTag = nullptr;
        } else {
            fail(s.line, "Glint does not read '" + s.type + "' regions");
        }
    }
    for (ExportRegion& r : out) r.updateBounds();
    return out;
}

} // namespace glint
