#include "cli/Commands.h"

namespace glint::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {"info", "glint-cli info IMAGE [--hdu N] [--plane N] [--frame N] [--json FILE|-]",
         "describe an image: size, depth, statistics, HDUs, WCS", &runInfo},
    };
    return list;
}

} // namespace glint::cli
