// Turns one frame of decoded DICOM pixel data (as GDCM hands it over) into grey values: stored bits
// masked and sign-extended, 1-bit samples unpacked, colour (RGB, YBR, planar or not) made luminance.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace glint {

enum class DicomColour { Monochrome, Rgb, YbrFull, YbrPartial };

struct DicomPixelLayout {
    int columns = 0;
    int rows = 0;
    int frames = 1;
    int samplesPerPixel = 1;
    int bitsAllocated = 16;
    int bitsStored = 16;
    int highBit = 15;
    bool isSigned = false;
    bool isFloat = false;        // Float/Double Float Pixel Data
    bool planar = false;         // Planar Configuration 1: all R, then all G, then all B
    DicomColour colour = DicomColour::Monochrome;
    bool swapWordHalves = false; // 32-bit samples whose 16-bit halves arrive swapped (see DicomLoader.cpp)

    std::size_t frameBytes() const;  // bytes of one frame in the decoded buffer (1-bit: rounded up)
    std::size_t bufferBytes() const; // all frames
};

struct FrameValues {
    std::vector<double> values; // row 0 first; every value an integer unless isFloat
    long double lowest = 0;      // the range the stored format allows (not the data's own range)
    long double highest = 0;
    bool integer = true;
};

// Throws InputError (with `path` in the message) when the buffer is shorter than the layout needs.
FrameValues extractFrame(const char* buffer, std::size_t length, const DicomPixelLayout& layout, int frame,
                         const std::string& path);

// Decodes one RLE Lossless frame (DICOM PS3.5 annex G: a 64-byte header of segment offsets, then one
// PackBits segment per byte of each sample, most significant first) into the layout GDCM's decoders
// produce: samples interleaved, little endian. GDCM 3.0 scrambles the bytes of RLE colour samples wider
// than 8 bits, so Glint decodes RLE itself. Throws InputError on a damaged or truncated segment.
std::vector<char> decodeRleFrame(const unsigned char* fragment, std::size_t length, const DicomPixelLayout& layout,
                                 const std::string& path);

// Whether a JPEG stream's three components are YCbCr, by the rules libjpeg applies (JFIF marker,
// Adobe transform flag, component identifiers). GDCM hands lossy JPEG components over unconverted.
bool jpegComponentsAreYcbcr(const unsigned char* stream, std::size_t length);

} // namespace glint
