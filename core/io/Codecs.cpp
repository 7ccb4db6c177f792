// Finds and opens the codecs plugin (core/io/Codecs.h) once per process.
#include "core/io/Codecs.h"

#include "core/io/Image.h"
#include "core/util/ImageBudget.h"
#include "core/util/Printable.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#if GLINT_WITH_IMGCODECS
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace glint {

namespace {

struct Loaded {
    const Codecs* codecs = nullptr;
    std::string error;
};

#if GLINT_WITH_IMGCODECS

// The folder of the running program ("" when /proc/self/exe cannot be read).
std::string programFolder() {
    std::string buffer(4096, '\0');
    const ssize_t n = ::readlink("/proc/self/exe", buffer.data(), buffer.size());
    if (n <= 0 || static_cast<std::size_t>(n) >= buffer.size()) return {};
    buffer.resize(static_cast<std::size_t>(n));
    const auto slash = buffer.find_last_of('/');
    return slash == std::string::npos ? std::string() : buffer.substr(0, slash);
}

bool isRegularFile(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Where the plugin is looked for (Codecs.h), in order.
std::vector<std::string> candidates() {
    std::vector<std::string> out;
    const std::string folder = programFolder();
    if (!folder.empty()) {
        out.push_back(folder + "/" GLINT_CODECS_RELATIVE_DIR "/" GLINT_CODECS_FILE_NAME);
        out.push_back(folder + "/" GLINT_CODECS_FILE_NAME);
    }
    out.push_back(GLINT_CODECS_BUILD_PATH);
    return out;
}

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

Loaded open(const std::string& path) {
    Loaded out;
    setOpenCvCaps();
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = ::dlerror();
        out.error = "cannot load the codecs plugin: " + printableMessage(why ? why : path);
        return out;
    }
    ::dlerror();
    auto factory = reinterpret_cast<CodecsFactory>(::dlsym(handle, GLINT_CODECS_FACTORY_NAME));
    if (!factory) {
        // Another version of Glint's plugin, or another library: left loaded (unloading a library that
        // may have run its constructors is not safe), but not used.
        out.error = "cannot load the codecs plugin '" + printableMessage(path) + "': it has no " GLINT_CODECS_FACTORY_NAME
                    " (a plugin of another version of Glint?)";
        return out;
    }
    out.codecs = factory();
    if (!out.codecs) out.error = "cannot load the codecs plugin '" + printableMessage(path) + "': it gave no codecs";
    return out;
}

Loaded load() {
    if (const char* forced = std::getenv("GLINT_CODECS_PLUGIN"); forced && *forced) return open(forced);
    const std::vector<std::string> paths = candidates();
    for (const std::string& path : paths)
        if (isRegularFile(path)) return open(path);
    std::string looked;
    for (const std::string& path : paths) looked += (looked.empty() ? "" : ", ") + path;
    return {nullptr, printableMessage("cannot find the codecs plugin " GLINT_CODECS_FILE_NAME " (looked for " + looked + ")", 600)};
}

#else

Loaded load() { return {nullptr, "this build of Glint has no raster codecs (GLINT_WITH_IMGCODECS=OFF)"}; }

#endif

const Loaded& loaded() {
    static std::once_flag once;
    static Loaded result;
    std::call_once(once, [] { result = load(); });
    return result;
}

} // namespace

const Codecs* codecs() { return loaded().codecs; }

std::string codecsError() { return loaded().error; }

} // namespace glint
