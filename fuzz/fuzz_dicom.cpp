// DICOM through loadDicom: our element-length walk (DicomScan), GDCM's reader under AbortGuard, every
// transfer syntax GDCM decodes (native, deflated, RLE by our own decoder, JPEG, JPEG-LS, JPEG 2000),
// palettes, colour conversion and rescale.
#include "fuzz/FuzzSupport.h"

GLINT_FUZZ_LOADER("dicom", [](const std::string& path) { (void)glint::loadDicom(path, {}); })
