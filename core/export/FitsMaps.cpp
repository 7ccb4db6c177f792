#include "core/export/FitsMaps.h"

#include "core/export/FitsMemoryFile.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

namespace glint {

namespace {

template <class T>
std::string mapBytes(int width, int height, const std::vector<T>& values, const FitsHeaderContext* imageHeader,
                     const std::string& history) {
    constexpr bool isFloat = std::is_same_v<T, float>;
    if (width < 1 || height < 1 || values.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height))
        throw OutputError("cannot write the FITS map: " + std::to_string(values.size()) + " values for " +
                          std::to_string(width) + " x " + std::to_string(height) + " pixels");
    if (imageHeader && (imageHeader->width != width || imageHeader->height != height))
        throw OutputError("cannot write the FITS map: it is " + std::to_string(width) + " x " + std::to_string(height) +
                          " pixels, the image " + std::to_string(imageHeader->width) + " x " +
                          std::to_string(imageHeader->height));
    FitsMemoryFile file("the FITS map");
    fitsfile* f = file.get();
    int status = 0;
    long axes[2] = {width, height};
    fits_create_img(f, isFloat ? FLOAT_IMG : LONG_IMG, 2, axes, &status);
    file.check(status, "image HDU");
    if (imageHeader) {
        for (const std::string& card : imageHeader->cards) {
            const std::string key = cardKey(card);
            if (isWcsKeyword(key) || key == "OBJECT" || (isFloat && key == "BUNIT"))
                fits_write_record(f, card.c_str(), &status);
        }
    }
    fits_write_key(f, TSTRING, "ORIGIN", const_cast<char*>("Glint"), "written by Glint", &status);
    fits_write_history(f, history.c_str(), &status);
    file.check(status, "keywords");
    fits_write_img(f, isFloat ? TFLOAT : TINT, 1, static_cast<LONGLONG>(values.size()), const_cast<T*>(values.data()),
                   &status);
    file.check(status, "pixels");
    return file.bytes();
}

} // namespace

std::string fitsMapBytes(int width, int height, const std::vector<std::int32_t>& values,
                         const FitsHeaderContext* imageHeader, const std::string& history) {
    static_assert(sizeof(int) == sizeof(std::int32_t), "CFITSIO's TINT is 32 bits");
    return mapBytes(width, height, values, imageHeader, history);
}

std::string fitsMapBytes(int width, int height, const std::vector<float>& values,
                         const FitsHeaderContext* imageHeader, const std::string& history) {
    return mapBytes(width, height, values, imageHeader, history);
}

void writeFitsMap(const std::string& path, int width, int height, const std::vector<std::int32_t>& values,
                  const FitsHeaderContext* imageHeader, const std::string& history) {
    writeFileAtomically(path, fitsMapBytes(width, height, values, imageHeader, history));
}

void writeFitsMap(const std::string& path, int width, int height, const std::vector<float>& values,
                  const FitsHeaderContext* imageHeader, const std::string& history) {
    writeFileAtomically(path, fitsMapBytes(width, height, values, imageHeader, history));
}

} // namespace glint
