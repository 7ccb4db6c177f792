// DICOM through GDCM: every transfer syntax GDCM decodes, multi-frame files by frame, MONOCHROME1
// inverted, Rescale Slope/Intercept applied (integers stay integers when they can), colour made
// luminance, the window and the tags that matter kept. Debian's GDCM aborts on some malformed files,
// so every call into it runs under runGuardedAgainstAbort.
#include "core/io/AbortGuard.h"
#include "core/io/DicomPixels.h"
#include "core/io/DicomScan.h"
#include "core/io/ImageLoader.h"
#include "core/io/IntegerRange.h"
#include "core/util/Errors.h"
#include "core/util/ImageBudget.h"
#include "core/util/InputFile.h"
#include "core/util/StderrSilencer.h"

#include <gdcmDicts.h>
#include <gdcmGlobal.h>
#include <gdcmImage.h>
#include <gdcmImageApplyLookupTable.h>
#include <gdcmImageReader.h>
#include <gdcmReader.h>
#include <gdcmSequenceOfFragments.h>
#include <gdcmStringFilter.h>
#include <gdcmTrace.h>
#include <gdcmUIDs.h>
#include <gdcmWriter.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>

namespace glint {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw InputError("cannot open '" + path + "': " + what);
}

void silenceGdcm() {
    static std::once_flag once;
    std::call_once(once, [] {
        gdcm::Trace::SetDebug(false);
        gdcm::Trace::SetWarning(false);
        gdcm::Trace::SetError(false);
    });
}

// What GDCM read, kept alive together (an image read from memory needs its stream).
struct DicomSource {
    std::unique_ptr<std::stringstream> stream;
    std::unique_ptr<gdcm::ImageReader> reader;
};

// Reads with GDCM's image reader. An abort inside GDCM leaks the reader on purpose: its state is
// whatever the assertion left behind, so it must never be used or destroyed.
std::unique_ptr<gdcm::ImageReader> readGuarded(const std::string& path, std::istream* stream, bool& aborted) {
    auto reader = std::make_unique<gdcm::ImageReader>();
    if (stream) reader->SetStream(*stream);
    else reader->SetFileName(path.c_str());
    bool ok = false;
    aborted = !runGuardedAgainstAbort([&] { ok = reader->Read(); });
    if (aborted) {
        (void)reader.release();
        return nullptr;
    }
    return ok ? std::move(reader) : nullptr;
}

std::string uidName(const std::string& uid) {
    gdcm::UIDs uids;
    if (!uids.SetFromUID(uid.c_str()) || !uids.GetName()) return uid;
    return uid + " (" + uids.GetName() + ")";
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
    const std::size_t first = s.find_first_not_of(' ');
    return first == std::string::npos ? std::string() : s.substr(first);
}

std::string rawText(const gdcm::DataSet& ds, const gdcm::Tag& tag) {
    if (!ds.FindDataElement(tag)) return {};
    const gdcm::ByteValue* bv = ds.GetDataElement(tag).GetByteValue();
    if (!bv || !bv->GetPointer()) return {};
    return trimmed(std::string(bv->GetPointer(), bv->GetLength()));
}

// The first value of a DS/IS element ("40\400" -> 40); nothing when absent or not a number.
std::optional<double> firstNumber(const gdcm::DataSet& ds, const gdcm::Tag& tag) {
    std::string text = rawText(ds, tag);
    text = trimmed(text.substr(0, text.find('\\')));
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || trimmed(end).size() != 0 || !std::isfinite(v)) return std::nullopt;
    return v;
}

