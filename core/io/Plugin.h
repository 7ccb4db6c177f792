// Finds and opens one of Glint's plugins (the raster codecs: core/io/Codecs.h; DICOM:
// core/io/DicomDecoder.h), the same way for each. Looked for, in order: the file named by the plugin's
// environment variable (only there, when set); beside the program's folder where an install puts it
// (bin/../lib/glint/; the build tree has the same layout: build/app/glint-cli and build/tests/test_x find
// build/lib/glint/); the program's own folder; the build tree it was built in.
#pragma once

#include <string>

namespace glint {

struct PluginSpec {
    const char* what;        // for messages: "codecs", "DICOM"
    const char* variable;    // the environment variable that names the file: "GLINT_CODECS_PLUGIN"
    const char* fileName;    // "glint_codecs.so"
    const char* factoryName; // the exported entry point: "glint_codecs_factory_v1"
};

struct OpenedPlugin {
    void* factory = nullptr; // the entry point; null when the plugin was not found or not loaded
    std::string path;        // the file opened ("" when none was found)
    std::string error;       // why factory is null, one printable line; "" when loaded
};

// dlopen (RTLD_NOW | RTLD_LOCAL) of the first candidate that exists, and its entry point. Never unloaded:
// a library without the entry point stays loaded (unloading one that may have run its constructors is
// not safe) but is not used.
OpenedPlugin openPlugin(const PluginSpec& spec);

// The message of a factory that gave nothing: "cannot load the <what> plugin '<path>': it gave no <noun>".
std::string pluginGaveNothing(const PluginSpec& spec, const std::string& path, const char* noun);

// A plugin's one instance (null when the plugin could not be had) and why not (one printable line; "" when loaded).
template <class T>
struct LoadedPlugin {
    const T* instance = nullptr;
    std::string error;
};

// Opens the plugin and calls its factory, `const T* factory(Args...)`, with `args`; `noun` names what the factory
// gives, for the message when it gives nothing ("codecs", "decoder").
template <class T, class... Args>
LoadedPlugin<T> loadPlugin(const PluginSpec& spec, const char* noun, Args... args) {
    const OpenedPlugin plugin = openPlugin(spec);
    if (!plugin.factory) return {nullptr, plugin.error};
    using Factory = const T* (*)(Args...);
    LoadedPlugin<T> out{reinterpret_cast<Factory>(plugin.factory)(args...), {}};
    if (!out.instance) out.error = pluginGaveNothing(spec, plugin.path, noun);
    return out;
}

// What `Load` (a plugin's loader: its LoadedPlugin) gives, computed once per process, on first use (a
// function-local static: thread-safe), for the plugin's accessors.
template <auto Load>
const auto& loadedOnce() {
    static const auto result = Load();
    return result;
}

} // namespace glint
