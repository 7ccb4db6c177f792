#include "app/cli/Commands.h"

namespace glint::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {"info", "glint-cli info IMAGE [--hdu N] [--plane N] [--frame N] [--json FILE|-]",
         "describe an image: size, depth, statistics, HDUs, WCS", &runInfo},
        {"brightest",
         "glint-cli brightest IMAGE [--pivot mean|median|pNN|NUMBER] [--k K] [--mode disjoint|overlap]\n"
         "          [--roi X,Y,W,H] [--exclude X,Y,W,H]... [--exclude-polygon X1,Y1,X2,Y2,...]...\n"
         "          [--backend auto|cuda|cpu|reference] [--json FILE|-] [--overlay OUT.png] [--hdu N] [--plane N] [--frame N]\n"
         "          [--regions OUT.reg|OUT.geojson|OUT.csv]...",
         "the brightest rectangle (maximum sum of I - pivot), or the K brightest (disjoint or overlapping)", &runBrightestCommand},
        {"kmax1d", "glint-cli kmax1d (FILE | --random N [--seed S]) --k K [--backend auto|cuda|cpu|reference] [--json FILE|-]",
         "the K largest sums of distinct contiguous segments of a sequence (values in reading order)", &runKMax1dCommand},
        {"bench",
         "glint-cli bench [brightest|kmax|kmax1d|common|trace|all] [--sizes LIST] [--backends LIST] [--repeat R]\n"
         "          [--report OUT.json|OUT.csv|OUT.html|OUT.md]",
         "time the algorithms on generated cases, with speed-ups against reference and cpu", &runBench},
        {"trace",
         "glint-cli trace IMAGE --from X,Y --to X,Y [--via X,Y]... [--guides N] [--points D] [--half-width W]\n"
         "          [--max-angle DEG] [--score magnitude|sine|ridge] [--width PX] [--polarity bright|dark|both]\n"
         "          [--backend auto|cuda|cpu|reference] [--json FILE|-] [--overlay OUT.png]",
         "trace a line between clicked points (best path over guides, exact DP)", &runTrace},
        {"common",
         "glint-cli common IMAGE_A IMAGE_B [--tolerance T] [--max-shift S] [--backend auto|cuda|cpu|reference]\n"
         "          [--json FILE|-] [--overlay OUT.png] [--mask OUT.png]",
         "the largest 4-connected component two images share at some offset", &runCommon},
        {"batch",
         "glint-cli batch --algo info|brightest|trace|common [ALGO OPTIONS] [--shard I/N] [--hdu N] [--plane N] [--frame N]\n"
         "          --out RESULTS.csv|- FILE_OR_DIR...\n"
         "          (trace: the same --from/--to/--via for every file; common: --with IMAGE_B, every file against it)",
         "one algorithm over many files into one CSV; bad files are reported and skipped", &runBatch},
    };
    return list;
}

} // namespace glint::cli