// Opens the file; when GDCM's image reader refuses it, finds out why with the plain dataset reader.
DicomSource open(const std::string& path) {
    DicomSource source;
    bool aborted = false;
    source.reader = readGuarded(path, nullptr, aborted);
    if (source.reader) return source;

    auto plain = std::make_unique<gdcm::Reader>();
    plain->SetFileName(path.c_str());
    bool ok = false;
    if (!runGuardedAgainstAbort([&] { ok = plain->Read(); })) {
        (void)plain.release();
        ok = false;
    }
    if (!ok) fail(path, "not a readable DICOM file (corrupt or truncated)");
    gdcm::DataSet& ds = plain->GetFile().GetDataSet();
    if (!ds.FindDataElement(gdcm::Tag(0x7fe0, 0x0010))) {
        const std::string sop = rawText(ds, gdcm::Tag(0x0008, 0x0016));
        fail(path, "the DICOM file holds no image (no Pixel Data" + (sop.empty() ? "" : "; SOP class " + uidName(sop)) + ")");
    }
    // GDCM 3.0 asserts on single-frame files of multi-frame classes (RT Dose) without Number of
    // Frames: add it and read again from memory.
    if (aborted && !ds.FindDataElement(gdcm::Tag(0x0028, 0x0008))) {
        gdcm::DataElement frames(gdcm::Tag(0x0028, 0x0008));
        frames.SetVR(gdcm::VR::IS);
        frames.SetByteValue("1 ", 2);
        ds.Insert(frames);
        source.stream = std::make_unique<std::stringstream>();
        gdcm::Writer writer;
        writer.SetFile(plain->GetFile());
        writer.SetStream(*source.stream);
        bool written = false;
        if (runGuardedAgainstAbort([&] { written = writer.Write(); }) && written)
            source.reader = readGuarded(path, source.stream.get(), aborted);
        if (aborted) (void)source.stream.release(); // the abandoned reader may still point at it
    }
    if (!source.reader) fail(path, "GDCM cannot interpret the image in this DICOM file (damaged or unusual header)");
    return source;
}

bool isLossyJpeg(const gdcm::TransferSyntax& ts) {
    return ts == gdcm::TransferSyntax::JPEGBaselineProcess1 || ts == gdcm::TransferSyntax::JPEGExtendedProcess2_4 ||
           ts == gdcm::TransferSyntax::JPEGExtendedProcess3_5 ||
           ts == gdcm::TransferSyntax::JPEGSpectralSelectionProcess6_8 ||
           ts == gdcm::TransferSyntax::JPEGFullProgressionProcess10_12;
}

// GDCM hands lossy JPEG components over as the stream stores them; the stream, not the header,
// says whether they are RGB or YCbCr (files whose header says RGB over a YCbCr stream are common).
bool firstFragmentIsYcbcr(const gdcm::DataSet& ds, bool fallback) {
    const gdcm::SequenceOfFragments* fragments = ds.GetDataElement(gdcm::Tag(0x7fe0, 0x0010)).GetSequenceOfFragments();
    if (!fragments || fragments->GetNumberOfFragments() == 0) return fallback;
    const gdcm::ByteValue* bv = fragments->GetFragment(0).GetByteValue();
    if (!bv || !bv->GetPointer()) return fallback;
    return jpegComponentsAreYcbcr(reinterpret_cast<const unsigned char*>(bv->GetPointer()), bv->GetLength());
}

DicomColour colourOf(const gdcm::PhotometricInterpretation& pi, const gdcm::TransferSyntax& ts, const gdcm::DataSet& ds,
                     const std::string& path) {
    switch (pi.GetType()) {
    case gdcm::PhotometricInterpretation::MONOCHROME1:
    case gdcm::PhotometricInterpretation::MONOCHROME2: return DicomColour::Monochrome;
    case gdcm::PhotometricInterpretation::RGB:
    case gdcm::PhotometricInterpretation::YBR_FULL:
    case gdcm::PhotometricInterpretation::YBR_FULL_422: {
        const bool ybr = pi.GetType() != gdcm::PhotometricInterpretation::RGB;
        if (isLossyJpeg(ts)) return firstFragmentIsYcbcr(ds, ybr) ? DicomColour::YbrFull : DicomColour::Rgb;
        return ybr ? DicomColour::YbrFull : DicomColour::Rgb;
    }
    case gdcm::PhotometricInterpretation::YBR_PARTIAL_420:
    case gdcm::PhotometricInterpretation::YBR_PARTIAL_422: return DicomColour::YbrPartial;
    // The JPEG 2000 decoder undoes the component transform: these arrive as RGB.
    case gdcm::PhotometricInterpretation::YBR_ICT:
    case gdcm::PhotometricInterpretation::YBR_RCT: return DicomColour::Rgb;
    default: break;
    }
    fail(path, std::string("the Photometric Interpretation ") + gdcm::PhotometricInterpretation::GetPIString(pi) +
                   " is not supported");
}

