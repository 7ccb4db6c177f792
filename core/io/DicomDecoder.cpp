// Finds and opens the DICOM plugin (core/io/DicomDecoder.h) once per process.
#include "core/io/DicomDecoder.h"

#include "core/io/AbortGuard.h"
#include "core/io/Plugin.h"
#include "core/util/Printable.h"

#include <string>

namespace glint {

namespace {

struct Loaded {
    const DicomDecoder* decoder = nullptr;
    std::string error;
};

bool guardAgainstAbort(void (*fn)(void*), void* context) {
    return runGuardedAgainstAbort([&] { fn(context); });
}

Loaded load() {
    const OpenedPlugin plugin = openPlugin({"DICOM", "GLINT_DICOM_PLUGIN", GLINT_DICOM_FILE_NAME, GLINT_DICOM_FACTORY_NAME});
    if (!plugin.factory) return {nullptr, plugin.error};
    static const DicomHost host{&guardAgainstAbort};
    Loaded out;
    out.decoder = reinterpret_cast<DicomFactory>(plugin.factory)(&host);
    if (!out.decoder) out.error = "cannot load the DICOM plugin '" + printableMessage(plugin.path) + "': it gave no decoder";
    return out;
}

const Loaded& loaded() { return loadedOnce<&load>(); }

} // namespace

const DicomDecoder* dicomDecoder() { return loaded().decoder; }

std::string dicomDecoderError() { return loaded().error; }

} // namespace glint
