// GDCM (its dictionary, readers and decoders, with gdcmjpeg8/12/16, OpenJPEG, CharLS and the rest) lives
// in a plugin, glint_dicom.so (dicom/), that is opened with dlopen the first time a program reads a DICOM
// file. A run on FITS, PNG or CSV never loads it: GDCM's static initialisers (the dictionary libgdcmDICT
// builds at load) and the relocations of its libraries are no longer part of every program's start.
//
// The plugin is looked for like the codecs plugin (core/io/Codecs.h), in order: the file named by
// GLINT_DICOM_PLUGIN (only there, when set); beside the program's folder where an install puts it
// (bin/../lib/glint/; the build tree has the same layout: build/app/glint-cli and build/tests/test_x find
// build/lib/glint/); the program's own folder; the build tree it was built in. Every build has it (the
// lean build reads DICOM too).
//
// This header is the whole interface between core and the plugin: plain data only. The plugin is a thin
// layer over GDCM: it opens a file and answers questions about it; what is checked, in which order, and
// every message, stay in core/io/DicomLoader.cpp (with DicomScan and DicomPixels, which need no GDCM).
// Nothing thrown crosses the boundary. Every GDCM call that can abort (Debian builds GDCM with its
// assertions on) runs under the host's guard (core/io/AbortGuard.h), which core hands to the plugin.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace glint {

// Photometric Interpretation as GDCM reads it.
enum class DicomPhotometric {
    Monochrome1,
    Monochrome2,
    PaletteColour,
    Rgb,
    YbrFull,
    YbrFull422,
    YbrPartial420,
    YbrPartial422,
    YbrIct,
    YbrRct,
    Other
};

// Pixel Format as GDCM reads it (the stored one, or the one the palette lookup made).
struct DicomPixelFormat {
    int samplesPerPixel = 1;
    int bitsAllocated = 16;
    int bitsStored = 16;
    int highBit = 15;
    int pixelRepresentation = 0; // 0 unsigned, 1 signed, anything else as the header says
};

// A byte range inside the opened file's data (valid while the DicomFile lives); null when absent.
struct DicomBytes {
    const unsigned char* data = nullptr;
    std::size_t length = 0;
};

// One item of the VOI LUT Sequence (0028,3010) as written: LUT Descriptor's three 16-bit words and LUT
// Data's 16-bit words, both in host order, and LUT Explanation. Core checks them (DicomLoader).
struct DicomLutItem {
    std::vector<std::uint16_t> descriptor;
    std::vector<std::uint16_t> data;
    std::size_t dataBytes = 0; // LUT Data's length in bytes (an odd or 8-bit packed length shows here)
    std::string explanation;
};

// One DICOM file GDCM's image reader accepted.
class DicomFile {
public:
    virtual ~DicomFile() = default;

    // Image: Columns, Rows, Number of Frames (1 when GDCM sees two dimensions).
    virtual long long columns() const = 0;
    virtual long long rows() const = 0;
    virtual long long frames() const = 0;
    virtual DicomPixelFormat storedFormat() const = 0;
    virtual DicomPhotometric photometric() const = 0;
    virtual std::string photometricName() const = 0; // GDCM's name of it, for messages

    // Transfer syntax: its UID ("" when GDCM does not know it) and what GDCM says of it.
    virtual std::string transferSyntaxUid() const = 0;
    virtual bool encapsulated() const = 0;
    virtual bool bigEndian() const = 0;
    virtual bool rleLossless() const = 0;
    virtual bool lossyJpeg() const = 0; // baseline, extended, spectral selection or progression

    // Rescale as GDCM derives it (header, functional groups, Dose Grid Scaling).
    virtual double slope() const = 0;
    virtual double intercept() const = 0;

