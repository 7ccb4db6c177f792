#include "core/params/ImageKind.h"

#include "core/algo/mammogram/FilmKind.h"
#include "core/io/Image.h"
#include "core/util/EnumNames.h"

#include <cctype>

namespace glint {

namespace {

constexpr EnumName<ImageKind> kKindNames[] = {{ImageKind::Sky, "sky"},
                                               {ImageKind::Mammogram, "mammogram"},
                                               {ImageKind::Aerial, "aerial"},
                                               {ImageKind::Other, "other"}};

std::string lowerTrimmed(const std::string& text) {
    std::size_t begin = 0, end = text.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
    std::string out = text.substr(begin, end - begin);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool mentionsMammography(const std::string& value) {
    const std::string v = lowerTrimmed(value);
    return v.find("mammogram") != std::string::npos || v.find("mammography") != std::string::npos;
}

// Why the metadata names a mammogram, or empty: DICOM's Modality MG, a mammography SOP class (Digital
// Mammography X-Ray Image Storage, 1.2.840.10008.5.1.4.1.1.1.2[.1]) or body part BREAST, or a title or
// description that says so (the bundled sample's PNG text chunk, TIFF tags).
std::string mammogramMetadata(const ImageMetadata& meta) {
    for (const HeaderCard& card : meta.header) {
        if (card.key.rfind("(0008,0060)", 0) == 0) {
            if (lowerTrimmed(card.value) == "mg") return "DICOM Modality MG";
            continue;
        }
        if (card.key.rfind("(0008,0016)", 0) == 0) {
            if (lowerTrimmed(card.value).rfind("1.2.840.10008.5.1.4.1.1.1.2", 0) == 0) return "DICOM mammography SOP class";
            continue;
        }
        if (card.key.rfind("(0018,0015)", 0) == 0) {
            if (lowerTrimmed(card.value) == "breast") return "DICOM body part BREAST";
            continue;
        }
        std::string key = lowerTrimmed(card.key);
        if (key.rfind("tifftag_", 0) == 0) key = key.substr(8);
        if (key != "title" && key != "description" && key != "imagedescription" && key != "documentname") continue;
        if (mentionsMammography(card.value)) return "its " + key + " names a mammogram";
    }
    return {};
}

} // namespace

const char* imageKindName(ImageKind kind) { return enumName(kKindNames, kind); }
ImageKind parseImageKind(std::string_view name) { return parseEnumName(kKindNames, name, "image kind"); }

ImageKindGuess classifyImage(const Image& image) {
    const ImageMetadata& meta = image.meta;
    if (std::string why = mammogramMetadata(meta); !why.empty()) return {ImageKind::Mammogram, why};
    if (meta.format == "FITS") return {ImageKind::Sky, "FITS image"};
    if (meta.georef) return {ImageKind::Aerial, "georeferenced raster"};
    if (meta.wasColour) return {ImageKind::Aerial, "colour photograph"};
    // A film without metadata (mini-MIAS's PGM): by its content.
    bool otherModality = false; // a DICOM image of another modality (CT, MR, ...) is taken at its word
    for (const HeaderCard& card : meta.header) otherModality = otherModality || card.key.rfind("(0008,0060)", 0) == 0;
    if (FilmKindTest film = otherModality ? FilmKindTest{} : mammogramByContent(image); film.mammogram) return {ImageKind::Mammogram, film.reason};
    return {ImageKind::Other, "no sky, mammogram or aerial marks"};
}

} // namespace glint
