#include "core/io/DicomScan.h"

#include "core/util/Errors.h"
#include "core/util/ImageBudget.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

namespace glint {

namespace {

constexpr std::uint32_t kUndefined = 0xFFFFFFFFu;
constexpr std::uint32_t kItem = 0xFFFEE000u;
constexpr std::uint32_t kItemEnd = 0xFFFEE00Du;
constexpr std::uint32_t kSequenceEnd = 0xFFFEE0DDu;
constexpr std::uint32_t kPixelData = 0x7FE00010u;
constexpr int kMaxDepth = 64;
constexpr int kMaxImplicitUndefinedDepth = 8;

bool isVr(const char* vr, const char* list) {
    for (const char* p = list; *p; p += 2)
        if (vr[0] == p[0] && vr[1] == p[1]) return true;
    return false;
}
bool knownVr(const char* vr) {
    return isVr(vr, "AEASATCSDADSDTFLFDISLOLTPNSHSLSSSTTMUIULUSOBODOFOLOVOWSQUCUNURUTSVUV");
}
bool longVr(const char* vr) { return isVr(vr, "OBODOFOLOVOWSQUCUNURUTSVUV"); }

enum class Outcome { Ended, ItemEnded, Lost };

class Scanner {
public:
    explicit Scanner(const std::string& path) : path_(path), in_(std::make_unique<std::ifstream>(path, std::ios::binary)) {
        std::error_code ec;
        size_ = std::filesystem::file_size(path, ec);
        if (ec) in_->setstate(std::ios::failbit);
    }
    // A dataset held in memory (inflated from a deflated file): explicit VR little endian.
    Scanner(const std::string& path, std::string bytes, const char* where)
        : path_(path), size_(bytes.size()), where_(where) {
        in_ = std::make_unique<std::istringstream>(std::move(bytes), std::ios::binary);
    }

    void run() {
        if (!*in_) return;
        unsigned char head[132];
        std::uint64_t start = 0;
        if (read(head, 132) && std::memcmp(head + 128, "DICM", 4) == 0) start = 132;
        seek(start);
        unsigned char first[6];
        if (!read(first, 6)) return;
        seek(start);
        const std::uint16_t group = static_cast<std::uint16_t>(first[0] | (first[1] << 8));
        if (group == 0x0002) {
            if (!scanMeta()) return;
        } else {
            // A bare dataset: its encoding guessed from its first element, as the format detection does.
            explicit_ = std::isupper(first[4]) && std::isupper(first[5]);
            bigEndian_ = first[0] == 0x00 && first[1] != 0x00;
        }
        if (deflated_) {
            scanDeflated();
            return;
        }
        (void)scanDataset(0, size_);
        checkBudget();
    }

    void runInflated() {
        (void)scanDataset(0, size_);
        checkBudget();
    }

private:
    bool read(void* buffer, std::size_t n) {
        in_->read(static_cast<char*>(buffer), static_cast<std::streamsize>(n));
        return static_cast<std::size_t>(in_->gcount()) == n;
    }
    void seek(std::uint64_t position) {
        in_->clear();
        in_->seekg(static_cast<std::streamoff>(position));
    }
    std::uint64_t position() { return static_cast<std::uint64_t>(in_->tellg()); }
    std::uint16_t u16(const unsigned char* p, bool big) const {
        return static_cast<std::uint16_t>(big ? (p[0] << 8) | p[1] : p[0] | (p[1] << 8));
    }
    std::uint32_t u32(const unsigned char* p, bool big) const {
        return big ? (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3]
                   : p[0] | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) | (std::uint32_t(p[3]) << 24);
    }

    [[noreturn]] void damaged(std::uint32_t tag, std::uint64_t length, std::uint64_t left) const {
        char buf[160];
        std::snprintf(buf, sizeof buf, "element (%04X,%04X) claims %llu bytes but only %llu remain", tag >> 16,
                      tag & 0xFFFF, static_cast<unsigned long long>(length), static_cast<unsigned long long>(left));
        throw InputError("cannot open '" + path_ + "': the DICOM file is truncated or damaged (" + buf + where_ + ")");
    }

