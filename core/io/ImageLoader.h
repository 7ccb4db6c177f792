// Opens any image file Glint supports. The format is recognised by content, not by extension, and
// every failure is reported as one InputError with a message fit to show the user.
#pragma once

#include "core/io/Image.h"

#include <string>

namespace glint {

enum class FileFormat { Unknown, Fits, Dicom, Png, Pnm, Tiff, Jpeg, Bmp, Jpeg2000, Text };

const char* fileFormatName(FileFormat format);

struct LoadOptions {
    int hdu = -1;   // FITS: -1 = the first HDU that holds an image; otherwise 0 = primary
    int plane = 0;  // FITS cubes: which plane (0-based)
    int frame = 0;  // DICOM multi-frame: which frame (0-based)
};

// Looks at the first bytes of the file. Throws InputError when the file cannot be read.
FileFormat detectFileFormat(const std::string& path);

// Loads the file. Throws InputError (missing, truncated, corrupt, unsupported, absurd dimensions).
Image loadImage(const std::string& path, const LoadOptions& options = {});

// The loaders behind loadImage, one per family (each in its own file).
Image loadFits(const std::string& path, const LoadOptions& options);
Image loadDicom(const std::string& path, const LoadOptions& options);
Image loadRaster(const std::string& path, FileFormat format);   // OpenCV: PNG/PNM/TIFF/JPEG/BMP
Image loadTextMatrix(const std::string& path);                  // CSV/TXT numeric matrix

} // namespace glint