    // An element's value bytes, spaces and NULs trimmed at both ends ("" when absent or not bytes).
    virtual std::string rawText(std::uint16_t group, std::uint16_t element) const = 0;
    // An element's value as GDCM's string filter gives it, trimmed; nothing when absent, empty or when
    // GDCM aborted on it.
    virtual std::optional<std::string> value(std::uint16_t group, std::uint16_t element) const = 0;
    // The items of the VOI LUT Sequence (0028,3010) at the top level; empty when absent.
    virtual std::vector<DicomLutItem> voiLuts() const = 0;
    // The element's name in GDCM's dictionary.
    virtual std::string tagName(std::uint16_t group, std::uint16_t element) const = 0;

    // Pixel Data: native bytes (null when encapsulated) and the encapsulated fragments.
    virtual DicomBytes nativePixelData() const = 0;
    virtual std::size_t fragmentCount() const = 0; // 0 without a sequence of fragments
    virtual DicomBytes fragment(std::size_t index) const = 0;

    // Palette colour: applies the lookup table (GDCM's filter), after which pixelFormat(),
    // planarConfiguration(), bufferLength() and decode() are those of the RGB image it made. False when
    // GDCM failed or aborted.
    virtual bool applyPalette() = 0;
    virtual DicomPixelFormat pixelFormat() const = 0;
    // Whether GDCM's scalar type of pixelFormat() is FLOAT32 or FLOAT64; nothing when GDCM aborted on the
    // format (a Pixel Representation it does not know).
    virtual std::optional<bool> floatingPoint() const = 0;
    virtual int planarConfiguration() const = 0;
    // The decoded buffer of every frame: its length, and the decoding itself (false when GDCM failed or
    // aborted). `out` holds bufferLength() bytes.
    virtual std::size_t bufferLength() const = 0;
    virtual bool decode(char* out) const = 0;
};

// Why open() gave no file.
enum class DicomOpenFailure {
    None,
    NotDicom,       // neither GDCM reader reads it
    NoPixelData,    // a dataset without Pixel Data (sopClass says which)
    NotAnImage,     // GDCM's image reader refuses it, also after the retry
    OutOfMemory,    // std::bad_alloc inside GDCM
    Exception,      // another exception inside GDCM (message says what)
};

struct DicomOpened {
    std::unique_ptr<DicomFile> file;
    DicomOpenFailure failure = DicomOpenFailure::None;
    std::string sopClass; // SOP Class UID, for NoPixelData ("" when absent)
    std::string message;  // the exception's text, for Exception
};

// What the plugin calls back into: AbortGuard's runGuardedAgainstAbort (fn(context) is run; false when it
// called abort() on this thread; its frames are abandoned).
struct DicomHost {
    bool (*guardAgainstAbort)(void (*fn)(void*), void* context) = nullptr;
};

class DicomDecoder {
public:
    virtual ~DicomDecoder() = default;

    // Reads the file with GDCM's image reader, retrying once from memory where GDCM 3.0 asserts on a
    // single-frame file of a multi-frame class without Number of Frames. Thread-safe.
    virtual DicomOpened open(const std::string& path) const = 0;
    // A UID's name in GDCM's table ("" when it has none).
    virtual std::string uidName(const std::string& uid) const = 0;
};

// The plugin's one entry point (C linkage; the number is the version of this interface: change it with
// any change to this header). Returns the plugin's one instance, which lives as long as the process.
#define GLINT_DICOM_FACTORY glint_dicom_factory_v2
#define GLINT_DICOM_FACTORY_NAME "glint_dicom_factory_v2"
using DicomFactory = const DicomDecoder* (*)(const DicomHost*);

// The DICOM decoder, loaded on first use (thread-safe; the plugin is never unloaded). Null when the plugin
// is missing or fails to load; dicomDecoderError() then says why.
const DicomDecoder* dicomDecoder();
// Why dicomDecoder() is null, in one printable line ("cannot load the DICOM plugin '…': …"); "" when
// loaded.
std::string dicomDecoderError();

} // namespace glint
