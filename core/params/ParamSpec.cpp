#include "core/params/ParamSpec.h"

#include "core/io/Image.h"
#include "core/util/Errors.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace glint {

namespace {

// The "preset" field: none, auto or a kind's name.
class PresetField final : public ParamField {
public:
    PresetField()
        : ParamField({"preset", "--preset", "auto|sky|mammogram|aerial|other|none", "Preset",
                      "defaults for the image's kind (auto: recognised from the image); options given override them",
                      "", FieldWidget::Hidden}) {
        info_.choices = {{"none", "none"}, {"auto", "auto"}, {"sky", "sky"}, {"mammogram", "mammogram"},
                         {"aerial", "aerial"}, {"other", "other"}};
    }
    Json fromOptionValues(const std::vector<std::string>& values) const override {
        try {
            return Preset::parse(values.back()).text();
        } catch (const UsageError&) {
            throw UsageError("option '--preset' must be " + expected() + " (got '" + values.back() + "')");
        }
    }
    void check(const Json& value, const std::string& what) const override {
        if (!value.is_string()) failParameter(what, expected(), value);
        try {
            Preset::parse(value.get<std::string>());
        } catch (const UsageError&) {
            failParameter(what, expected(), value);
        }
    }
    Json defaultValue() const override { return "none"; }
    std::string defaultText() const override { return "none"; }

private:
    static std::string expected() { return "auto, sky, mammogram, aerial, other or none"; }
};

std::string numberText(double v) {
    std::ostringstream s;
    s << std::setprecision(17) << v;
    const std::string longForm = s.str();
    std::ostringstream shortForm;
    shortForm << std::setprecision(15) << v;
    return std::stod(shortForm.str()) == v ? shortForm.str() : longForm;
}

bool isJsonNumber(const Json& j) { return j.is_number() && !j.is_boolean(); }

} // namespace

// ---- messages ---------------------------------------------------------------------------------------------

std::string jsonText(const Json& value) {
    std::string text = value.dump();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return text;
}

void failParameter(const std::string& what, const std::string& expected, const Json& got) {
    throw UsageError(what + " must be " + expected + " (got " + jsonText(got) + ")");
}

// ---- Preset ---------------------------------------------------------------------------------------------

Preset Preset::parse(const std::string& text) {
    if (text == "none") return {};
    if (text == "auto") return {Mode::Auto, ImageKind::Other};
    return {Mode::Kind, parseImageKind(text)};
}

std::string Preset::text() const {
    switch (mode) {
    case Mode::None: return "none";
    case Mode::Auto: return "auto";
    case Mode::Kind: return imageKindName(kind);
    }
    return "none";
}

bool FieldInfo::appliesWith(const Json& parameters) const {
    if (onlyWhenKey.empty()) return true;
    const auto it = parameters.find(onlyWhenKey);
    if (it == parameters.end()) return false;
    for (const Json& v : onlyWhenValues)
        if (*it == v) return true;
    return false;
}

// ---- fields -------------------------------------------------------------------------------------------------

std::optional<Json> ParamField::presetValue(ImageKind kind) const {
    const auto it = presets_.find(kind);
    if (it == presets_.end()) return std::nullopt;
    return it->second;
}

ParamField& ParamField::presetForEveryKind(const Json& value) {
    for (ImageKind kind : {ImageKind::Sky, ImageKind::Mammogram, ImageKind::Aerial, ImageKind::Other}) preset(kind, value);
    return *this;
}

ParamSpecBase::ParamSpecBase(std::string algorithm) : algorithm_(std::move(algorithm)) {
    fields_.push_back(std::make_unique<PresetField>());
}

ParamField& ParamSpecBase::addField(std::unique_ptr<ParamField> field) {
    for (const auto& f : fields_)
        if (f->info().key == field->info().key || (!field->info().option.empty() && f->info().option == field->info().option))
            throw std::logic_error("parameter spec " + algorithm_ + ": '" + field->info().key + "' declared twice");
    fields_.push_back(std::move(field));
    return *fields_.back();
}

const ParamField* ParamSpecBase::field(const std::string& key) const {
    for (const auto& f : fields_)
        if (f->info().key == key) return f.get();
    return nullptr;
}

std::vector<std::string> ParamSpecBase::options() const {
    std::vector<std::string> out;
    for (const auto& f : fields_)
        if (!f->info().option.empty() && !f->info().flag) out.push_back(f->info().option);
    return out;
}

std::vector<std::string> ParamSpecBase::flagOptions() const {
    std::vector<std::string> out;
    for (const auto& f : fields_)
        if (!f->info().option.empty() && f->info().flag) out.push_back(f->info().option);
    return out;
}

Json ParamSpecBase::request(const ParsedArgs& args) const {
    Json out = Json::object();
    for (const auto& f : fields_) {
        const FieldInfo& info = f->info();
        if (info.option.empty() || !args.has(info.option)) continue;
        out[info.key] = f->fromOptionValues(args.values(info.option));
    }
    return out;
}

void ParamSpecBase::checkRequest(const Json& request, const std::string& source) const {
    if (!request.is_object()) throw UsageError(source + ": the parameters must be a JSON object");
    for (const auto& [key, value] : request.items()) {
        const ParamField* f = field(key);
        if (!f) throw UsageError(source + ": unknown parameter '" + key + "' for " + algorithm_);
        f->check(value, source + ": parameter '" + key + "'");
    }
}

Json ParamSpecBase::defaults() const {
    Json out = Json::object();
    for (const auto& f : fields_) out[f->info().key] = f->defaultValue();
    return out;
}