    // Skips a value of known length, after checking that the file holds it.
    bool skip(std::uint32_t tag, std::uint64_t length) {
        const std::uint64_t here = position();
        if (here > size_ || length > size_ - here) damaged(tag, length, size_ > here ? size_ - here : 0);
        seek(here + length);
        return true;
    }

    // File meta information: always explicit VR little endian; (0002,0010) sets what follows.
    bool scanMeta() {
        for (;;) {
            const std::uint64_t at = position();
            unsigned char h[8];
            if (!read(h, 8)) return false;
            const std::uint16_t group = u16(h, false);
            if (group != 0x0002) {
                seek(at);
                return true;
            }
            const std::uint32_t tag = (std::uint32_t(group) << 16) | u16(h + 2, false);
            const char vr[2] = {static_cast<char>(h[4]), static_cast<char>(h[5])};
            if (!knownVr(vr)) {
                // GDCM reads an element whose VR is not one as implicit VR: a 32-bit length. Checked against
                // the file here, or an 8-byte file declaring 1.7 GB makes GDCM allocate and zero-fill it.
                const std::uint32_t implicitLength = u32(h + 4, false);
                if (implicitLength == kUndefined) return false;
                skip(tag, implicitLength);
                continue;
            }
            std::uint32_t length = u16(h + 6, false);
            if (longVr(vr)) {
                unsigned char l[4];
                if (!read(l, 4)) return false;
                length = u32(l, false);
            }
            if (length == kUndefined) return false;
            if (tag == 0x00020010u && length < 80) {
                char uid[80] = {};
                if (!read(uid, length)) damaged(tag, length, size_ - at);
                std::string ts(uid, length);
                while (!ts.empty() && (ts.back() == '\0' || ts.back() == ' ')) ts.pop_back();
                explicit_ = ts != "1.2.840.10008.1.2";
                bigEndian_ = ts == "1.2.840.10008.1.2.2";
                deflated_ = ts == "1.2.840.10008.1.2.1.99";
                continue;
            }
            skip(tag, length);
        }
    }

    // GDCM reads nested sequences by recursion, a few stack frames a level: thousands of levels overflow
    // its stack. Real files nest a handful of levels; 64 is far beyond any of them.
    void checkDepth(int depth) const {
        if (depth > kMaxDepth)
            throw InputError("cannot open '" + path_ + "': the DICOM file is damaged (sequences nested more than " +
                             std::to_string(kMaxDepth) + " levels deep" + where_ + ")");
    }

