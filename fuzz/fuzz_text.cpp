// CSV/TXT numeric matrices through loadTextMatrix: separators, comments, NaN, ragged rows, huge counts.
#include "fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    glint::fuzz::setUp("text");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = glint::fuzz::writeInput(data, size);
    glint::fuzz::runLoader([&] { (void)glint::loadTextMatrix(path); });
    return 0;
}
