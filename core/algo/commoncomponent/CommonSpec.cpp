#include "core/algo/commoncomponent/CommonSpec.h"

#include "core/io/Image.h"
#include "core/util/Errors.h"

#include <climits>
#include <limits>

namespace glint {

namespace {

using P = CommonComponentParams;

ParamSpec<P> makeSpec() {
    ParamSpec<P> s("common");
    {
        FieldInfo info{"tolerance", "--tolerance", "T", "Tolerance",
                       "pixels match when |A - B| <= T (after normalising B); 0: equal values, as in the paper", "Parameters",
                       FieldWidget::Number};
        info.decimals = 6;
        info.maximum = 1e12;
        s.add(info, NumberCodec{0.0, std::numeric_limits<double>::max()}, [](P& p) -> double& { return p.tolerance; });
    }
    {
        FieldInfo info{"max_shift", "--max-shift", "S|none", "Max shift",
                       "search only offsets with |dx| and |dy| up to S pixels (none: every offset with any overlap)",
                       "Parameters", FieldWidget::OptionalNumber};
        info.suffix = " px";
        s.add(info, OptionalCodec<IntegerCodec>{{0, INT_MAX}},
              getSet([](const P& p) { return p.maxShift >= 0 ? std::optional<long long>(p.maxShift) : std::nullopt; },
                     [](P& p, std::optional<long long> v) { p.maxShift = v ? *v : -1; }));
    }
    {
        FieldInfo info{"normalize", "--normalize", "none|linear|rank", "Normalise B",
                       "how B's values are mapped onto A's before matching: none (the paper's definition), linear (a robust "
                       "gain and offset) or rank (histogram matching)",
                       "Parameters", FieldWidget::Choice};
        ParamField& f = s.add(info,
                              ChoiceCodec<CommonNormalize>{{{CommonNormalize::None, "none", nullptr},
                                                            {CommonNormalize::Linear, "linear", nullptr},
                                                            {CommonNormalize::Rank, "rank", nullptr}},
                                                           "normalisation"},
                              [](P& p) -> CommonNormalize& { return p.normalize; });
        // Two exposures or two tiles rarely share their brightness scale exactly: the window maps B onto A.
        for (ImageKind kind : {ImageKind::Sky, ImageKind::Mammogram, ImageKind::Aerial, ImageKind::Other})
            f.setPreset(kind, "linear");
    }
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