    // The elements of a dataset up to `limit` (the file's end, or a defined-length item's end).
    Outcome scanDataset(int depth, std::uint64_t limit) {
        checkDepth(depth);
        std::uint32_t last = 0;
        while (position() < limit) {
            if (++steps_ > 2'000'000) return Outcome::Lost;
            unsigned char h[8];
            if (!read(h, 8)) return Outcome::Lost;
            const std::uint32_t tag = (std::uint32_t(u16(h, bigEndian_)) << 16) | u16(h + 2, bigEndian_);
            if (tag == kItemEnd) return Outcome::ItemEnded;
            if (tag == kItem || tag == kSequenceEnd) return Outcome::Lost; // out of step
            // Without VRs to check, descending tags are the only sign of having lost step. With VRs,
            // a file whose tags are out of order (GDCM reads those) is still followed.
            if (!explicit_ && tag < last) return Outcome::Lost;
            last = tag;
            std::uint32_t length = 0;
            char vr[2] = {'?', '?'};
            vr[0] = static_cast<char>(h[4]);
            vr[1] = static_cast<char>(h[5]);
            if (explicit_ && knownVr(vr)) {
                length = u16(h + 6, bigEndian_);
                if (longVr(vr)) {
                    unsigned char l[4];
                    if (!read(l, 4)) return Outcome::Lost;
                    length = u32(l, bigEndian_);
                }
            } else {
                // Implicit VR, or (as GDCM reads it) an element whose VR is not one: a 32-bit length.
                length = u32(h + 4, bigEndian_);
                vr[0] = vr[1] = '?';
            }
            if (depth == 0 && (tag == 0x00280010u || tag == 0x00280011u || tag == 0x00280100u || tag == 0x00280002u) &&
                length == 2) {
                unsigned char v[2];
                if (!read(v, 2)) return Outcome::Lost;
                const unsigned value = u16(v, bigEndian_);
                if (tag == 0x00280010u) rows_ = value;
                else if (tag == 0x00280011u) columns_ = value;
                else if (tag == 0x00280100u) bitsAllocated_ = value;
                else samplesPerPixel_ = value;
                continue;
            }
            if (depth == 0 && tag == 0x00280008u && length > 0 && length <= 16) { // Number of Frames (IS)
                char v[17] = {};
                if (!read(v, length)) return Outcome::Lost;
                frames_ = std::strtoll(v, nullptr, 10);
                continue;
            }
            if (length != kUndefined) {
                // A sequence of defined length (SQ, or an implicit-VR or UN value that starts with an item,
                // which GDCM reads as one): its items are followed too, for their nesting depth.
                if (length >= 8 && tag != kPixelData && (vr[0] == '?' || isVr(vr, "SQUN"))) {
                    const std::uint64_t here = position();
                    unsigned char peek[4];
                    if (here <= size_ && length <= size_ - here && read(peek, 4) &&
                        ((std::uint32_t(u16(peek, bigEndian_)) << 16) | u16(peek + 2, bigEndian_)) == kItem) {
                        seek(here);
                        // Not items after all (an OB-like value that starts with the same bytes): skipped whole.
                        if (scanDefinedItems(depth, here + length) == Outcome::Lost) {
                            if (steps_ > 2'000'000) return Outcome::Lost;
                            seek(here + length);
                        }
                        continue;
                    }
                    seek(here);
                }
                skip(tag, length);
                continue;
            }
            if (vr[0] != '?' && !isVr(vr, "SQUNOBOW")) return Outcome::Lost;
            // GDCM sums the lengths of implicit-VR items of undefined length by recursion that calls itself
            // several times a level: its time grows about five-fold a level (10 levels: 1.3 s, 12: minutes).
            const bool implicitUndefined = tag != kPixelData && (vr[0] == '?' || isVr(vr, "UN"));
            if (implicitUndefined && ++implicitUndefinedDepth_ > kMaxImplicitUndefinedDepth)
                throw InputError("cannot open '" + path_ + "': the DICOM file nests implicit-VR sequences of undefined "
                                 "length more than " + std::to_string(kMaxImplicitUndefinedDepth) +
                                 " levels deep (GDCM's reader takes time exponential in that depth" + where_ + ")");
            const Outcome items = scanItems(tag == kPixelData, depth);
            if (implicitUndefined) --implicitUndefinedDepth_;
            if (items == Outcome::Lost) return Outcome::Lost;
        }
        return Outcome::Ended;
    }

    // GDCM (JPEG2000Codec::GetHeaderInfo, on every JPEG 2000 file it opens) walks the main header of the
    // first fragment marker by marker until SOD or EOC, trusting each marker segment's length: a length
    // that jumps past the end of the fragment sends it reading beyond its buffer (a crash under ASan,
    // found by fuzz_dicom), and one below 2 steps backwards. The same walk here, bounded: a header that
    // leaves the fragment is refused. Beyond the 64 KB read, it gives up quietly.
    void checkJ2kMainHeader(const std::vector<unsigned char>& b, std::uint64_t length) {
        const auto be16 = [&](std::uint64_t i) { return std::uint32_t(b[i]) << 8 | b[i + 1]; };
        std::uint64_t pos = 0;
        for (int markers = 0; markers < 100000; ++markers) {
            if (pos + 2 > length) break;        // GDCM would read the next marker past the end
            if (pos + 2 > b.size()) return;     // beyond what was read: no verdict
            const std::uint32_t marker = be16(pos);
            pos += 2;
            if (pos == length) return;          // GDCM stops at the end of the fragment
            if (marker == 0xFF93 || marker == 0xFFD9) return; // SOD, EOC: the main header is whole
            if (marker == 0xFF4F || marker == 0xFF92) continue; // SOC, EPH: no length
            if (pos + 2 > length) break;
            if (pos + 2 > b.size()) return;
            const std::uint32_t segment = be16(pos);
            if (segment < 2) break;
            pos += segment;
        }
        throw InputError("cannot open '" + path_ +
                         "': the DICOM file is damaged (the JPEG 2000 header runs past the end of its fragment)");
    }

