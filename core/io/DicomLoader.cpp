// DICOM through GDCM, which lives in the DICOM plugin (core/io/DicomDecoder.h, dicom/): every transfer
// syntax GDCM decodes, multi-frame files by frame, MONOCHROME1 inverted, Rescale Slope/Intercept applied
// (integers stay integers when they can), colour made luminance, the window and the tags that matter
// kept. The plugin only answers what GDCM reads; every check and message is here. Debian's GDCM aborts
// on some malformed files, so the plugin runs every call into it that can abort under
// runGuardedAgainstAbort.
#include "core/io/DicomDecoder.h"
#include "core/io/DicomVoi.h"
#include "core/io/DicomPixels.h"
#include "core/io/DicomScan.h"
#include "core/io/ImageLoader.h"
#include "core/io/IntegerRange.h"
#include "core/util/Errors.h"
#include "core/util/ImageBudget.h"
#include "core/util/InputFile.h"
#include "core/util/Printable.h"
#include "core/util/StderrSilencer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <utility>

namespace glint {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw InputError("cannot open '" + path + "': " + what);
}

std::string uidName(const DicomDecoder& decoder, const std::string& uid) {
    const std::string name = decoder.uidName(uid);
    return name.empty() ? uid : uid + " (" + name + ")";
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
    const std::size_t first = s.find_first_not_of(' ');
    return first == std::string::npos ? std::string() : s.substr(first);
}

// The first value of a DS/IS element ("40\400" -> 40); nothing when absent or not a number.
std::optional<double> firstNumber(const DicomFile& file, std::uint16_t group, std::uint16_t element) {
    std::string text = file.rawText(group, element);
    text = trimmed(text.substr(0, text.find('\\')));
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || trimmed(end).size() != 0 || !std::isfinite(v)) return std::nullopt;
    return v;
}

