// Finds and opens the codecs plugin (core/io/Codecs.h) once per process.
#include "core/io/Codecs.h"

#include "core/io/Image.h"
#include "core/util/ImageBudget.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/io/Plugin.h"

namespace glint {

namespace {

using Loaded = LoadedPlugin<Codecs>;

#if GLINT_WITH_IMGCODECS

// OpenCV's own caps, a backstop behind the header checks of rasterDecodedSize (a format or a header
// variant those do not read); never over a value the user set. imgcodecs reads them once, when it is
// loaded (namespace-scope statics of OpenCV 4's loadsave.cpp), so they are set just before the plugin
// is. (While imgcodecs was linked into the programs it read them before main, and setting them at the
// first imread had no effect.)
void setOpenCvCaps() {
    const std::uint64_t pixels =
        std::min<std::uint64_t>(static_cast<std::uint64_t>(kMaxImagePixels), maxImageBytes() / kWorkBytesPerPixel);
    ::setenv("OPENCV_IO_MAX_IMAGE_PIXELS", std::to_string(std::max<std::uint64_t>(pixels, 1)).c_str(), 0);
    ::setenv("OPENCV_IO_MAX_IMAGE_WIDTH", std::to_string(kMaxImageSide).c_str(), 0);
    ::setenv("OPENCV_IO_MAX_IMAGE_HEIGHT", std::to_string(kMaxImageSide).c_str(), 0);
}

Loaded load() {
    setOpenCvCaps();
    return loadPlugin<Codecs>({"codecs", "GLINT_CODECS_PLUGIN", GLINT_CODECS_FILE_NAME, GLINT_CODECS_FACTORY_NAME}, "codecs");
}

#else

Loaded load() { return {nullptr, "this build of Glint has no raster codecs (GLINT_WITH_IMGCODECS=OFF)"}; }

#endif

const Loaded& loaded() { return loadedOnce<&load>(); }

} // namespace

const Codecs* codecs() { return loaded().instance; }

std::string codecsError() { return loaded().error; }

} // namespace glint
