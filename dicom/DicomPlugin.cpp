// glint_dicom.so: the plugin behind core/io/DicomDecoder.h. GDCM reads the file, decodes the pixels and
// names tags and UIDs; every check and message is core's (core/io/DicomLoader.cpp). Calls into GDCM that
// can abort run under the host's guard; nothing thrown leaves this file.
#include "core/io/DicomDecoder.h"

#include <gdcmDicts.h>
#include <gdcmGlobal.h>
#include <gdcmImage.h>
#include <gdcmImageApplyLookupTable.h>
#include <gdcmImageReader.h>
#include <gdcmReader.h>
#include <gdcmSequenceOfFragments.h>
#include <gdcmSequenceOfItems.h>
#include <gdcmStringFilter.h>
#include <gdcmTrace.h>
#include <gdcmUIDs.h>
#include <gdcmWriter.h>

#include <cstring>
#include <memory>
#include <new>
#include <sstream>
#include <type_traits>

namespace glint {

namespace {

const DicomHost* gHost = nullptr;

// fn() under the host's abort guard: false when it called abort() (its frames are abandoned).
template <class Fn>
bool guarded(Fn&& fn) {
    using F = std::remove_reference_t<Fn>;
    return gHost->guardAgainstAbort([](void* context) { (*static_cast<F*>(context))(); }, &fn);
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
    const std::size_t first = s.find_first_not_of(' ');
    return first == std::string::npos ? std::string() : s.substr(first);
}

std::string rawTextOf(const gdcm::DataSet& ds, const gdcm::Tag& tag) {
    if (!ds.FindDataElement(tag)) return {};
    const gdcm::ByteValue* bv = ds.GetDataElement(tag).GetByteValue();
    if (!bv || !bv->GetPointer()) return {};
    return trimmed(std::string(bv->GetPointer(), bv->GetLength()));
}

std::string nameOfUid(const std::string& uid) {
    gdcm::UIDs uids;
    if (!uids.SetFromUID(uid.c_str()) || !uids.GetName()) return {};
    return uids.GetName();
}

// Reads with GDCM's image reader. An abort inside GDCM leaks the reader on purpose: its state is
// whatever the assertion left behind, so it must never be used or destroyed.
std::unique_ptr<gdcm::ImageReader> readGuarded(const std::string& path, std::istream* stream, bool& aborted) {
    auto reader = std::make_unique<gdcm::ImageReader>();
    if (stream) reader->SetStream(*stream);
    else reader->SetFileName(path.c_str());
    bool ok = false;
    aborted = !guarded([&] { ok = reader->Read(); });
    if (aborted) {
        (void)reader.release();
        return nullptr;
    }
    return ok ? std::move(reader) : nullptr;
}

bool isLossyJpeg(const gdcm::TransferSyntax& ts) {
    return ts == gdcm::TransferSyntax::JPEGBaselineProcess1 || ts == gdcm::TransferSyntax::JPEGExtendedProcess2_4 ||
           ts == gdcm::TransferSyntax::JPEGExtendedProcess3_5 ||
           ts == gdcm::TransferSyntax::JPEGSpectralSelectionProcess6_8 ||
           ts == gdcm::TransferSyntax::JPEGFullProgressionProcess10_12;
}

DicomPhotometric photometricOf(const gdcm::PhotometricInterpretation& pi) {
    switch (pi.GetType()) {
    case gdcm::PhotometricInterpretation::MONOCHROME1: return DicomPhotometric::Monochrome1;
    case gdcm::PhotometricInterpretation::MONOCHROME2: return DicomPhotometric::Monochrome2;
    case gdcm::PhotometricInterpretation::PALETTE_COLOR: return DicomPhotometric::PaletteColour;
    case gdcm::PhotometricInterpretation::RGB: return DicomPhotometric::Rgb;
    case gdcm::PhotometricInterpretation::YBR_FULL: return DicomPhotometric::YbrFull;
    case gdcm::PhotometricInterpretation::YBR_FULL_422: return DicomPhotometric::YbrFull422;
    case gdcm::PhotometricInterpretation::YBR_PARTIAL_420: return DicomPhotometric::YbrPartial420;
    case gdcm::PhotometricInterpretation::YBR_PARTIAL_422: return DicomPhotometric::YbrPartial422;
    case gdcm::PhotometricInterpretation::YBR_ICT: return DicomPhotometric::YbrIct;
    case gdcm::PhotometricInterpretation::YBR_RCT: return DicomPhotometric::YbrRct;
    default: return DicomPhotometric::Other;
    }
}

DicomPixelFormat formatOf(const gdcm::PixelFormat& pf) {
    return {pf.GetSamplesPerPixel(), pf.GetBitsAllocated(), pf.GetBitsStored(), pf.GetHighBit(),
            pf.GetPixelRepresentation()};
}

DicomBytes bytesOf(const gdcm::ByteValue* bv) {
    if (!bv) return {};
    return {reinterpret_cast<const unsigned char*>(bv->GetPointer()), static_cast<std::size_t>(bv->GetLength())};
}

const gdcm::Tag kPixelData(0x7fe0, 0x0010);

class GdcmFile final : public DicomFile {
public:
    // What GDCM read, kept alive together (an image read from memory needs its stream; the stream is
    // destroyed after the reader).
    GdcmFile(std::unique_ptr<std::stringstream> stream, std::unique_ptr<gdcm::ImageReader> reader)
        : stream_(std::move(stream)), reader_(std::move(reader)), pixels_(&reader_->GetImage()) {}

