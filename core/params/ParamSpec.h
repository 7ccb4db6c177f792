// One typed parameter spec per algorithm: the single declaration of its options, defaults, ranges, help lines,
// presets, JSON keys (outputs, --params files, sessions, batch) and the window's fields. From it come the command
// line's options and --help, the strict readers of --params files and sessions, the "parameters" every output
// records, and the window's parameter forms (ui/params/SpecForm.h).
//
// A request is a JSON object of the keys a user gave (from options, a --params file, a session or the window's
// form). spec.request(args) reads options into one; spec.read(json) turns one into the algorithm's typed
// parameters (the defaults for keys not given); spec.write(params) is the JSON of every key. Presets (the
// "preset" key every spec has) fill keys the request does not give with the values for the image's kind
// (applyPreset). Values that may be automatic are AutoValue<T>; the algorithm's resolve step turns each into a
// value before any backend is chosen, so that what an output records under "parameters" has no "auto" left
// and replays the same answer.
#pragma once

#include "core/params/Options.h"
#include "core/export/JsonOutput.h"
#include "core/params/AutoValue.h"
#include "core/params/ImageKind.h"
#include "core/util/Errors.h"

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace glint {

class Image;

// How the window shows a field (ui/params/SpecForm.cpp builds the widget).
enum class FieldWidget {
    Hidden,         // not a form field (drawn on the canvas: an ROI, exclusions, clicks; or command line only)
    Integer,        // spin box
    Number,         // spin box with decimals
    Choice,         // combo box of the codec's choices
    Flag,           // check box
    Bound,          // spin box that also reads "auto" and "none"
    AutoNumber,     // spin box with an "auto" check
    OptionalNumber, // check box (off: none) and a spin box
    Pivot,          // combo box of pivot kinds and the value a kind takes
};

// Everything a layer shows of one parameter.
struct FieldInfo {
    std::string key;       // "max_box": JSON, sessions, batch, the window's field
    std::string option;    // "--max-box"; empty: not a command-line option
    std::string valueName; // "P|auto|none"
    std::string label;     // "Max box"
    std::string help;      // one line: --help and the field's tooltip
    std::string group;     // the window's group box
    FieldWidget widget = FieldWidget::Hidden;
    double minimum = 0.0, maximum = 0.0; // the widget's range (from the codec unless set)
    int decimals = 0;
    double step = 1.0;
    std::string suffix;      // " px"
    std::string specialText; // what the widget shows at its minimum ("none")
    std::vector<std::pair<std::string, std::string>> choices; // (value as in JSON, label)
    bool repeatable = false; // the option may repeat: a list
    bool flag = false;       // takes no value on the command line
    std::string autoWord;    // an AutoValue's word for its automatic state ("auto", "adaptive"); empty: none
    bool allowsNone = false; // an AutoValue that may also be none
    // The field applies only while the field `onlyWhenKey` holds one of these values: otherwise it keeps its
    // default (no preset sets it) and the window disables it.
    std::string onlyWhenKey;
    std::vector<Json> onlyWhenValues;
    bool appliesWith(const Json& parameters) const;
};

// A type-erased field: what the command line, the help text, presets and the window need.
class ParamField {
public:
    explicit ParamField(FieldInfo info) : info_(std::move(info)) {}
    virtual ~ParamField() = default;
    const FieldInfo& info() const { return info_; }
    // The JSON value of the option as given (every value of a repeatable one, in order): UsageError naming the
    // option when the text is not a value the field takes.
    virtual Json fromOptionValues(const std::vector<std::string>& values) const = 0;
    // UsageError "<what> ..." when the value is not one the field takes (its type, range or choices).
    virtual void check(const Json& value, const std::string& what) const = 0;
    virtual Json defaultValue() const = 0;
    // The default as --help shows it.
    virtual std::string defaultText() const = 0;
    // The value of a preset for images of `kind`, if the preset sets this field.
    std::optional<Json> presetValue(ImageKind kind) const;
    // The field's value in the preset for images of `kind` (chainable: field.preset(...).preset(...)).
    ParamField& preset(ImageKind kind, Json value) {
        presets_[kind] = std::move(value);
        return *this;
    }
    // The same value in every kind's preset.
    ParamField& presetForEveryKind(const Json& value);

protected:
    FieldInfo info_;

private:
    std::map<ImageKind, Json> presets_;
};

// The "preset" every spec starts with: none (the defaults), auto (the image's kind) or a kind.
struct Preset {
    enum class Mode { None, Auto, Kind };
    Mode mode = Mode::None;
    ImageKind kind = ImageKind::Other;
    static Preset parse(const std::string& text); // throws UsageError
    std::string text() const;
};

class ParamSpecBase {
public:
    explicit ParamSpecBase(std::string algorithm);
    virtual ~ParamSpecBase() = default;
    ParamSpecBase(const ParamSpecBase&) = delete;
    ParamSpecBase& operator=(const ParamSpecBase&) = delete;
    ParamSpecBase(ParamSpecBase&&) = default;

    const std::string& algorithm() const { return algorithm_; }
    const std::vector<std::unique_ptr<ParamField>>& fields() const { return fields_; }
    const ParamField* field(const std::string& key) const; // null when none has that key
    // The command-line options (every field's that has one), and which of them are flags.
    std::vector<std::string> options() const;
    std::vector<std::string> flagOptions() const;
    // The options as a request: the keys given, checked (UsageError naming the option).
    Json request(const ParsedArgs& args) const;
    // UsageError naming the key when `request` is not an object, holds a key the spec lacks, or a value a field
    // does not take. `source` names where it came from ("--params FILE", "session").
    void checkRequest(const Json& request, const std::string& source) const;
    // Every field's default.
    Json defaults() const;
    // The full parameters of a request for an image: the defaults, under them the preset's values for the
    // image's kind (preset auto: classifyImage; a kind: that kind's; none: nothing) where the request gives no
    // value, then the request's. "preset" in the result is the kind used ("none" when none). `guess` receives
    // what classifyImage found (preset auto only).
    Json applyPreset(const Json& request, const Image* image, ImageKindGuess* guess = nullptr) const;
    // The values a preset of `kind` gives (the defaults, then the kind's values), also for fields that do not
    // apply with them (the window's form shows those when they come to apply).
    Json presetValues(ImageKind kind) const;
    // What can be checked of a request before any image is read (UsageError): its keys and values, then the rules
    // with the defaults (or a named kind's preset) under the keys given.
    virtual void checkEarly(const Json& request) const = 0;
    // One line per option for --help: "  --max-box P|auto|none  <help> (default none)".
    std::string helpText() const;
    // "[--pivot mean|median|pNN|local|NUMBER] [--k K] ..." for the usage line.
    std::string synopsis() const;

protected:
    ParamField& addField(std::unique_ptr<ParamField> field);

private:
    std::string algorithm_;
    std::vector<std::unique_ptr<ParamField>> fields_;
};

// ---- Codecs: one value type's text, JSON and range -------------------------------------------------------
// A codec has: using Value; Json toJson(const Value&); Value fromJson(const Json&, what) (strict, UsageError);
// Value fromText(const std::string&, what) (an option's text); void check(const Value&, what) (range);
// std::string text(const Value&); void describe(FieldInfo&) (widget range and choices).

[[noreturn]] void failParameter(const std::string& what, const std::string& expected, const Json& got);
std::string jsonText(const Json& value); // for messages: the value, shortened

struct IntegerCodec {
    using Value = long long;
    long long lo, hi;
    const char* whyAtMost = nullptr; // why hi is the limit (said when a value passes it)
    Json toJson(Value v) const { return v; }
    Value fromJson(const Json& j, const std::string& what) const;
    Value fromText(const std::string& text, const std::string& what) const;
    void check(Value v, const std::string& what) const;
    std::string text(Value v) const { return std::to_string(v); }
    void describe(FieldInfo& info) const;
};

struct NumberCodec {
    using Value = double;
    // hi = kNoLimit: no upper limit (a message says "> lo" or ">= lo"; the window's spin box stops at 1e9).
    static constexpr double kNoLimit = std::numeric_limits<double>::max();
    double lo, hi;
    bool loOpen = false; // lo itself excluded
    Json toJson(Value v) const { return v; }
    Value fromJson(const Json& j, const std::string& what) const;
    Value fromText(const std::string& text, const std::string& what) const;
    void check(Value v, const std::string& what) const;
    std::string text(Value v) const;
    void describe(FieldInfo& info) const;
};

struct FlagCodec {
    using Value = bool;
    Json toJson(Value v) const { return v; }
    Value fromJson(const Json& j, const std::string& what) const;
    Value fromText(const std::string&, const std::string&) const { return true; }
    void check(Value, const std::string&) const {}
    std::string text(Value v) const { return v ? "on" : "off"; }
    void describe(FieldInfo& info) const { info.flag = true; }
};

// A switch: "on" or "off" on the command line ("true"/"false" too), true or false in JSON.
struct SwitchCodec {
    using Value = bool;
    Json toJson(Value v) const { return v; }
    Value fromJson(const Json& j, const std::string& what) const;
    Value fromText(const std::string& text, const std::string& what) const;
    void check(Value, const std::string&) const {}
    std::string text(Value v) const { return v ? "on" : "off"; }
    void describe(FieldInfo&) const {}
    std::string expected() const { return "on or off"; }
};

// An enumeration by its names.
template <class E>
struct ChoiceCodec {
    using Value = E;
    struct Choice {
        E value;
        const char* name;
        const char* label; // the window's text (the name when null)
    };
    std::vector<Choice> choices;
    std::string what = "value"; // "mode" in "unknown mode 'x'"
    Json toJson(Value v) const { return text(v); }
    Value fromJson(const Json& j, const std::string& what) const {
        if (!j.is_string()) failParameter(what, "one of " + names(), j);
        return fromText(j.get<std::string>(), what);
    }
    Value fromText(const std::string& t, const std::string& whatName) const {
        for (const Choice& c : choices)
            if (t == c.name) return c.value;
        throw UsageError(whatName + ": unknown " + what + " '" + t + "' (expected " + names() + ")");
    }
    void check(Value, const std::string&) const {}
    std::string text(Value v) const {
        for (const Choice& c : choices)
            if (c.value == v) return c.name;
        return choices.front().name;
    }
    std::string names() const {
        std::string out;
        for (std::size_t i = 0; i < choices.size(); ++i)
            out += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + std::string(choices[i].name);
        return out;
    }
    void describe(FieldInfo& info) const {
        info.choices.clear();
        for (const Choice& c : choices) info.choices.emplace_back(c.name, c.label ? c.label : c.name);
    }
};

// AutoValue<T> over an inner codec: the inner value, "auto", or (allowNone) "none". T: the parameter's own type
// (an int member over IntegerCodec's long long).
template <class Inner, class T = typename Inner::Value>
struct AutoCodec {
    using Value = AutoValue<T>;
    Inner inner;
    bool allowNone = true;
    bool allowAuto = true;
    bool zeroIsNone = false;         // the option's text "0" reads as none (the older form of --max-box 0)
    const char* autoWord = "auto";   // the word of the automatic state ("adaptive" where it is a mode, not a value)
    const char* autoAlias = nullptr; // another word read as it
    Json toJson(const Value& v) const {
        if (v.isAuto()) return autoWord;
        if (v.isNone()) return "none";
        return inner.toJson(v.get());
    }
    Value fromJson(const Json& j, const std::string& what) const {
        if (j.is_string()) return word(j.get<std::string>(), what, true);
        const auto v = inner.fromJson(j, what);
        inner.check(v, what);
        return Value::value(static_cast<T>(v));
    }
    Value fromText(const std::string& t, const std::string& what) const {
        if (t == autoWord || (autoAlias && t == autoAlias) || t == "none") return word(t, what, false);
        if (zeroIsNone && t == "0") return Value::none();
        try {
            const auto v = inner.fromText(t, what);
            inner.check(v, what);
            return Value::value(static_cast<T>(v));
        } catch (const UsageError&) {
            throw UsageError(what + " must be " + expected() + " (got '" + t + "')");
        }
    }
    void check(const Value& v, const std::string& what) const {
        if (v.isValue()) inner.check(v.get(), what);
        if (v.isAuto() && !allowAuto) throw UsageError(what + " cannot be auto");
        if (v.isNone() && !allowNone) throw UsageError(what + " cannot be none");
    }
    std::string text(const Value& v) const { return v.isAuto() ? autoWord : v.isNone() ? "none" : inner.text(v.get()); }
    void describe(FieldInfo& info) const {
        inner.describe(info);
        info.autoWord = allowAuto ? autoWord : "";
        info.allowsNone = allowNone;
    }
    std::string expected() const {
        const std::string a = autoWord;
        if constexpr (requires { inner.expected(); }) return inner.expected() + (allowAuto ? ", or " + a : "") + (allowNone ? ", or none" : "");
        std::string words = allowAuto && allowNone ? ", " + a + " or none" : allowAuto ? " or " + a : allowNone ? " or none" : "";
        return "a value in " + rangeText() + words;
    }

private:
    std::string rangeText() const {
        FieldInfo i;
        inner.describe(i);
        return "[" + NumberCodec{}.text(i.minimum) + ", " + NumberCodec{}.text(i.maximum) + "]";
    }
    Value word(const std::string& t, const std::string& what, bool json) const {
        if ((t == autoWord || (autoAlias && t == autoAlias)) && allowAuto) return Value::automatic();
        if (t == "none" && allowNone) return Value::none();
        if (json) {
            Json j = t;
            failParameter(what, expected(), j);
        }
        throw UsageError(what + " must be " + expected() + " (got '" + t + "')");
    }
};

// std::optional<T> over an inner codec: the inner value, or none (JSON null, option text "none").
template <class Inner>
struct OptionalCodec {
    using Value = std::optional<typename Inner::Value>;
    Inner inner;
    Json toJson(const Value& v) const { return v ? inner.toJson(*v) : Json(nullptr); }
    Value fromJson(const Json& j, const std::string& what) const {
        if (j.is_null()) return std::nullopt;
        return inner.fromJson(j, what);
    }
    Value fromText(const std::string& t, const std::string& what) const {
        if (t == "none") return std::nullopt;
        return inner.fromText(t, what);
    }
    void check(const Value& v, const std::string& what) const {
        if (v) inner.check(*v, what);
    }
    std::string text(const Value& v) const { return v ? inner.text(*v) : "none"; }
    void describe(FieldInfo& info) const { inner.describe(info); }
};

// A list: a repeatable option (each value one item), a JSON array.
template <class Inner>
struct ListCodec {
    using Value = std::vector<typename Inner::Value>;
    static constexpr bool kList = true;
    Inner inner;
    Json toJson(const Value& v) const {
        Json out = Json::array();
        for (const auto& item : v) out.push_back(inner.toJson(item));
        return out;
    }
    Value fromJson(const Json& j, const std::string& what) const {
        if (!j.is_array()) failParameter(what, "a list", j);
        Value out;
        for (const Json& item : j) out.push_back(inner.fromJson(item, what));
        return out;
    }
    void check(const Value& v, const std::string& what) const {
        for (const auto& item : v) inner.check(item, what);
    }
    std::string text(const Value& v) const { return v.empty() ? "none" : std::to_string(v.size()) + " given"; }
    void describe(FieldInfo& info) const {
        inner.describe(info);
        info.repeatable = true;
    }
};

// ---- Typed fields and the spec ----------------------------------------------------------------------------

template <class P>
class TypedField : public ParamField {
public:
    using ParamField::ParamField;
    virtual void read(P& params, const Json& value, const std::string& what) const = 0;
    virtual Json write(const P& params) const = 0;
    virtual void validate(const P& params, const std::string& what) const = 0;
};

// A field's value where it is not one member: get(const P&) -> Value, set(P&, Value).
template <class Get, class Set>
struct GetSet {
    Get get;
    Set set;
};
template <class Get, class Set>
GetSet<Get, Set> getSet(Get get, Set set) {
    return {get, set};
}

template <class P, class Codec, class Access>
class CodecField final : public TypedField<P> {
public:
    CodecField(FieldInfo info, Codec codec, Access access) : TypedField<P>(std::move(info)), codec_(std::move(codec)), access_(access) {
        FieldInfo described = this->info_;
        codec_.describe(described);
        // Ranges, choices and flags come from the codec unless the declaration set them.
        if (this->info_.minimum == 0.0 && this->info_.maximum == 0.0) {
            this->info_.minimum = described.minimum;
            this->info_.maximum = described.maximum;
        }
        if (this->info_.choices.empty()) this->info_.choices = described.choices;
        this->info_.repeatable = described.repeatable;
        this->info_.flag = described.flag;
        this->info_.autoWord = described.autoWord;
        this->info_.allowsNone = described.allowsNone;
    }
    Json fromOptionValues(const std::vector<std::string>& values) const override {
        const std::string what = "option '" + this->info_.option + "'";
        if constexpr (isList) {
            typename Codec::Value list;
            for (const std::string& v : values) list.push_back(codec_.inner.fromText(v, what));
            codec_.check(list, what);
            return codec_.toJson(list);
        } else {
            const auto value = codec_.fromText(values.back(), what);
            codec_.check(value, what);
            return codec_.toJson(value);
        }
    }
    void check(const Json& value, const std::string& what) const override { codec_.check(codec_.fromJson(value, what), what); }
    Json defaultValue() const override { return codec_.toJson(get(P{})); }
    std::string defaultText() const override { return codec_.text(get(P{})); }
    void read(P& params, const Json& value, const std::string& what) const override {
        auto v = codec_.fromJson(value, what);
        codec_.check(v, what);
        set(params, std::move(v));
    }
    Json write(const P& params) const override { return codec_.toJson(get(params)); }
    void validate(const P& params, const std::string& what) const override { codec_.check(get(params), what); }

private:
    static constexpr bool isList = requires { Codec::kList; };
    static constexpr bool isGetSet = requires(Access a) { a.get; a.set; };
    typename Codec::Value get(const P& params) const {
        if constexpr (isGetSet) return access_.get(params);
        else return access_(const_cast<P&>(params));
    }
    void set(P& params, typename Codec::Value v) const {
        if constexpr (isGetSet) access_.set(params, std::move(v));
        else access_(params) = std::move(v);
    }
    Codec codec_;
    Access access_;
};

template <class P>
class ParamSpec final : public ParamSpecBase {
public:
    explicit ParamSpec(std::string algorithm) : ParamSpecBase(std::move(algorithm)) {}

    // Declares a field: `access` maps parameters to the field's value (a reference into them).
    template <class Codec, class Access>
    ParamField& add(FieldInfo info, Codec codec, Access access) {
        auto field = std::make_unique<CodecField<P, Codec, Access>>(std::move(info), std::move(codec), access);
        typed_.push_back(field.get());
        return addField(std::move(field));
    }
    // A check across fields (UsageError), run by read() and validate().
    void addRule(std::function<void(const P&)> rule) { rules_.push_back(std::move(rule)); }

    // The typed parameters of a JSON object (the defaults for keys it lacks): UsageError naming the key for a
    // key the spec lacks or a value a field does not take. "preset" is read past (applyPreset used it).
    P read(const Json& parameters, const std::string& source = "parameters") const {
        checkRequest(parameters, source);
        P p{};
        for (const TypedField<P>* f : typed_) {
            const auto it = parameters.find(f->info().key);
            if (it != parameters.end()) f->read(p, *it, "parameter '" + f->info().key + "'");
        }
        for (const auto& rule : rules_) rule(p);
        return p;
    }
    void checkEarly(const Json& request) const override {
        checkRequest(request, "parameters");
        const auto preset = request.find("preset");
        if (preset != request.end() && *preset != "auto" && *preset != "none") {
            read(applyPreset(request, nullptr));
            return;
        }
        Json probe = request;
        probe.erase("preset");
        read(probe);
    }
    // Every field's value, in the spec's order ("preset" first, as `preset` says).
    Json write(const P& p, const std::string& preset = "none") const {
        Json out = Json::object();
        out["preset"] = preset;
        for (const TypedField<P>* f : typed_) out[f->info().key] = f->write(p);
        return out;
    }
    // UsageError when a value is out of its field's range or a rule fails (callers that fill P themselves).
    void validate(const P& p) const {
        for (const TypedField<P>* f : typed_) f->validate(p, whatOf(*f));
        for (const auto& rule : rules_) rule(p);
    }

private:
    static std::string whatOf(const ParamField& f) { return "parameter '" + f.info().key + "'"; }
    std::vector<const TypedField<P>*> typed_;
    std::vector<std::function<void(const P&)>> rules_;
};

} // namespace glint
