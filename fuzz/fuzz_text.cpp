// CSV/TXT numeric matrices through loadTextMatrix: separators, comments, NaN, ragged rows, huge counts.
#include "fuzz/FuzzSupport.h"

GLINT_FUZZ_LOADER("text", [](const std::string& path) { (void)glint::loadTextMatrix(path); })
