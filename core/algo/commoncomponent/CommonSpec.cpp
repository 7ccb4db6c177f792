#include "core/algo/commoncomponent/CommonSpec.h"

#include "core/io/Image.h"
#include "core/util/Errors.h"

#include <climits>

namespace glint {

namespace {

using P = CommonComponentParams;

ParamSpec<P> makeSpec() {
    ParamSpec<P> s("common");
    s.add({.key = "tolerance", .option = "--tolerance", .valueName = "T", .label = "Tolerance",
           .help = "pixels match when |A - B| <= T (after normalising B); 0: equal values, as in the paper",
           .group = "Parameters", .widget = FieldWidget::Number, .maximum = 1e12, .decimals = 6},
          NumberCodec{0.0, NumberCodec::kNoLimit}, [](P& p) -> double& { return p.tolerance; });
    s.add({.key = "max_shift", .option = "--max-shift", .valueName = "S|none", .label = "Max shift",
           .help = "search only offsets with |dx| and |dy| up to S pixels (none: every offset with any overlap)",
           .group = "Parameters", .widget = FieldWidget::OptionalNumber, .suffix = " px"},
          OptionalCodec<IntegerCodec>{{0, INT_MAX}},
          getSet([](const P& p) { return p.maxShift >= 0 ? std::optional<long long>(p.maxShift) : std::nullopt; },
                 [](P& p, std::optional<long long> v) { p.maxShift = v ? *v : -1; }));
    // Two exposures or two tiles rarely share their brightness scale exactly: the window maps B onto A.
    s.add({.key = "normalize", .option = "--normalize", .valueName = "none|linear|rank", .label = "Normalise B",
           .help = "how B's values are mapped onto A's before matching: none (the paper's definition), linear (a robust "
                   "gain and offset) or rank (histogram matching)",
           .group = "Parameters", .widget = FieldWidget::Choice},
          ChoiceCodec<CommonNormalize>{{{CommonNormalize::None, "none", nullptr},
                                        {CommonNormalize::Linear, "linear", nullptr},
                                        {CommonNormalize::Rank, "rank", nullptr}},
                                       "normalisation"},
          [](P& p) -> CommonNormalize& { return p.normalize; })
        .presetForEveryKind("linear");
    return s;
}

} // namespace

const ParamSpec<CommonComponentParams>& commonSpec() {
    static const ParamSpec<CommonComponentParams> spec = makeSpec();
    return spec;
}

CommonRun runCommonRequest(const Image& a, const Image& b, const Json& request, Backend backend, JobControl& job) {
    const ParamSpec<CommonComponentParams>& spec = commonSpec();
    const Json full = spec.applyPreset(request, &a); // A's kind
    CommonRun run;
    run.params = spec.read(full);
    try {
        validateMaxShift(run.params.maxShift, a.width(), a.height(), b.width(), b.height());
    } catch (const UsageError& e) {
        throw UsageError(std::string("option '--max-shift': ") + e.what());
    }
    run.result = findCommonComponent(a, b, run.params, backend, job);
    run.parameters = spec.write(run.params, full["preset"].get<std::string>());
    return run;
}

} // namespace glint