    // The size a compressed frame declares: JPEG and JPEG-LS in their start-of-frame marker, JPEG 2000
    // in its SIZ marker. A decoder believes it and allocates accordingly, so it must match the header.
    void checkCodestream(std::uint32_t length) {
        std::vector<unsigned char> b(std::min<std::uint32_t>(length, 65536));
        const std::uint64_t here = position();
        if (!read(b.data(), b.size())) return;
        seek(here);
        std::uint64_t width = 0, height = 0;
        const auto be16 = [&](std::size_t i) { return std::uint32_t(b[i]) << 8 | b[i + 1]; };
        if (b.size() >= 2 && b[0] == 0xFF && b[1] == 0x4F) checkJ2kMainHeader(b, length);
        if (rows_ == 0 || columns_ == 0) return;
        const auto be32 = [&](std::size_t i) { return be16(i) << 16 | be16(i + 2); };
        if (b.size() >= 24 && b[0] == 0xFF && b[1] == 0x4F && b[2] == 0xFF && b[3] == 0x51) { // J2K SOC, SIZ
            width = std::uint64_t(be32(8)) - std::min(be32(8), be32(16));
            height = std::uint64_t(be32(12)) - std::min(be32(12), be32(20));
        } else if (b.size() >= 4 && b[0] == 0xFF && b[1] == 0xD8) { // JPEG SOI: walk to the frame header
            for (std::size_t i = 2; i + 9 < b.size();) {
                if (b[i] != 0xFF) break;
                const unsigned char m = b[i + 1];
                if ((m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) || m == 0xF7) {
                    height = be16(i + 5);
                    width = be16(i + 7);
                    break;
                }
                if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
                    i += 2;
                    continue;
                }
                i += 2 + be16(i + 2);
            }
        }
        if ((width && width != columns_) || (height && height > rows_)) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "a compressed frame of %llu x %llu pixels in a %u x %u image",
                          static_cast<unsigned long long>(width), static_cast<unsigned long long>(height), columns_, rows_);
            throw InputError("cannot open '" + path_ + "': the DICOM file is damaged (" + buf + ")");
        }
    }

    // The items of an undefined-length sequence, or the fragments of encapsulated pixel data.
    Outcome scanItems(bool fragments, int depth) {
        int item = 0;
        for (;;) {
            if (++steps_ > 2'000'000) return Outcome::Lost;
            unsigned char h[8];
            if (!read(h, 8)) return Outcome::Lost;
            const std::uint32_t tag = (std::uint32_t(u16(h, bigEndian_)) << 16) | u16(h + 2, bigEndian_);
            const std::uint32_t length = u32(h + 4, bigEndian_);
            if (tag == kSequenceEnd) return Outcome::Ended;
            if (tag != kItem) return Outcome::Lost;
            if (length != kUndefined) {
                if (fragments && ++item == 2) checkCodestream(length); // item 1 is the offset table
                skip(tag, length);
                continue;
            }
            if (fragments || scanDataset(depth + 1, size_) != Outcome::ItemEnded) return Outcome::Lost;
        }
    }

    // The items of a sequence of defined length, which ends at `end`.
    Outcome scanDefinedItems(int depth, std::uint64_t end) {
        while (position() < end) {
            if (++steps_ > 2'000'000) return Outcome::Lost;
            unsigned char h[8];
            if (!read(h, 8)) return Outcome::Lost;
            const std::uint32_t tag = (std::uint32_t(u16(h, bigEndian_)) << 16) | u16(h + 2, bigEndian_);
            const std::uint32_t length = u32(h + 4, bigEndian_);
            if (tag == kSequenceEnd) break;
            if (tag != kItem) return Outcome::Lost;
            if (length == kUndefined) {
                if (scanDataset(depth + 1, end) != Outcome::ItemEnded) return Outcome::Lost;
                continue;
            }
            const std::uint64_t itemEnd = position() + length;
            if (itemEnd > end) return Outcome::Lost;
            if (scanDataset(depth + 1, itemEnd) == Outcome::Lost) return Outcome::Lost;
            seek(itemEnd);
        }
        seek(end);
        return Outcome::Ended;
    }

    // The image the header describes (rows x columns x frames x samples x bits) against the memory
    // limit, before GDCM allocates and decodes it.
    void checkBudget() const {
        if (rows_ == 0 || columns_ == 0) return;
        DecodedSize size;
        size.width = columns_;
        size.height = rows_;
        size.frames = std::max<long long>(frames_, 1);
        size.channels = samplesPerPixel_ ? static_cast<int>(samplesPerPixel_) : 1;
        size.bitsPerSample = bitsAllocated_ ? static_cast<int>(bitsAllocated_) : 8;
        checkImageBudget(size, "cannot open '" + path_ + "'");
    }

    // Deflated Explicit VR Little Endian: the dataset after the file meta information is one raw
    // deflate stream. It is inflated here with a cap (the memory limit: GDCM would hold the same bytes),
    // and its element lengths checked against what it really holds.
    void scanDeflated() {
        const std::uint64_t start = position();
        if (start >= size_) return;
        const std::uint64_t cap = maxImageBytes();
        std::string compressed(static_cast<std::size_t>(size_ - start), '\0');
        if (!read(compressed.data(), compressed.size())) return;
        z_stream z{};
        if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return;
        std::string out;
        z.next_in = reinterpret_cast<Bytef*>(compressed.data());
        z.avail_in = static_cast<uInt>(std::min<std::size_t>(compressed.size(), UINT32_MAX));
        int result = Z_OK;
        std::vector<char> chunk(1 << 16);
        while (result == Z_OK) {
            z.next_out = reinterpret_cast<Bytef*>(chunk.data());
            z.avail_out = static_cast<uInt>(chunk.size());
            result = inflate(&z, Z_NO_FLUSH);
            out.append(chunk.data(), chunk.size() - z.avail_out);
            if (out.size() > cap) {
                inflateEnd(&z);
                throw InputError("cannot open '" + path_ + "': the deflated DICOM dataset expands to more than " +
                                 formatByteSize(static_cast<long double>(cap)) + " (the limit, GLINT_MAX_IMAGE_BYTES)");
            }
            if (result == Z_BUF_ERROR && z.avail_in == 0) break; // the stream ends early: scan what there is
        }
        const std::string reason = z.msg ? z.msg : "";
        inflateEnd(&z);
        if (result == Z_DATA_ERROR || result == Z_MEM_ERROR || result == Z_STREAM_ERROR)
            throw InputError("cannot open '" + path_ + "': the deflated DICOM dataset is corrupt (zlib: " +
                             (reason.empty() ? std::string("invalid data") : reason) + ")");
        Scanner(path_, std::move(out), " in the deflated dataset").runInflated();
    }

    const std::string& path_;
    std::unique_ptr<std::istream> in_;
    std::uint64_t size_ = 0;
    const char* where_ = "";
    unsigned bitsAllocated_ = 0, samplesPerPixel_ = 0;
    long long frames_ = 1;
    bool explicit_ = true;
    bool bigEndian_ = false;
    bool deflated_ = false;
    long steps_ = 0;
    int implicitUndefinedDepth_ = 0;
    unsigned rows_ = 0, columns_ = 0;
};

} // namespace

void checkDicomElementLengths(const std::string& path) { Scanner(path).run(); }

} // namespace glint
