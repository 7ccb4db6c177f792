#include "io/ImageLoader.h"
#include "util/Errors.h"
namespace glint {
Image loadDicom(const std::string& path, const LoadOptions&) {
    throw InputError("cannot open '" + path + "': DICOM reading is not built yet");
}
} // namespace glint
