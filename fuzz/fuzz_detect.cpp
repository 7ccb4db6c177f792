// loadImage: the format detection by content (FITS, DICOM with and without preamble, PNG, PNM, TIFF,
// JPEG, BMP, JPEG 2000, text) and the dispatch to each loader, as glint-cli and the window call it.
#include "fuzz/FuzzSupport.h"

GLINT_FUZZ_LOADER("detect", [](const std::string& path) { (void)glint::loadImage(path); })
