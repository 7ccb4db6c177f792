#include "core/algo/kmax/KMax1dSpec.h"

#include "core/algo/kmax/KMax.h"
#include "core/util/Errors.h"

#include <climits>

namespace glint {

namespace {

using P = KMax1dRequest;

ParamSpec<P> makeSpec() {
    ParamSpec<P> s("kmax1d");
    s.add({.key = "k", .option = "--k", .valueName = "K", .label = "K", .help = "how many segments (the K largest sums)"},
          IntegerCodec{1, static_cast<long long>(kMaxKMaxResults), kKMaxResultsWhy}, [](P& p) -> long long& { return p.k; });
    // The sequence and the search's tables are held in memory: N is bounded by the budget of KMax.h.
    s.add({.key = "random", .option = "--random", .valueName = "N", .label = "Random",
           .help = "a random sequence of N values instead of a file's"},
          OptionalCodec<IntegerCodec>{{1, static_cast<long long>(kMaxKMaxRandomLength),
                                       "the sequence and the search's tables are held in memory, about 128 bytes a value, within 2 GiB"}},
          [](P& p) -> std::optional<long long>& { return p.random; });
    s.add({.key = "seed", .option = "--seed", .valueName = "S", .label = "Seed", .help = "the random sequence's seed"},
          IntegerCodec{LLONG_MIN, LLONG_MAX}, [](P& p) -> long long& { return p.seed; });
    return s;
}

} // namespace

const ParamSpec<KMax1dRequest>& kmax1dSpec() {
    static const ParamSpec<KMax1dRequest> spec = makeSpec();
    return spec;
}

} // namespace glint
