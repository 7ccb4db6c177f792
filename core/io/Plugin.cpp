// Finds and opens Glint's plugins (core/io/Plugin.h).
#include "core/io/Plugin.h"

#include "core/util/Printable.h"

#include <cstdlib>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

namespace glint {

namespace {

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

// Where the plugin is looked for (Plugin.h), in order.
std::vector<std::string> candidates(const std::string& fileName) {
    std::vector<std::string> out;
    const std::string folder = programFolder();
    if (!folder.empty()) {
        out.push_back(folder + "/" GLINT_PLUGIN_RELATIVE_DIR "/" + fileName);
        out.push_back(folder + "/" + fileName);
    }
    out.push_back(GLINT_PLUGIN_BUILD_DIR "/" + fileName);
    return out;
}

OpenedPlugin open(const PluginSpec& spec, const std::string& path) {
    OpenedPlugin out;
    out.path = path;
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = ::dlerror();
        out.error = std::string("cannot load the ") + spec.what + " plugin: " + printableMessage(why ? why : path);
        return out;
    }
    ::dlerror();
    out.factory = ::dlsym(handle, spec.factoryName);
    if (!out.factory)
        out.error = std::string("cannot load the ") + spec.what + " plugin '" + printableMessage(path) + "': it has no " +
                    spec.factoryName + " (a plugin of another version of Glint?)";
    return out;
}

} // namespace

std::string pluginGaveNothing(const PluginSpec& spec, const std::string& path, const char* noun) {
    return std::string("cannot load the ") + spec.what + " plugin '" + printableMessage(path) + "': it gave no " + noun;
}

OpenedPlugin openPlugin(const PluginSpec& spec) {
    if (const char* forced = std::getenv(spec.variable); forced && *forced) return open(spec, forced);
    const std::vector<std::string> paths = candidates(spec.fileName);
    for (const std::string& path : paths)
        if (isRegularFile(path)) return open(spec, path);
    std::string looked;
    for (const std::string& path : paths) looked += (looked.empty() ? "" : ", ") + path;
    OpenedPlugin out;
    out.error = printableMessage(std::string("cannot find the ") + spec.what + " plugin " + spec.fileName +
                                     " (looked for " + looked + ")",
                                 600);
    return out;
}

} // namespace glint