// Every value of a multi-valued DS/IS element ("40\\400" -> 40, 400); a value that is not a number stays
// nothing in its place, so that centres and widths keep their pairing.
std::vector<std::optional<double>> allNumbers(const DicomFile& file, std::uint16_t group, std::uint16_t element) {
    std::vector<std::optional<double>> out;
    const std::string text = file.rawText(group, element);
    if (text.empty()) return out;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find('\\', start);
        const std::string one = trimmed(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        char* stop = nullptr;
        const double v = one.empty() ? 0.0 : std::strtod(one.c_str(), &stop);
        out.push_back(!one.empty() && stop != one.c_str() && trimmed(stop).empty() && std::isfinite(v)
                          ? std::optional<double>(v) : std::nullopt);
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

std::vector<std::string> allTexts(const DicomFile& file, std::uint16_t group, std::uint16_t element) {
    std::vector<std::string> out;
    const std::string text = file.rawText(group, element);
    std::size_t start = 0;
    while (!text.empty()) {
        const std::size_t end = text.find('\\', start);
        out.push_back(trimmed(text.substr(start, end == std::string::npos ? std::string::npos : end - start)));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

// The VOI and presentation attributes (DicomVoi.h). Inconsistent ones are left out with a note, never
// guessed at: a window whose width is not a number or too small for its function (LINEAR: >= 1; the
// others: > 0), a VOI LUT whose descriptor is not three values, whose bits are outside 8..16 or whose
// data hold another number of entries than the descriptor says; an unknown VOI LUT Function (LINEAR is
// used) or Presentation LUT Shape (the photometric default is used).
std::shared_ptr<DicomVoi> readVoi(const DicomFile& file, DicomPhotometric pi, bool isSigned, std::optional<double> mirror,
                                  bool ct) {
    auto voi = std::make_shared<DicomVoi>();
    voi->mirror = mirror;
    const std::string function = trimmed(file.rawText(0x0028, 0x1056));
    if (function == "LINEAR_EXACT") voi->function = VoiFunction::LinearExact;
    else if (function == "SIGMOID") voi->function = VoiFunction::Sigmoid;
    else if (!function.empty() && function != "LINEAR")
        voi->notes.push_back("VOI LUT Function '" + function + "' is not a defined term: LINEAR is used");

    const auto centres = allNumbers(file, 0x0028, 0x1050);
    const auto widths = allNumbers(file, 0x0028, 0x1051);
    const auto explanations = allTexts(file, 0x0028, 0x1055);
    if (centres.size() != widths.size() && !centres.empty() && !widths.empty())
        voi->notes.push_back("Window Center has " + std::to_string(centres.size()) + " values and Window Width " +
                             std::to_string(widths.size()) + ": the first " +
                             std::to_string(std::min(centres.size(), widths.size())) + " pairs are used");
    for (std::size_t i = 0; i < std::min(centres.size(), widths.size()); ++i) {
        const std::string which = "window " + std::to_string(i + 1);
        if (!centres[i] || !widths[i]) {
            voi->notes.push_back(which + " is left out: its centre or width is not a number");
            continue;
        }
        const double minimum = voi->function == VoiFunction::Linear ? 1.0 : 0.0;
        if (voi->function == VoiFunction::Linear ? *widths[i] < 1.0 : *widths[i] <= 0.0) {
            char text[64];
            std::snprintf(text, sizeof text, "%g", *widths[i]);
            voi->notes.push_back(which + " is left out: its width " + text + " is " +
                                 (minimum > 0 ? "below 1 (LINEAR)" : "not positive"));
            continue;
        }
        voi->windows.push_back({*centres[i], *widths[i], i < explanations.size() ? explanations[i] : std::string()});
    }
    voi->headerWindows = static_cast<int>(voi->windows.size());

    const std::vector<DicomLutItem> items = file.voiLuts();
    for (std::size_t i = 0; i < items.size(); ++i) {
        const DicomLutItem& item = items[i];
        const std::string which = "VOI LUT " + std::to_string(i + 1);
        if (item.descriptor.size() != 3) {
            voi->notes.push_back(which + " is left out: LUT Descriptor has " + std::to_string(item.descriptor.size()) +
                                 " values, not 3");
            continue;
        }
        const std::size_t entries = item.descriptor[0] == 0 ? 65536 : item.descriptor[0];
        const int bits = item.descriptor[2];
        if (bits < 8 || bits > 16) {
            voi->notes.push_back(which + " is left out: LUT Descriptor gives " + std::to_string(bits) +
                                 " bits per entry (8 to 16 are defined)");
            continue;
        }
        if (item.data.size() != entries || item.dataBytes != 2 * entries) {
            voi->notes.push_back(which + " is left out: LUT Data hold " + std::to_string(item.dataBytes / 2) +
                                 " entries and LUT Descriptor says " + std::to_string(entries));
            continue;
        }
        VoiLut lut;
        lut.firstMapped = isSigned ? static_cast<long long>(static_cast<std::int16_t>(item.descriptor[1]))
                                   : static_cast<long long>(item.descriptor[1]);
        lut.bits = bits;
        lut.data = item.data;
        const std::uint16_t top = static_cast<std::uint16_t>((1u << bits) - 1u);
        if (std::any_of(lut.data.begin(), lut.data.end(), [&](std::uint16_t v) { return v > top; })) {
            voi->notes.push_back(which + " is left out: LUT Data hold values above 2^" + std::to_string(bits) +
                                 " - 1 (the descriptor's bits)");
            continue;
        }
        lut.explanation = item.explanation;
        voi->luts.push_back(std::move(lut));
    }
    if (ct) {
        for (const VoiWindow& w : ctPresetWindows()) voi->windows.push_back(w);
        const std::string rescaleType = trimmed(file.rawText(0x0028, 0x1054));
        voi->units = rescaleType.empty() || rescaleType == "US" ? "HU" : rescaleType; // US: unspecified
    }

    const std::string shape = trimmed(file.rawText(0x2050, 0x0020));
    voi->inverse = pi == DicomPhotometric::Monochrome1;
    if (shape == "INVERSE") voi->inverse = true;
    else if (shape == "IDENTITY") voi->inverse = false;
    else if (!shape.empty())
        voi->notes.push_back("Presentation LUT Shape '" + shape + "' is not a defined term: " +
                             (voi->inverse ? "INVERSE" : "IDENTITY") + " is used");
    return voi;
}

// Opens the file through the plugin; the reasons GDCM's readers refuse it become messages.
std::unique_ptr<DicomFile> open(const DicomDecoder& decoder, const std::string& path) {
    DicomOpened opened = decoder.open(path);
    switch (opened.failure) {
    case DicomOpenFailure::None: break;
    case DicomOpenFailure::NotDicom: fail(path, "not a readable DICOM file (corrupt or truncated)");
    case DicomOpenFailure::NoPixelData:
        fail(path, "the DICOM file holds no image (no Pixel Data" +
                       (opened.sopClass.empty() ? "" : "; SOP class " + uidName(decoder, opened.sopClass)) + ")");
    case DicomOpenFailure::NotAnImage:
        fail(path, "GDCM cannot interpret the image in this DICOM file (damaged or unusual header)");
    case DicomOpenFailure::OutOfMemory: throw std::bad_alloc();
    case DicomOpenFailure::Exception: throw std::runtime_error(printableMessage(opened.message));
    }
    if (!opened.file) fail(path, "GDCM cannot interpret the image in this DICOM file (damaged or unusual header)");
    return std::move(opened.file);
}

// GDCM hands lossy JPEG components over as the stream stores them; the stream, not the header,
// says whether they are RGB or YCbCr (files whose header says RGB over a YCbCr stream are common).
bool firstFragmentIsYcbcr(const DicomFile& file, bool fallback) {
    if (file.fragmentCount() == 0) return fallback;
    const DicomBytes first = file.fragment(0);
    if (!first.data) return fallback;
    return jpegComponentsAreYcbcr(first.data, first.length);
}

DicomColour colourOf(const DicomFile& file, const std::string& path) {
    const DicomPhotometric pi = file.photometric();
    switch (pi) {
    case DicomPhotometric::Monochrome1:
    case DicomPhotometric::Monochrome2: return DicomColour::Monochrome;
    case DicomPhotometric::Rgb:
    case DicomPhotometric::YbrFull:
    case DicomPhotometric::YbrFull422: {
        const bool ybr = pi != DicomPhotometric::Rgb;
        if (file.lossyJpeg()) return firstFragmentIsYcbcr(file, ybr) ? DicomColour::YbrFull : DicomColour::Rgb;
        return ybr ? DicomColour::YbrFull : DicomColour::Rgb;
    }
    case DicomPhotometric::YbrPartial420:
    case DicomPhotometric::YbrPartial422: return DicomColour::YbrPartial;
    // The JPEG 2000 decoder undoes the component transform: these arrive as RGB.
    case DicomPhotometric::YbrIct:
    case DicomPhotometric::YbrRct: return DicomColour::Rgb;
    default: break;
    }
    fail(path, "the Photometric Interpretation " + file.photometricName() + " is not supported");
}

// GDCM guesses a Photometric Interpretation it cannot read (from the samples per pixel), and takes one
// that does not match the samples as it comes: either would turn a damaged file into a made-up image. The
// value as written must be a defined term (PS3.3 C.7.6.3.1.2) with its number of samples. A file without
// one (old ACR-NEMA files) keeps GDCM's reading.
// An Image Pixel Module value as written (GDCM's pixel format is already "fixed": it derives Samples per
// Pixel from the Photometric Interpretation, clamps Bits Stored and Pixel Representation); nothing when
// absent or no number.
std::optional<long> writtenNumber(const DicomFile& file, std::uint16_t element) {
    const std::optional<std::string> text = file.value(0x0028, element);
    if (!text || text->empty()) return std::nullopt;
    char* end = nullptr;
    const long v = std::strtol(text->c_str(), &end, 10);
    if (end == text->c_str()) return std::nullopt;
    return v;
}

// What no valid file has (PS3.3 C.7.6.3.1) is damage, and said so, before GDCM's repairs hide it.
void checkPixelModule(const DicomFile& file, const std::string& path) {
    const auto allocated = writtenNumber(file, 0x0100);
    const auto stored = writtenNumber(file, 0x0101);
    const auto high = writtenNumber(file, 0x0102);
    const auto representation = writtenNumber(file, 0x0103);
    if (representation && *representation != 0 && *representation != 1)
        fail(path, "the DICOM file is damaged: Pixel Representation " + std::to_string(*representation) +
                       " is neither 0 (unsigned) nor 1 (signed)");
    if (allocated && stored && (*stored < 1 || *stored > *allocated))
        fail(path, "the DICOM file is damaged: Bits Stored " + std::to_string(*stored) + " with Bits Allocated " +
                       std::to_string(*allocated));
    if (allocated && stored && high && (*high < *stored - 1 || *high >= *allocated))
        fail(path, "the DICOM file is damaged: High Bit " + std::to_string(*high) + " with Bits Stored " +
                       std::to_string(*stored) + " and Bits Allocated " + std::to_string(*allocated));
}

void checkPhotometric(const DicomFile& file, int samplesPerPixel, const std::string& path) {
    if (const auto written = writtenNumber(file, 0x0002)) samplesPerPixel = static_cast<int>(*written);
    const std::string written = file.rawText(0x0028, 0x0004);
    if (written.empty()) return;
    static const std::pair<const char*, int> terms[] = {
        {"MONOCHROME1", 1}, {"MONOCHROME2", 1}, {"PALETTE COLOR", 1}, {"RGB", 3}, {"YBR_FULL", 3},
        {"YBR_FULL_422", 3}, {"YBR_PARTIAL_422", 3}, {"YBR_PARTIAL_420", 3}, {"YBR_ICT", 3}, {"YBR_RCT", 3},
        {"XYB", 3}, {"HSV", 3}, {"ARGB", 4}, {"CMYK", 4}};
    for (const auto& [term, samples] : terms) {
        if (written != term) continue;
        if (samplesPerPixel != samples)
            fail(path, "the DICOM file is damaged: Photometric Interpretation " + written + " with " +
                           std::to_string(samplesPerPixel) + (samplesPerPixel == 1 ? " sample" : " samples") +
                           " per pixel (" + written + " has " + std::to_string(samples) + ")");
        return;
    }
    fail(path, "the DICOM file is damaged: Photometric Interpretation " + quotedToken(written, 40) +
                   " is not a defined term (MONOCHROME1, MONOCHROME2, PALETTE COLOR, RGB, YBR_...)");
}

// Native pixel data shorter than the image needs (GDCM would pad them). Files that end inside their
// pixel data are caught before, by checkDicomElementLengths.
void checkNativeLength(const DicomFile& file, const DicomPixelLayout& layout, bool subsampled422, const std::string& path) {
    if (file.encapsulated()) return;
    std::size_t needed = layout.bufferBytes();
    if (subsampled422) needed = needed / 3 * 2; // Y Y Cb Cr for every two pixels
    const std::size_t have = file.nativePixelData().length;
    if (have < needed)
        fail(path, "the pixel data are truncated (" + std::to_string(have) + " bytes of " + std::to_string(needed) + ")");
}

std::vector<HeaderCard> tagsThatMatter(const DicomDecoder& decoder, const DicomFile& file, const std::string& tsUid) {
    static const std::pair<std::uint16_t, std::uint16_t> tags[] = {
        {0x0008, 0x0016}, {0x0008, 0x0008}, {0x0008, 0x0060}, {0x0008, 0x0070}, {0x0008, 0x1090}, {0x0008, 0x0020},
        {0x0008, 0x103E}, {0x0018, 0x0015}, {0x0018, 0x5101}, {0x0020, 0x0060}, {0x0020, 0x0062}, {0x0018, 0x0050},
        {0x0018, 0x0060}, {0x0018, 0x1164}, {0x0028, 0x0002}, {0x0028, 0x0004}, {0x0028, 0x0006}, {0x0028, 0x0008},
        {0x0028, 0x0010}, {0x0028, 0x0011}, {0x0028, 0x0030}, {0x0028, 0x0100}, {0x0028, 0x0101}, {0x0028, 0x0102},
        {0x0028, 0x0103}, {0x0028, 0x1050}, {0x0028, 0x1051}, {0x0028, 0x1052}, {0x0028, 0x1053}, {0x0028, 0x1054},
        {0x0028, 0x2110}, {0x0028, 0x2114}, {0x3004, 0x000E}};
    const auto key = [](std::uint16_t group, std::uint16_t element, const std::string& name) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "(%04X,%04X) ", group, element);
        return std::string(buf) + name;
    };
    std::vector<HeaderCard> cards;
    cards.push_back({key(0x0002, 0x0010, "Transfer Syntax UID"), uidName(decoder, tsUid), ""});
    for (const auto& [group, element] : tags) {
        std::optional<std::string> value = file.value(group, element);
        if (!value) continue;
        if (group == 0x0008 && element == 0x0016) value = uidName(decoder, *value);
        cards.push_back({key(group, element, file.tagName(group, element)), *value, ""});
    }
    return cards;
}

template <class T>
Image imageFrom(int width, int height, const std::vector<double>& values) {
    std::vector<T> samples(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) samples[i] = static_cast<T>(values[i]);
    return Image::fromSamples<T>(width, height, std::move(samples));
}

} // namespace

Image loadDicom(const std::string& path, const LoadOptions& options) {
    checkInputFile(path);
    checkDicomElementLengths(path);
    const DicomDecoder* decoder = dicomDecoder();
    if (!decoder) fail(path, "reading DICOM files needs Glint's DICOM plugin: " + dicomDecoderError());
    StderrSilencer quiet;
    const std::unique_ptr<DicomFile> source = open(*decoder, path);
    DicomFile& file = *source;

    const long long columns = file.columns();
    const long long rows = file.rows();
    const long long frames = file.frames();
    checkImageDimensions(columns, rows, "'" + path + "' (Columns x Rows)");
    if (frames < 1 || frames > (1 << 20)) fail(path, "absurd Number of Frames (" + std::to_string(frames) + ")");
    // The stored format, before the lookup table of a palette image replaces it.
    const DicomPixelFormat storedFormat = file.storedFormat();
    checkImageBudget({columns, rows, std::max<int>(storedFormat.samplesPerPixel, 1),
                      std::max<int>(storedFormat.bitsAllocated, 8), frames},
                     "cannot open '" + path + "'");
    if (options.frame < 0 || options.frame >= frames)
        fail(path, "frame " + std::to_string(options.frame) + " is out of range (the file has " +
                       std::to_string(frames) + (frames == 1 ? " frame, 0)" : " frames, 0 to " + std::to_string(frames - 1) + ")"));

    std::string tsUid = file.transferSyntaxUid();
    if (tsUid.empty()) tsUid = "unknown";
    const DicomPhotometric pi = file.photometric();
    const bool palette = pi == DicomPhotometric::PaletteColour;
    checkPixelModule(file, path);
    checkPhotometric(file, storedFormat.samplesPerPixel, path);

    // Palette colour becomes RGB through GDCM's lookup-table filter, which then owns the pixels.
    if (palette && !file.applyPalette()) fail(path, "cannot apply the palette colour lookup table");

    const DicomPixelFormat pf = file.pixelFormat();
    DicomPixelLayout layout;
    layout.columns = static_cast<int>(columns);
    layout.rows = static_cast<int>(rows);
    layout.frames = static_cast<int>(frames);
    layout.samplesPerPixel = pf.samplesPerPixel;
    layout.bitsAllocated = pf.bitsAllocated;
    layout.bitsStored = pf.bitsStored;
    layout.highBit = pf.highBit;
    layout.isSigned = pf.pixelRepresentation == 1;
    // GDCM asserts on a Pixel Representation it does not know (found by fuzz_detect).
    const std::optional<bool> floatingPoint = file.floatingPoint();
    if (!floatingPoint && pf.pixelRepresentation != 0 && pf.pixelRepresentation != 1)
        fail(path, "the DICOM file is damaged: Pixel Representation " + std::to_string(pf.pixelRepresentation) +
                       " is neither 0 (unsigned) nor 1 (signed)");
    if (!floatingPoint)
        fail(path, "unsupported pixel format (Pixel Representation " + std::to_string(pf.pixelRepresentation) +
                       ", Bits Allocated " + std::to_string(pf.bitsAllocated) + ")");
    layout.isFloat = *floatingPoint;
    layout.planar = layout.samplesPerPixel == 3 && file.planarConfiguration() == 1;
    layout.colour = palette ? DicomColour::Rgb : colourOf(file, path);
    // GDCM 3.0 swaps big-endian pixel data in 16-bit words, which leaves the halves of 32-bit samples
    // exchanged (checked against pydicom on rtdose_expb.dcm).
    layout.swapWordHalves = file.bigEndian() && layout.bitsAllocated == 32 && !layout.isFloat;
    // The stored pixels are the palette indices, not the RGB the lookup table made of them.
    DicomPixelLayout stored = layout;
    stored.samplesPerPixel = storedFormat.samplesPerPixel;
    stored.bitsAllocated = storedFormat.bitsAllocated;
    checkNativeLength(file, stored, pi == DicomPhotometric::YbrFull422, path);

    FrameValues frame;
    if (file.rleLossless() && !palette) {
        // One fragment per frame (PS3.5 A.4.2), decoded here: see decodeRleFrame.
        const std::size_t fragments = file.fragmentCount();
        if (fragments != static_cast<std::size_t>(frames))
            fail(path, "the RLE pixel data are truncated or damaged (" + std::to_string(fragments) + " fragments for " +
                           std::to_string(frames) + " frames)");
        const DicomBytes bytes = file.fragment(static_cast<std::size_t>(options.frame));
        if (!bytes.data) fail(path, "the RLE frame is empty");
        DicomPixelLayout one = layout;
        one.frames = 1;
        one.planar = false;
        const std::vector<char> decoded = decodeRleFrame(bytes.data, bytes.length, one, path);
        frame = extractFrame(decoded.data(), decoded.size(), one, 0, path);
    } else {
        const std::size_t length = file.bufferLength();
        if (length < layout.bufferBytes())
            fail(path, "the pixel data do not match the image size (" + std::to_string(length) + " bytes for " +
                           std::to_string(layout.bufferBytes()) + ")");
        std::vector<char> buffer(length);
        if (!file.decode(buffer.data()))
            fail(path, "cannot decode the pixel data (transfer syntax " + uidName(*decoder, tsUid) +
                           "): corrupt, truncated or not supported by GDCM");
        frame = extractFrame(buffer.data(), buffer.size(), layout, options.frame, path);
    }

    // Rescale: the header's own values when present; otherwise what GDCM derives (functional groups
    // of enhanced multi-frame files, Dose Grid Scaling of RT Dose).
    const auto slopeTag = firstNumber(file, 0x0028, 0x1053);
    const auto interceptTag = firstNumber(file, 0x0028, 0x1052);
    double slope = slopeTag ? *slopeTag : file.slope();
    const double intercept = interceptTag ? *interceptTag : file.intercept();
    if (slope == 0.0 || !std::isfinite(slope)) slope = 1.0; // a zero slope is a broken header, not a flat image
    const bool integer = frame.integer && slope == 1.0 && intercept == std::nearbyint(intercept);
    long double lo = frame.lowest, hi = frame.highest;
    if (integer) {
        for (double& v : frame.values) v += intercept;
        lo += intercept;
        hi += intercept;
    } else {
        // A slope or intercept that turns a stored value into an infinity (1e308 x 2) is damage: refused,
        // naming the pixel, rather than measured.
        if (!std::isfinite(intercept)) fail(path, "the DICOM file is damaged: Rescale Intercept is not a finite number");
        for (std::size_t i = 0; i < frame.values.size(); ++i) {
            const double stored = frame.values[i];
            frame.values[i] = stored * slope + intercept;
            if (std::isfinite(stored) && !std::isfinite(frame.values[i])) {
                char text[96];
                std::snprintf(text, sizeof text, "%.17g x %.17g + %.17g", stored, slope, intercept);
                fail(path, "the DICOM file is damaged: Rescale Slope and Intercept overflow pixel (" +
                               std::to_string(i % static_cast<std::size_t>(layout.columns)) + ", " +
                               std::to_string(i / static_cast<std::size_t>(layout.columns)) + ") to infinity (" +
                               text + ")");
            }
        }
        const long double a = lo * slope + intercept, b = hi * slope + intercept;
        lo = std::min(a, b);
        hi = std::max(a, b);
    }

    std::optional<double> center = firstNumber(file, 0x0028, 0x1050);
    const std::optional<double> width = firstNumber(file, 0x0028, 0x1051);
    // MONOCHROME1 shows low values bright: mirror the values within their range so that bright is high
    // for every algorithm, and the window with them.
    if (pi == DicomPhotometric::Monochrome1) {
        const double mirror = static_cast<double>(lo + hi);
        for (double& v : frame.values) v = mirror - v;
        if (center) center = mirror - *center;
    }

    Image out;
    const int w = layout.columns, h = layout.rows;
    const auto type = integer ? narrowestIntegerType(lo, hi) : std::nullopt;
    switch (type.value_or(SampleType::Float64)) {
    case SampleType::UInt8: out = imageFrom<std::uint8_t>(w, h, frame.values); break;
    case SampleType::Int8: out = imageFrom<std::int8_t>(w, h, frame.values); break;
    case SampleType::UInt16: out = imageFrom<std::uint16_t>(w, h, frame.values); break;
    case SampleType::Int16: out = imageFrom<std::int16_t>(w, h, frame.values); break;
    case SampleType::UInt32: out = imageFrom<std::uint32_t>(w, h, frame.values); break;
    case SampleType::Int32: out = imageFrom<std::int32_t>(w, h, frame.values); break;
    case SampleType::Int64: out = imageFrom<std::int64_t>(w, h, frame.values); break;
    default: {
        out = imageFrom<double>(w, h, frame.values);
        std::vector<std::uint8_t> blank(frame.values.size());
        for (std::size_t i = 0; i < blank.size(); ++i) blank[i] = std::isfinite(frame.values[i]) ? 0 : 1;
        out.setBlankMask(std::move(blank));
        out.updateIntegerValued();
        break;
    }
    }
    out.meta.format = "DICOM";
    out.meta.bitDepth = layout.bitsStored;
    out.meta.wasColour = layout.samplesPerPixel == 3;
    out.meta.frame = options.frame;
    out.meta.frameCount = static_cast<int>(frames);
    if (center && width && *width > 0) {
        out.meta.windowCenter = center;
        out.meta.windowWidth = width;
    }
    if (layout.samplesPerPixel == 1) {
        const bool ct = trimmed(file.rawText(0x0008, 0x0060)) == "CT";
        auto voi = readVoi(file, pi, layout.isSigned,
                           pi == DicomPhotometric::Monochrome1 ? std::optional<double>(static_cast<double>(lo + hi))
                                                               : std::nullopt,
                           ct);
        if (voi->headerWindows == 0) { // none usable: the window is the VOI's or nothing
            out.meta.windowCenter.reset();
            out.meta.windowWidth.reset();
        }
        if (voi->choiceCount() > 0 || voi->inverse || !voi->notes.empty() || !voi->units.empty())
            out.meta.voi = std::move(voi);
    }
    out.meta.header = tagsThatMatter(*decoder, file, tsUid);
    return out;
}

} // namespace glint