// Native pixel data shorter than the image needs (GDCM would pad them). Files that end inside their
// pixel data are caught before, by checkDicomElementLengths.
void checkNativeLength(const gdcm::DataSet& ds, const gdcm::TransferSyntax& ts, const DicomPixelLayout& layout,
                       bool subsampled422, const std::string& path) {
    if (ts.IsEncapsulated()) return;
    std::size_t needed = layout.bufferBytes();
    if (subsampled422) needed = needed / 3 * 2; // Y Y Cb Cr for every two pixels
    const gdcm::ByteValue* bv = ds.GetDataElement(gdcm::Tag(0x7fe0, 0x0010)).GetByteValue();
    const std::size_t have = bv ? static_cast<std::size_t>(bv->GetLength()) : 0;
    if (have < needed)
        fail(path, "the pixel data are truncated (" + std::to_string(have) + " bytes of " + std::to_string(needed) + ")");
}

std::vector<HeaderCard> tagsThatMatter(const gdcm::File& file, const std::string& tsUid) {
    static const std::pair<std::uint16_t, std::uint16_t> tags[] = {
        {0x0008, 0x0016}, {0x0008, 0x0008}, {0x0008, 0x0060}, {0x0008, 0x0070}, {0x0008, 0x1090}, {0x0008, 0x0020},
        {0x0008, 0x103E}, {0x0018, 0x0015}, {0x0018, 0x5101}, {0x0020, 0x0060}, {0x0020, 0x0062}, {0x0018, 0x0050},
        {0x0018, 0x0060}, {0x0018, 0x1164}, {0x0028, 0x0002}, {0x0028, 0x0004}, {0x0028, 0x0006}, {0x0028, 0x0008},
        {0x0028, 0x0010}, {0x0028, 0x0011}, {0x0028, 0x0030}, {0x0028, 0x0100}, {0x0028, 0x0101}, {0x0028, 0x0102},
        {0x0028, 0x0103}, {0x0028, 0x1050}, {0x0028, 0x1051}, {0x0028, 0x1052}, {0x0028, 0x1053}, {0x0028, 0x1054},
        {0x0028, 0x2110}, {0x0028, 0x2114}, {0x3004, 0x000E}};
    const auto key = [](std::uint16_t group, std::uint16_t element, const char* name) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "(%04X,%04X) ", group, element);
        return std::string(buf) + name;
    };
    std::vector<HeaderCard> cards;
    cards.push_back({key(0x0002, 0x0010, "Transfer Syntax UID"), uidName(tsUid), ""});
    const gdcm::DataSet& ds = file.GetDataSet();
    const gdcm::Dicts& dicts = gdcm::Global::GetInstance().GetDicts();
    gdcm::StringFilter filter;
    filter.SetFile(file);
    for (const auto& [group, element] : tags) {
        const gdcm::Tag tag(group, element);
        if (!ds.FindDataElement(tag)) continue;
        std::string value;
        if (!runGuardedAgainstAbort([&] { value = trimmed(filter.ToString(tag)); }) || value.empty()) continue;
        if (tag == gdcm::Tag(0x0008, 0x0016)) value = uidName(value);
        cards.push_back({key(group, element, dicts.GetDictEntry(tag).GetName()), value, ""});
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
    silenceGdcm();
    checkInputFile(path);
    checkDicomElementLengths(path);
    StderrSilencer quiet;
    DicomSource source = open(path);
    const gdcm::File& file = source.reader->GetFile();
    const gdcm::DataSet& ds = file.GetDataSet();
    const gdcm::Image& image = source.reader->GetImage();

    const unsigned int* dims = image.GetDimensions();
    const long long columns = dims[0];
    const long long rows = dims[1];
    const long long frames = image.GetNumberOfDimensions() > 2 ? dims[2] : 1;
    checkImageDimensions(columns, rows, "'" + path + "'");
    if (frames < 1 || frames > (1 << 20)) fail(path, "absurd Number of Frames (" + std::to_string(frames) + ")");
    {
        const gdcm::PixelFormat& declared = image.GetPixelFormat();
        checkImageBudget({columns, rows, std::max<int>(declared.GetSamplesPerPixel(), 1),
                          std::max<int>(declared.GetBitsAllocated(), 8), frames},
                         "cannot open '" + path + "'");
    }
    if (options.frame < 0 || options.frame >= frames)
        fail(path, "frame " + std::to_string(options.frame) + " is out of range (the file has " +
                       std::to_string(frames) + (frames == 1 ? " frame, 0)" : " frames, 0 to " + std::to_string(frames - 1) + ")"));

    const gdcm::TransferSyntax ts = image.GetTransferSyntax();
    const std::string tsUid = ts.GetString() ? ts.GetString() : "unknown";
    const gdcm::PhotometricInterpretation pi = image.GetPhotometricInterpretation();
    const bool palette = pi == gdcm::PhotometricInterpretation::PALETTE_COLOR;

    const gdcm::PixelFormat storedFormat = image.GetPixelFormat(); // before the lookup table replaces it

    // Palette colour becomes RGB through GDCM's lookup-table filter, which then owns the pixels.
    gdcm::ImageApplyLookupTable lookup;
    const gdcm::Image* pixels = &image;
    if (palette) {
        lookup.SetInput(image);
        bool applied = false;
        if (!runGuardedAgainstAbort([&] { applied = lookup.Apply(); }) || !applied)
            fail(path, "cannot apply the palette colour lookup table");
        pixels = &lookup.GetOutput();
    }

    const gdcm::PixelFormat& pf = pixels->GetPixelFormat();
    DicomPixelLayout layout;
    layout.columns = static_cast<int>(columns);
    layout.rows = static_cast<int>(rows);
    layout.frames = static_cast<int>(frames);
    layout.samplesPerPixel = pf.GetSamplesPerPixel();
    layout.bitsAllocated = pf.GetBitsAllocated();
    layout.bitsStored = pf.GetBitsStored();
    layout.highBit = pf.GetHighBit();
    layout.isSigned = pf.GetPixelRepresentation() == 1;
    // GDCM asserts on a Pixel Representation it does not know (found by fuzz_detect): guarded like every
    // other call into it that can abort.
    gdcm::PixelFormat::ScalarType scalar = gdcm::PixelFormat::UNKNOWN;
    if (!runGuardedAgainstAbort([&] { scalar = pf.GetScalarType(); }))
        fail(path, "unsupported pixel format (Pixel Representation " + std::to_string(pf.GetPixelRepresentation()) +
                       ", Bits Allocated " + std::to_string(pf.GetBitsAllocated()) + ")");
    layout.isFloat = scalar == gdcm::PixelFormat::FLOAT32 || scalar == gdcm::PixelFormat::FLOAT64;
    layout.planar = layout.samplesPerPixel == 3 && pixels->GetPlanarConfiguration() == 1;
    layout.colour = palette ? DicomColour::Rgb : colourOf(pi, ts, ds, path);
    // GDCM 3.0 swaps big-endian pixel data in 16-bit words, which leaves the halves of 32-bit samples
    // exchanged (checked against pydicom on rtdose_expb.dcm).
    layout.swapWordHalves = ts.GetSwapCode() == gdcm::SwapCode::BigEndian && layout.bitsAllocated == 32 && !layout.isFloat;
    // The stored pixels are the palette indices, not the RGB the lookup table made of them.
    DicomPixelLayout stored = layout;
    stored.samplesPerPixel = storedFormat.GetSamplesPerPixel();
    stored.bitsAllocated = storedFormat.GetBitsAllocated();
    checkNativeLength(ds, ts, stored, pi == gdcm::PhotometricInterpretation::YBR_FULL_422, path);

    FrameValues frame;
    if (ts == gdcm::TransferSyntax::RLELossless && !palette) {
        // One fragment per frame (PS3.5 A.4.2), decoded here: see decodeRleFrame.
        const gdcm::SequenceOfFragments* fragments =
            ds.GetDataElement(gdcm::Tag(0x7fe0, 0x0010)).GetSequenceOfFragments();
        if (!fragments || fragments->GetNumberOfFragments() != static_cast<unsigned>(frames))
            fail(path, "the RLE pixel data are truncated or damaged (" +
                           std::to_string(fragments ? fragments->GetNumberOfFragments() : 0) + " fragments for " +
                           std::to_string(frames) + " frames)");
        const gdcm::ByteValue* bv = fragments->GetFragment(static_cast<unsigned>(options.frame)).GetByteValue();
        if (!bv || !bv->GetPointer()) fail(path, "the RLE frame is empty");
        DicomPixelLayout one = layout;
        one.frames = 1;
        one.planar = false;
        const std::vector<char> decoded = decodeRleFrame(reinterpret_cast<const unsigned char*>(bv->GetPointer()),
                                                         bv->GetLength(), one, path);
        frame = extractFrame(decoded.data(), decoded.size(), one, 0, path);
    } else {
        const unsigned long length = pixels->GetBufferLength();
        if (length < layout.bufferBytes())
            fail(path, "the pixel data do not match the image size (" + std::to_string(length) + " bytes for " +
                           std::to_string(layout.bufferBytes()) + ")");
        std::vector<char> buffer(length);
        bool decoded = false;
        if (!runGuardedAgainstAbort([&] { decoded = pixels->GetBuffer(buffer.data()); }) || !decoded)
            fail(path, "cannot decode the pixel data (transfer syntax " + uidName(tsUid) +
                           "): corrupt, truncated or not supported by GDCM");
        frame = extractFrame(buffer.data(), buffer.size(), layout, options.frame, path);
    }

    // Rescale: the header's own values when present; otherwise what GDCM derives (functional groups
    // of enhanced multi-frame files, Dose Grid Scaling of RT Dose).
    const auto slopeTag = firstNumber(ds, gdcm::Tag(0x0028, 0x1053));
    const auto interceptTag = firstNumber(ds, gdcm::Tag(0x0028, 0x1052));
    double slope = slopeTag ? *slopeTag : image.GetSlope();
    const double intercept = interceptTag ? *interceptTag : image.GetIntercept();
    if (slope == 0.0 || !std::isfinite(slope)) slope = 1.0; // a zero slope is a broken header, not a flat image
    const bool integer = frame.integer && slope == 1.0 && intercept == std::nearbyint(intercept);
    long double lo = frame.lowest, hi = frame.highest;
    if (integer) {
        for (double& v : frame.values) v += intercept;
        lo += intercept;
        hi += intercept;
    } else {
        for (double& v : frame.values) v = v * slope + intercept;
        const long double a = lo * slope + intercept, b = hi * slope + intercept;
        lo = std::min(a, b);
        hi = std::max(a, b);
    }

    std::optional<double> center = firstNumber(ds, gdcm::Tag(0x0028, 0x1050));
    const std::optional<double> width = firstNumber(ds, gdcm::Tag(0x0028, 0x1051));
    // MONOCHROME1 shows low values bright: mirror the values within their range so that bright is high
    // for every algorithm, and the window with them.
    if (pi == gdcm::PhotometricInterpretation::MONOCHROME1) {
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
    out.meta.header = tagsThatMatter(file, tsUid);
    return out;
}

} // namespace glint
