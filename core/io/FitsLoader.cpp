#include "io/ImageLoader.h"
#include "util/Errors.h"
namespace glint {
Image loadFits(const std::string& path, const LoadOptions&) {
    throw InputError("cannot open '" + path + "': FITS reading is not built yet");
}
} // namespace glint
