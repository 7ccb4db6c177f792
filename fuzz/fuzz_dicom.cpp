// DICOM through loadDicom: our element-length and nesting walk (DicomScan), GDCM's reader under
// AbortGuard, every transfer syntax GDCM decodes (native, deflated, RLE by our own decoder, JPEG, JPEG-LS,
// JPEG 2000), palettes, colour conversion and rescale. An image that loads must hold no infinity, or the
// target aborts: a finding.
#include "fuzz/FuzzSupport.h"

#include <cmath>
#include <cstdlib>

GLINT_FUZZ_LOADER("dicom", [](const std::string& path) {
    const glint::Image image = glint::loadDicom(path, {});
    for (std::size_t i = 0; i < image.pixelCount(); ++i)
        if (std::isinf(image.value(i))) std::abort();
})