    long long columns() const override { return image().GetDimensions()[0]; }
    long long rows() const override { return image().GetDimensions()[1]; }
    long long frames() const override { return image().GetNumberOfDimensions() > 2 ? image().GetDimensions()[2] : 1; }
    DicomPixelFormat storedFormat() const override { return formatOf(image().GetPixelFormat()); }
    DicomPhotometric photometric() const override { return photometricOf(image().GetPhotometricInterpretation()); }
    std::string photometricName() const override {
        const char* name = gdcm::PhotometricInterpretation::GetPIString(image().GetPhotometricInterpretation());
        return name ? name : "";
    }

    std::string transferSyntaxUid() const override {
        const char* uid = image().GetTransferSyntax().GetString();
        return uid ? uid : "";
    }
    bool encapsulated() const override { return image().GetTransferSyntax().IsEncapsulated(); }
    bool bigEndian() const override { return image().GetTransferSyntax().GetSwapCode() == gdcm::SwapCode::BigEndian; }
    bool rleLossless() const override { return image().GetTransferSyntax() == gdcm::TransferSyntax::RLELossless; }
    bool lossyJpeg() const override { return isLossyJpeg(image().GetTransferSyntax()); }

    double slope() const override { return image().GetSlope(); }
    double intercept() const override { return image().GetIntercept(); }

