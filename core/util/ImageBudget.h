// How much memory one image may take, checked from the file's header before anything is decoded, so
// that a small file declaring a huge image (a decompression bomb, a damaged header) is refused at once
// instead of exhausting memory. The limit counts the decoded samples *and* Glint's working copies:
//
//   needed = decoded bytes (width × height × channels × bytes a sample × frames decoded together)
//          + width × height × kWorkBytesPerPixel
//
// kWorkBytesPerPixel = 17 assumes, per pixel of the image worked on: the Image's samples in their
// widest type (8 bytes: int64/double, which the FITS and DICOM rescaling and the CSV loader produce),
// one double work array of preprocessing (8 bytes) and the blank mask (1 byte). The decoder's own
// buffer (the decoded bytes) is counted once more on top. The old cap of 2^31 pixels alone admitted
// images needing 2^31 × 17 bytes = 34 GiB and more.
#pragma once

#include "core/util/ResourceLimits.h"

#include <cstdint>
#include <string>

namespace glint {

constexpr std::uint64_t kWorkBytesPerPixel = 17;

// The limit in bytes. Set by setMaxImageBytes(), else by the environment variable
// GLINT_MAX_IMAGE_BYTES (a byte count, optionally with K, M, G or T for KiB … TiB), else the smallest of
// half the physical memory, half the room left under RLIMIT_AS and three quarters of the cgroup's memory
// limit (core/util/ResourceLimits.h: what the job may use, not only what the machine has). An unreadable
// GLINT_MAX_IMAGE_BYTES is a UsageError.
std::uint64_t maxImageBytes();
// The same with where it comes from, in words for messages ("three quarters of the cgroup's memory.max
// of 2.0 GiB", "GLINT_MAX_IMAGE_BYTES").
MemoryLimit imageByteLimit();
// 0 goes back to the environment / default.
void setMaxImageBytes(std::uint64_t bytes);

struct DecodedSize {
    long long width = 0;
    long long height = 0;
    int channels = 1;
    int bitsPerSample = 8;
    long long frames = 1; // frames decoded together (DICOM multi-frame); the work copies are of one
    // A tiled file's tile (TIFF): the decoder's buffer for one tile, width × height × at least 4 channels
    // (OpenCV reads some kinds through libtiff's RGBA interface), counted on top of the image.
    long long tileWidth = 0;
    long long tileHeight = 0;
};

// Throws InputError "<where>: the image is too large: 30000 × 30000 × 3 channels × 8 bit = 2.5 GiB
// decoded, 17.6 GiB with Glint's working copies (17 bytes a pixel), over the 11.5 GiB limit
// (half the physical memory; GLINT_MAX_IMAGE_BYTES sets another)" when the image needs more than maxImageBytes(). where: "cannot open 'x.png'".
void checkImageBudget(const DecodedSize& size, const std::string& where);

// 2.5 GiB, 512 MiB, 12 KiB, 100 bytes.
std::string formatByteSize(long double bytes);

} // namespace glint
