// Finds and opens the DICOM plugin (core/io/DicomDecoder.h) once per process.
#include "core/io/DicomDecoder.h"

#include "core/io/AbortGuard.h"
#include "core/io/Plugin.h"

#include <string>

namespace glint {

namespace {

using Loaded = LoadedPlugin<DicomDecoder>;

bool guardAgainstAbort(void (*fn)(void*), void* context) {
    return runGuardedAgainstAbort([&] { fn(context); });
}

Loaded load() {
    static const DicomHost host{&guardAgainstAbort};
    return loadPlugin<DicomDecoder>({"DICOM", "GLINT_DICOM_PLUGIN", GLINT_DICOM_FILE_NAME, GLINT_DICOM_FACTORY_NAME}, "decoder",
                                    static_cast<const DicomHost*>(&host));
}

const Loaded& loaded() { return loadedOnce<&load>(); }

} // namespace

const DicomDecoder* dicomDecoder() { return loaded().instance; }

std::string dicomDecoderError() { return loaded().error; }

} // namespace glint