    std::string rawText(std::uint16_t group, std::uint16_t element) const override {
        return rawTextOf(dataSet(), gdcm::Tag(group, element));
    }
    std::optional<std::string> value(std::uint16_t group, std::uint16_t element) const override {
        const gdcm::Tag tag(group, element);
        if (!dataSet().FindDataElement(tag)) return std::nullopt;
        if (!filter_) {
            filter_ = std::make_unique<gdcm::StringFilter>();
            filter_->SetFile(reader_->GetFile());
        }
        std::string text;
        try {
            if (!guarded([&] { text = trimmed(filter_->ToString(tag)); })) return std::nullopt;
        } catch (const std::exception&) {
            return std::nullopt;
        }
        if (text.empty()) return std::nullopt;
        return text;
    }
    std::vector<DicomLutItem> voiLuts() const override {
        std::vector<DicomLutItem> out;
        const gdcm::Tag sequence(0x0028, 0x3010);
        if (!dataSet().FindDataElement(sequence)) return out;
        try {
            gdcm::SmartPointer<gdcm::SequenceOfItems> items;
            if (!guarded([&] { items = dataSet().GetDataElement(sequence).GetValueAsSQ(); }) || !items) return out;
            for (gdcm::SequenceOfItems::SizeType i = 1; i <= items->GetNumberOfItems(); ++i) {
                const gdcm::DataSet& item = items->GetItem(i).GetNestedDataSet();
                DicomLutItem lut;
                const auto words = [&](const gdcm::Tag& tag, std::size_t* bytes) {
                    std::vector<std::uint16_t> w;
                    if (!item.FindDataElement(tag)) return w;
                    const gdcm::ByteValue* bv = item.GetDataElement(tag).GetByteValue();
                    if (!bv || !bv->GetPointer()) return w;
                    if (bytes) *bytes = bv->GetLength();
                    w.resize(bv->GetLength() / 2);
                    std::memcpy(w.data(), bv->GetPointer(), w.size() * 2);
                    return w;
                };
                lut.descriptor = words(gdcm::Tag(0x0028, 0x3002), nullptr);
                lut.data = words(gdcm::Tag(0x0028, 0x3006), &lut.dataBytes);
                lut.explanation = rawTextOf(item, gdcm::Tag(0x0028, 0x3003));
                out.push_back(std::move(lut));
            }
        } catch (const std::exception&) {
            return out;
        }
        return out;
    }
    std::string tagName(std::uint16_t group, std::uint16_t element) const override {
        const char* name = gdcm::Global::GetInstance().GetDicts().GetDictEntry(gdcm::Tag(group, element)).GetName();
        return name ? name : "";
    }

    DicomBytes nativePixelData() const override { return bytesOf(dataSet().GetDataElement(kPixelData).GetByteValue()); }
    std::size_t fragmentCount() const override {
        const gdcm::SequenceOfFragments* fragments = dataSet().GetDataElement(kPixelData).GetSequenceOfFragments();
        return fragments ? fragments->GetNumberOfFragments() : 0;
    }
    DicomBytes fragment(std::size_t index) const override {
        const gdcm::SequenceOfFragments* fragments = dataSet().GetDataElement(kPixelData).GetSequenceOfFragments();
        if (!fragments || index >= fragments->GetNumberOfFragments()) return {};
        const gdcm::ByteValue* bv = fragments->GetFragment(static_cast<unsigned>(index)).GetByteValue();
        if (!bv || !bv->GetPointer()) return {};
        return bytesOf(bv);
    }

    bool applyPalette() override {
        lookup_.SetInput(image());
        bool applied = false;
        try {
            if (!guarded([&] { applied = lookup_.Apply(); }) || !applied) return false;
        } catch (const std::exception&) {
            return false;
        }
        pixels_ = &lookup_.GetOutput();
        return true;
    }
    DicomPixelFormat pixelFormat() const override { return formatOf(pixels_->GetPixelFormat()); }
    std::optional<bool> floatingPoint() const override {
        gdcm::PixelFormat::ScalarType scalar = gdcm::PixelFormat::UNKNOWN;
        const gdcm::PixelFormat& pf = pixels_->GetPixelFormat();
        if (!guarded([&] { scalar = pf.GetScalarType(); })) return std::nullopt;
        return scalar == gdcm::PixelFormat::FLOAT32 || scalar == gdcm::PixelFormat::FLOAT64;
    }
    int planarConfiguration() const override { return static_cast<int>(pixels_->GetPlanarConfiguration()); }
    std::size_t bufferLength() const override { return pixels_->GetBufferLength(); }
    bool decode(char* out) const override {
        bool decoded = false;
        try {
            if (!guarded([&] { decoded = pixels_->GetBuffer(out); })) return false;
        } catch (const std::exception&) {
            return false;
        }
        return decoded;
    }

private:
    const gdcm::Image& image() const { return reader_->GetImage(); }
    const gdcm::DataSet& dataSet() const { return reader_->GetFile().GetDataSet(); }

