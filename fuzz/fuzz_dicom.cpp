// DICOM through loadDicom: our element-length walk (DicomScan), GDCM's reader under AbortGuard, every
// transfer syntax GDCM decodes (native, deflated, RLE by our own decoder, JPEG, JPEG-LS, JPEG 2000),
// palettes, colour conversion and rescale.
#include "fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    glint::fuzz::setUp("dicom");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = glint::fuzz::writeInput(data, size);
    glint::fuzz::runLoader([&] { (void)glint::loadDicom(path, {}); });
    return 0;
}
