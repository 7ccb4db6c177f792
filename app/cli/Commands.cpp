#include "cli/Commands.h"

namespace glint::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {"info", "glint-cli info IMAGE [--hdu N] [--plane N] [--frame N] [--json FILE|-]",
         "describe an image: size, depth, statistics, HDUs, WCS", &runInfo},
        {"bench",
         "glint-cli bench [brightest|kmax|kmax1d|common|trace|all] [--sizes LIST] [--backends LIST] [--repeat R]\n"
         "          [--report OUT.json|OUT.csv|OUT.html|OUT.md]",
         "time the algorithms on generated cases, with speed-ups against reference and cpu", &runBench},
        {"trace",
         "glint-cli trace IMAGE --from X,Y --to X,Y [--via X,Y]... [--guides N] [--points D] [--half-width W]\n"
         "          [--max-angle DEG] [--score magnitude|sine|ridge] [--width PX] [--polarity bright|dark|both]\n"
         "          [--backend auto|cuda|cpu|reference] [--json FILE|-] [--overlay OUT.png]",
         "trace a line between clicked points (best path over guides, exact DP)", &runTrace},
    };
    return list;
}

} // namespace glint::cli