    std::unique_ptr<std::stringstream> stream_;
    std::unique_ptr<gdcm::ImageReader> reader_;
    gdcm::ImageApplyLookupTable lookup_; // owns the RGB pixels of a palette image
    const gdcm::Image* pixels_;
    mutable std::unique_ptr<gdcm::StringFilter> filter_;
};

// Opens the file; when GDCM's image reader refuses it, finds out why with the plain dataset reader.
void openInto(const std::string& path, DicomOpened& out) {
    bool aborted = false;
    if (auto reader = readGuarded(path, nullptr, aborted)) {
        out.file = std::make_unique<GdcmFile>(nullptr, std::move(reader));
        return;
    }

    auto plain = std::make_unique<gdcm::Reader>();
    plain->SetFileName(path.c_str());
    bool ok = false;
    if (!guarded([&] { ok = plain->Read(); })) {
        (void)plain.release();
        ok = false;
    }
    if (!ok) {
        out.failure = DicomOpenFailure::NotDicom;
        return;
    }
    gdcm::DataSet& ds = plain->GetFile().GetDataSet();
    if (!ds.FindDataElement(kPixelData)) {
        out.failure = DicomOpenFailure::NoPixelData;
        out.sopClass = rawTextOf(ds, gdcm::Tag(0x0008, 0x0016));
        return;
    }
    // GDCM 3.0 asserts on single-frame files of multi-frame classes (RT Dose) without Number of
    // Frames: add it and read again from memory.
    if (aborted && !ds.FindDataElement(gdcm::Tag(0x0028, 0x0008))) {
        gdcm::DataElement frames(gdcm::Tag(0x0028, 0x0008));
        frames.SetVR(gdcm::VR::IS);
        frames.SetByteValue("1 ", 2);
        ds.Insert(frames);
        auto stream = std::make_unique<std::stringstream>();
        gdcm::Writer writer;
        writer.SetFile(plain->GetFile());
        writer.SetStream(*stream);
        bool written = false;
        if (guarded([&] { written = writer.Write(); }) && written) {
            if (auto reader = readGuarded(path, stream.get(), aborted)) {
                out.file = std::make_unique<GdcmFile>(std::move(stream), std::move(reader));
                return;
            }
        }
        if (aborted) (void)stream.release(); // the abandoned reader may still point at it
    }
    out.failure = DicomOpenFailure::NotAnImage;
}

class GdcmDecoder final : public DicomDecoder {
public:
    DicomOpened open(const std::string& path) const override {
        DicomOpened out;
        try {
            openInto(path, out);
        } catch (const std::bad_alloc&) {
            out = {};
            out.failure = DicomOpenFailure::OutOfMemory;
        } catch (const std::exception& e) {
            out = {};
            out.failure = DicomOpenFailure::Exception;
            out.message = e.what();
        }
        return out;
    }

    std::string uidName(const std::string& uid) const override {
        try {
            return nameOfUid(uid);
        } catch (const std::exception&) {
            return {};
        }
    }
};

} // namespace

} // namespace glint

extern "C" __attribute__((visibility("default"))) const glint::DicomDecoder* GLINT_DICOM_FACTORY(const glint::DicomHost* host) {
    static const glint::DicomHost savedHost = host ? *host : glint::DicomHost{};
    if (!savedHost.guardAgainstAbort) return nullptr;
    glint::gHost = &savedHost;
    // GDCM's own messages go nowhere: the caller reports one line.
    gdcm::Trace::SetDebug(false);
    gdcm::Trace::SetWarning(false);
    gdcm::Trace::SetError(false);
    static const glint::GdcmDecoder decoder;
    return &decoder;
}
