#include "cli/Commands.h"

namespace glint::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {"info", "glint-cli info IMAGE [--hdu N] [--plane N] [--frame N] [--json FILE|-]",
         "describe an image: size, depth, statistics, HDUs, WCS", &runInfo},
        {"brightest",
         "glint-cli brightest IMAGE [--pivot mean|median|pNN|NUMBER] [--k K] [--mode disjoint|overlap]\n"
         "          [--roi X,Y,W,H] [--exclude X,Y,W,H]... [--exclude-polygon X1,Y1,X2,Y2,...]...\n"
         "          [--backend auto|cuda|cpu|reference] [--json FILE|-] [--overlay OUT.png] [--hdu N] [--plane N] [--frame N]",
         "the brightest rectangle (maximum sum of I - pivot), or the K brightest disjoint ones", &runBrightestCommand},
        {"bench",
         "glint-cli bench [brightest|kmax|kmax1d|common|trace|all] [--sizes LIST] [--backends LIST] [--repeat R]\n"
         "          [--report OUT.json|OUT.csv|OUT.html|OUT.md]",
         "time the algorithms on generated cases, with speed-ups against reference and cpu", &runBench},
    };
    return list;
}

} // namespace glint::cli
