#include "core/io/ImageLoader.h"

#include "core/util/Errors.h"
#include "core/util/InputFile.h"

#include <array>
#include <cctype>
#include <cstring>

namespace glint {

const char* fileFormatName(FileFormat format) {
    switch (format) {
    case FileFormat::Fits: return "FITS";
    case FileFormat::Dicom: return "DICOM";
    case FileFormat::Png: return "PNG";
    case FileFormat::Pnm: return "PGM";
    case FileFormat::Tiff: return "TIFF";
    case FileFormat::Jpeg: return "JPEG";
    case FileFormat::Bmp: return "BMP";
    case FileFormat::Jpeg2000: return "JPEG2000";
    case FileFormat::Text: return "CSV";
    case FileFormat::Unknown: break;
    }
    return "unknown";
}

namespace {

bool startsWith(const std::string& bytes, const char* prefix, std::size_t offset = 0) {
    const std::size_t n = std::strlen(prefix);
    return bytes.size() >= offset + n && bytes.compare(offset, n, prefix) == 0;
}

bool looksLikeText(const std::string& bytes) {
    if (bytes.empty()) return false;
    // Printable ASCII and white space only: the text loader then says which token is not a number.
    for (unsigned char c : bytes)
        if (!(c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f))) return false;
    return true;
}

// DICOM without the 128-byte preamble (old ACR-NEMA style, or a dataset saved bare): it opens with an
// element of group 0x0002 or 0x0008, little or big endian, explicit VR (two capital letters) or
// implicit (a 32-bit length, small for these groups).
bool looksLikeBareDicom(const std::string& bytes) {
    if (bytes.size() < 8) return false;
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
    const bool explicitVr = std::isupper(b(4)) && std::isupper(b(5));
    const bool little = (b(0) == 0x02 || b(0) == 0x08) && b(1) == 0x00 && b(3) == 0x00;
    const bool big = b(0) == 0x00 && (b(1) == 0x02 || b(1) == 0x08) && b(2) == 0x00;
    if (little) return explicitVr || (b(6) == 0 && b(7) == 0);
    if (big) return explicitVr || (b(4) == 0 && b(5) == 0);
    return false;
}

} // namespace

FileFormat detectFileFormat(const std::string& path) {
    // Only regular files: a FIFO, device or socket is refused here, before any library opens it.
    const InputFile file(path);
    const std::string head = file.read(512);
    if (head.empty()) throw InputError("cannot open '" + path + "': the file is empty");

    if (startsWith(head, "SIMPLE  =")) return FileFormat::Fits;
    if (startsWith(head, "DICM", 128)) return FileFormat::Dicom;
    if (startsWith(head, "\x89PNG\r\n\x1a\n")) return FileFormat::Png;
    if (head.size() >= 2 && head[0] == 'P' && head[1] >= '1' && head[1] <= '6') return FileFormat::Pnm;
    if (head.compare(0, 4, std::string("II*\0", 4)) == 0 || head.compare(0, 4, std::string("MM\0*", 4)) == 0 ||
        head.compare(0, 4, std::string("II+\0", 4)) == 0 || head.compare(0, 4, std::string("MM\0+", 4)) == 0) // BigTIFF
        return FileFormat::Tiff;
    if (head.size() >= 3 && static_cast<unsigned char>(head[0]) == 0xFF && static_cast<unsigned char>(head[1]) == 0xD8 &&
        static_cast<unsigned char>(head[2]) == 0xFF)
        return FileFormat::Jpeg;
    if (startsWith(head, "BM")) return FileFormat::Bmp;
    if (head.compare(0, 12, std::string("\0\0\0\x0CjP  \r\n\x87\n", 12)) == 0) return FileFormat::Jpeg2000;
    if (looksLikeBareDicom(head)) return FileFormat::Dicom;
    if (looksLikeText(head)) return FileFormat::Text;
    return FileFormat::Unknown;
}

Image loadImage(const std::string& path, const LoadOptions& options) {
    const FileFormat format = detectFileFormat(path);
    // Options that do not apply to the format are errors, not silently ignored.
    if (options.frame != 0 && format != FileFormat::Dicom)
        throw InputError("cannot open '" + path + "': --frame " + std::to_string(options.frame) +
                         " selects a frame of a DICOM multi-frame file; this is a " + fileFormatName(format) +
                         " file" + (format == FileFormat::Fits ? " (FITS cubes take --plane)" : ""));
    if (options.plane != 0 && format != FileFormat::Fits)
        throw InputError("cannot open '" + path + "': --plane " + std::to_string(options.plane) +
                         " selects a plane of a FITS cube; this is a " + fileFormatName(format) + " file" +
                         (format == FileFormat::Dicom ? " (DICOM multi-frame files take --frame)" : ""));
    Image image;
    switch (format) {
    case FileFormat::Fits: image = loadFits(path, options); break;
    case FileFormat::Dicom: image = loadDicom(path, options); break;
    case FileFormat::Png:
    case FileFormat::Pnm:
    case FileFormat::Tiff:
    case FileFormat::Jpeg:
    case FileFormat::Bmp: image = loadRaster(path, format); break;
    case FileFormat::Text: image = loadTextMatrix(path); break;
    case FileFormat::Jpeg2000:
        throw InputError("cannot open '" + path + "': bare JPEG 2000 files are not supported (DICOM with JPEG 2000 is)");
    case FileFormat::Unknown:
        throw InputError("cannot open '" + path + "': unsupported or unrecognised file format");
    }
    image.meta.path = path;
    return image;
}

} // namespace glint