Json ParamSpecBase::presetValues(ImageKind kind) const {
    Json out = defaults();
    for (const auto& f : fields_)
        if (auto v = f->presetValue(kind)) out[f->info().key] = *v;
    out["preset"] = imageKindName(kind);
    return out;
}

Json ParamSpecBase::applyPreset(const Json& request, const Image* image, ImageKindGuess* guess) const {
    checkRequest(request, "parameters");
    Preset preset;
    if (const auto it = request.find("preset"); it != request.end()) preset = Preset::parse(it->get<std::string>());
    if (preset.mode == Preset::Mode::Auto) {
        if (!image) throw std::logic_error("--preset auto needs the image");
        const ImageKindGuess g = classifyImage(*image);
        if (guess) *guess = g;
        preset = {Preset::Mode::Kind, g.kind};
    }
    Json out = preset.mode == Preset::Mode::Kind ? presetValues(preset.kind) : defaults();
    for (const auto& [key, value] : request.items())
        if (key != "preset") out[key] = value;
    // A preset's value stays out of a field that does not apply with the final values (a filter of the
    // disjoint search when the request asks for overlap mode).
    for (const auto& f : fields_)
        if (!request.contains(f->info().key) && !f->info().appliesWith(out)) out[f->info().key] = f->defaultValue();
    out["preset"] = preset.text();
    return out;
}

std::string ParamSpecBase::helpText() const {
    std::size_t width = 0;
    std::vector<std::pair<std::string, const ParamField*>> rows;
    for (const auto& f : fields_) {
        const FieldInfo& i = f->info();
        if (i.option.empty()) continue;
        std::string head = i.option + (i.flag ? "" : " " + i.valueName);
        width = std::max(width, head.size());
        rows.emplace_back(std::move(head), f.get());
    }
    std::string out;
    for (const auto& [head, f] : rows) {
        const FieldInfo& i = f->info();
        out += "  " + head + std::string(width + 2 - head.size(), ' ') + i.help;
        if (i.repeatable) out += " (repeatable)";
        else if (!i.flag) out += " (default " + f->defaultText() + ")";
        out += "\n";
    }
    return out;
}

std::string ParamSpecBase::synopsis() const {
    std::string out;
    std::size_t line = 0;
    for (const auto& f : fields_) {
        const FieldInfo& i = f->info();
        if (i.option.empty()) continue;
        std::string item = "[" + i.option + (i.flag ? "" : " " + i.valueName) + "]" + (i.repeatable ? "..." : "");
        if (line + item.size() > 90 && line > 0) {
            out += "\n          ";
            line = 0;
        } else if (!out.empty()) {
            out += " ";
            ++line;
        }
        out += item;
        line += item.size();
    }
    return out;
}

// ---- codecs -------------------------------------------------------------------------------------------------

IntegerCodec::Value IntegerCodec::fromJson(const Json& j, const std::string& what) const {
    if (j.is_number_integer()) return j.get<long long>();
    if (isJsonNumber(j)) {
        const double d = j.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) return static_cast<long long>(d);
    }
    failParameter(what, "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi), j);
}

IntegerCodec::Value IntegerCodec::fromText(const std::string& text, const std::string& what) const {
    // parseInteger names the option itself; `what` is "option '--k'".
    const std::string option = what.rfind("option '", 0) == 0 ? what.substr(8, what.size() - 9) : what;
    return parseInteger(text, option);
}

void IntegerCodec::check(Value v, const std::string& what) const {
    if (v > hi && whyAtMost)
        throw UsageError(what + " must be at most " + std::to_string(hi) + " (got " + std::to_string(v) + "): " + whyAtMost);
    if (v < lo || v > hi)
        throw UsageError(what + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + " (got " +
                         std::to_string(v) + ")");
}

void IntegerCodec::describe(FieldInfo& info) const {
    info.minimum = static_cast<double>(lo);
    info.maximum = static_cast<double>(hi);
}

NumberCodec::Value NumberCodec::fromJson(const Json& j, const std::string& what) const {
    if (isJsonNumber(j)) {
        const double d = j.get<double>();
        if (std::isfinite(d)) return d;
    }
    failParameter(what, "a finite number", j);
}

NumberCodec::Value NumberCodec::fromText(const std::string& text, const std::string& what) const {
    const std::string option = what.rfind("option '", 0) == 0 ? what.substr(8, what.size() - 9) : what;
    return parseNumber(text, option);
}

void NumberCodec::check(Value v, const std::string& what) const {
    const bool below = loOpen ? !(v > lo) : !(v >= lo);
    if (!std::isfinite(v) || below || !(v <= hi)) {
        std::string range;
        if (hi == kNoLimit) range = (loOpen ? "> " : ">= ") + text(lo);
        else range = (loOpen ? "in (" : "in [") + text(lo) + ", " + text(hi) + "]";
        throw UsageError(what + " must be " + range + " (got " + text(v) + ")");
    }
}

std::string NumberCodec::text(Value v) const { return numberText(v); }

void NumberCodec::describe(FieldInfo& info) const {
    info.minimum = lo;
    info.maximum = hi == kNoLimit ? 1e9 : hi;
}

SwitchCodec::Value SwitchCodec::fromJson(const Json& j, const std::string& what) const {
    if (!j.is_boolean()) failParameter(what, "true or false", j);
    return j.get<bool>();
}

SwitchCodec::Value SwitchCodec::fromText(const std::string& text, const std::string& what) const {
    if (text == "on" || text == "true") return true;
    if (text == "off" || text == "false") return false;
    throw UsageError(what + " must be on or off (got '" + text + "')");
}

FlagCodec::Value FlagCodec::fromJson(const Json& j, const std::string& what) const {
    if (!j.is_boolean()) failParameter(what, "true or false", j);
    return j.get<bool>();
}

} // namespace glint
