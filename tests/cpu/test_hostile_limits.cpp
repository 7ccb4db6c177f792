// Limits that follow the job and one decoded-size check that reads the real headers (issues 35 and 36).
//
// The memory limit is the smallest of half the physical memory, the room under RLIMIT_AS and the cgroup's
// memory limit (v1 and v2), and the threads follow the CPU affinity and the cgroup's CPU quota: the cgroup
// readers are checked on fake trees built here, the others on real child processes (glint-cli under
// setrlimit(RLIMIT_AS) and under a one-CPU affinity).
//
// The hostile files are written here byte by byte: TIFFs whose sizes are typed SSHORT/SLONG (and negative,
// and not integers), a 1 x 1 TIFF with a huge tile, BigTIFF (a valid one is read), a JPEG with a junk byte
// after APP0 (libjpeg skips it; so must the size check), PGMs with values above their largest value, and
// JPEGs cut short with a fake end-of-image marker (progressive and baseline). Each goes through glint-cli
// (exit 3, one line) run under RLIMIT_AS of 1 GiB, so that a size check that is bypassed shows as a refusal
// for the wrong reason or a crash, and through the loader API.
#include "tests/support/TestSupport.h"

#include "core/io/Codecs.h"
#include "core/io/ImageLoader.h"
#include "core/util/BoundedInflate.h"
#include "core/util/Errors.h"
#include "core/util/ImageBudget.h"
#include "core/util/ResourceLimits.h"

#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#if GLINT_WITH_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif
#include <opencv2/core.hpp>

#include <cstdint>
#include <random>
#include <sched.h>
#include <string>
#include <sys/resource.h>
#include <zlib.h>
#include <vector>

using namespace glint;

namespace {

// ------------------------------------------------------------------------------------------ file helpers

QString pathFor(const QString& name) { return test::tempDir() + "/" + name; }

QString writeBytes(const QString& name, const QByteArray& bytes) {
    QFile f(pathFor(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) qFatal("cannot write %s", qPrintable(name));
    return pathFor(name);
}

void writeText(const QString& path, const QByteArray& text) {
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) qFatal("cannot write %s", qPrintable(path));
}

void putBe(QByteArray& b, std::uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) b.append(static_cast<char>((v >> (8 * i)) & 0xFF));
}

#if GLINT_WITH_IMGCODECS // the raster files' writers: only the raster tests use them
void putLe(QByteArray& b, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) b.append(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// ------------------------------------------------------------------------------------------ TIFF writer

struct TiffEntry {
    std::uint16_t tag;
    std::uint16_t type; // 1 BYTE, 3 SHORT, 4 LONG, 5 RATIONAL, 8 SSHORT, 9 SLONG, 16 LONG8
    std::uint64_t value;
};

int tiffTypeSize(std::uint16_t type) {
    switch (type) {
    case 1: case 6: return 1;
    case 3: case 8: return 2;
    case 4: case 9: return 4;
    default: return 8; // RATIONAL (two LONGs), LONG8
    }
}

// A little-endian TIFF (classic or BigTIFF) of one image directory with the entries (sorted by tag, one
// value each; the strip or tile offset tags get the pixel data's offset, written as given otherwise), the
// pixel data right after the header. A RATIONAL is written out of line (value/1).
QByteArray tiffFile(std::vector<TiffEntry> entries, const QByteArray& pixels, bool bigTiff = false) {
    QByteArray out;
    out.append("II", 2);
    putLe(out, bigTiff ? 43 : 42, 2);
    const int header = bigTiff ? 16 : 8;
    const std::uint64_t ifd = header + pixels.size() + (pixels.size() % 2);
    if (bigTiff) {
        putLe(out, 8, 2);
        putLe(out, 0, 2);
        putLe(out, ifd, 8);
    } else {
        putLe(out, ifd, 4);
    }
    out.append(pixels);
    if (pixels.size() % 2) out.append('\0');
    const int entrySize = bigTiff ? 20 : 12;
    const int inlineBytes = bigTiff ? 8 : 4;
    std::uint64_t extraAt = ifd + (bigTiff ? 8 : 2) + entries.size() * entrySize + (bigTiff ? 8 : 4);
    QByteArray extra;
    putLe(out, entries.size(), bigTiff ? 8 : 2);
    for (TiffEntry& e : entries) {
        if (e.tag == 273 || e.tag == 324) e.value = header;
        putLe(out, e.tag, 2);
        putLe(out, e.type, 2);
        putLe(out, 1, bigTiff ? 8 : 4);
        const int size = tiffTypeSize(e.type);
        if (e.type == 5) { // RATIONAL: value / 1, out of line in a classic TIFF
            if (bigTiff) {
                putLe(out, e.value, 4);
                putLe(out, 1, 4);
            } else {
                putLe(out, extraAt + extra.size(), 4);
                putLe(extra, e.value, 4);
                putLe(extra, 1, 4);
            }
            continue;
        }
        putLe(out, e.value, size);
        for (int i = size; i < inlineBytes; ++i) out.append('\0');
    }
    putLe(out, 0, bigTiff ? 8 : 4); // no next directory
    out.append(extra);
    return out;
}

// A w x h 8-bit grey TIFF in one strip, width and height written in the given types; `pixels` bytes of data.
QByteArray greyTiff(std::uint64_t w, std::uint16_t wType, std::uint64_t h, std::uint16_t hType, int pixels,
                    bool bigTiff = false) {
    QByteArray data(pixels, '\0');
    for (int i = 0; i < pixels; ++i) data[i] = static_cast<char>(i * 20);
    return tiffFile({{256, wType, w},
                     {257, hType, h},
                     {258, 3, 8},
                     {259, 3, 1},
                     {262, 3, 1},
                     {273, 4, 0},
                     {277, 3, 1},
                     {278, 4, h},
                     {279, 4, static_cast<std::uint64_t>(pixels)}},
                    data, bigTiff);
}

// A 1 x 1 grey TIFF in one tile of tw x th.
QByteArray tiledTiff(std::uint64_t tw, std::uint64_t th) {
    return tiffFile({{256, 3, 1},
                     {257, 3, 1},
                     {258, 3, 8},
                     {259, 3, 1},
                     {262, 3, 1},
                     {277, 3, 1},
                     {322, 4, tw},
                     {323, 4, th},
                     {324, 4, 0},
                     {325, 4, 16}},
                    QByteArray(16, '\x7f'));
}

// ------------------------------------------------------------------------------------------ PNG writer

std::uint32_t crc32Of(const QByteArray& bytes) {
    static std::uint32_t table[256] = {};
    if (table[1] == 0)
        for (std::uint32_t n = 0; n < 256; ++n) {
            std::uint32_t c = n;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[n] = c;
        }
    std::uint32_t c = 0xFFFFFFFFu;
    for (char ch : bytes) c = table[(c ^ static_cast<unsigned char>(ch)) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

void pngChunk(QByteArray& out, const char* type, const QByteArray& data) {
    putBe(out, static_cast<std::uint64_t>(data.size()), 4);
    const QByteArray body = QByteArray(type, 4) + data;
    out.append(body);
    putBe(out, crc32Of(body), 4);
}

// A valid w x h 8-bit grey PNG of zeros (a few hundred KiB for 8000 x 8000).
QByteArray zeroPng(int w, int h) {
    QByteArray out("\x89PNG\r\n\x1a\n", 8);
    QByteArray ihdr;
    putBe(ihdr, static_cast<std::uint64_t>(w), 4);
    putBe(ihdr, static_cast<std::uint64_t>(h), 4);
    ihdr.append("\x08\x00\x00\x00\x00", 5); // 8 bit, grey, deflate, no filter, no interlace
    pngChunk(out, "IHDR", ihdr);
    const QByteArray raw(static_cast<qsizetype>(h) * (w + 1), '\0'); // filter byte 0 and zeros, each row
    pngChunk(out, "IDAT", qCompress(raw, 1).mid(4));                   // qCompress: 4 length bytes, then zlib
    pngChunk(out, "IEND", {});
    return out;
}

// ------------------------------------------------------------------------------------------ JPEG helpers

// Offsets of every marker `code` (0xFF code) outside the entropy-coded data's stuffed bytes (for the JPEG
// cases, which only builds with raster codecs compile).
[[maybe_unused]] std::vector<int> markerOffsets(const QByteArray& jpeg, unsigned char code) {
    std::vector<int> at;
    for (int i = 0; i + 1 < jpeg.size(); ++i)
        if (static_cast<unsigned char>(jpeg[i]) == 0xFF && static_cast<unsigned char>(jpeg[i + 1]) == code) at.push_back(i);
    return at;
}

// A JPEG that is only headers: SOI, APP0 (JFIF), `junk` bytes, then a frame header of w x h, 1 component.
QByteArray jpegHeaderOnly(int w, int h, const QByteArray& junk) {
    QByteArray out("\xFF\xD8", 2);
    out.append("\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00", 18);
    out.append(junk);
    out.append("\xFF\xC0\x00\x0B\x08", 5);
    putBe(out, static_cast<std::uint64_t>(h), 2);
    putBe(out, static_cast<std::uint64_t>(w), 2);
    out.append("\x01\x01\x11\x00", 4);
    out.append("\xFF\xD9", 2);
    return out;
}
#endif

// ------------------------------------------------------------------------------------------ zlib bomb

// Qt's qCompress form of `zeros` zero bytes, declaring `declared` as its length, deflated a MiB at a time
// (about 1 MiB of output per GiB).
QByteArray zeroBomb(std::uint64_t zeros, std::uint32_t declared) {
    QByteArray out;
    putBe(out, declared, 4);
    z_stream z{};
    if (deflateInit(&z, 1) != Z_OK) qFatal("deflateInit");
    const std::vector<unsigned char> chunk(1 << 20, 0);
    std::vector<unsigned char> buffer(1 << 16);
    for (std::uint64_t done = 0; done < zeros;) {
        const uInt n = static_cast<uInt>(std::min<std::uint64_t>(chunk.size(), zeros - done));
        done += n;
        const int flush = done == zeros ? Z_FINISH : Z_NO_FLUSH;
        z.next_in = const_cast<unsigned char*>(chunk.data());
        z.avail_in = n;
        int rc = Z_OK;
        do {
            z.next_out = buffer.data();
            z.avail_out = static_cast<uInt>(buffer.size());
            rc = deflate(&z, flush);
            out.append(reinterpret_cast<const char*>(buffer.data()), static_cast<qsizetype>(buffer.size() - z.avail_out));
        } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    }
    deflateEnd(&z);
    return out;
}

long maxRssKiB() {
    struct rusage u {};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

// --------------------------------------------------------------------------------- child process helpers

// glint-cli with `args` under RLIMIT_AS of `asBytes` (0: none) and, when `oneCpu`, the affinity of one
// CPU; GLINT_MAX_IMAGE_BYTES and GLINT_THREADS unset, so the limits come from the process itself.
test::CliResult runLimited(const QStringList& args, std::uint64_t asBytes, bool oneCpu = false) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("GLINT_MAX_IMAGE_BYTES");
    env.remove("GLINT_THREADS");
    process.setProcessEnvironment(env);
    process.setChildProcessModifier([asBytes, oneCpu] {
        if (asBytes) {
            struct rlimit r {};
            r.rlim_cur = r.rlim_max = asBytes;
            if (::setrlimit(RLIMIT_AS, &r) != 0) ::_exit(97);
        }
        if (oneCpu) {
            cpu_set_t now;
            CPU_ZERO(&now);
            if (::sched_getaffinity(0, sizeof now, &now) != 0) ::_exit(98);
            int first = 0;
            while (first < CPU_SETSIZE && !CPU_ISSET(first, &now)) ++first;
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(first, &one);
            if (::sched_setaffinity(0, sizeof one, &one) != 0) ::_exit(98);
        }
    });
    return test::runProcess(process, test::cliPath(), args);
}

constexpr std::uint64_t kChildAddressSpace = 1ULL << 30; // 1 GiB

#if GLINT_WITH_IMGCODECS
void expectRefused(const QString& path, const QByteArray& message) {
    const test::CliResult r = runLimited({"info", path}, kChildAddressSpace);
    QVERIFY2(r.exitCode == 3, qPrintable("exit " + QString::number(r.exitCode) + ": " + r.err));
    QVERIFY2(test::oneErrorLine(r.err), r.err.constData());
    QVERIFY2(r.err.contains(message), r.err.constData());
    // The loader API, in this process, gives the same refusal.
    try {
        (void)loadImage(path.toStdString());
        QFAIL("loadImage accepted the file");
    } catch (const InputError& e) {
        QVERIFY2(QByteArray(e.what()).contains(message), e.what());
    }
}

int widthOf(const QString& path) {
    const test::CliResult r = runLimited({"info", path, "--json", "-"}, kChildAddressSpace);
    if (r.exitCode != 0) qWarning("%s", r.err.constData());
    return r.exitCode == 0 ? test::jsonOf(r)["width"].toInt(-1) : -1;
}
#endif

} // namespace

class HostileLimitsTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        // In this process a fixed limit (the child processes find their own): 256 MiB.
        setMaxImageBytes(256ULL << 20);
    }

    // --- cgroup readers on fake trees -------------------------------------------------------------------

    void cgroupLimitParsing() {
        QCOMPARE(parseCgroupLimit("2147483648\n"), std::optional<std::uint64_t>(2147483648ULL));
        QCOMPARE(parseCgroupLimit("  4096 "), std::optional<std::uint64_t>(4096));
        for (const char* none : {"max\n", "", "-1", "12abc", "1.5G", "0", "9223372036854771712",
                                 "99999999999999999999999", "\x01\x02"})
            QVERIFY2(!parseCgroupLimit(none), none);
    }

    void cgroupV2Memory() {
        const QString root = pathFor("cg-v2");
        const QString base = root + "/sys/fs/cgroup";
        writeText(base + "/memory.max", "garbage\n");
        writeText(base + "/job_7/memory.max", "3221225472\n");
        writeText(base + "/job_7/step_0/memory.max", "max\n");
        writeText(base + "/job_7/step_0/memory.high", "max\n");
        const auto limit = cgroupMemoryLimit("0::/job_7/step_0\n", root.toStdString());
        QVERIFY(limit);
        QCOMPARE(limit->bytes, 3221225472ULL); // from the parent: the whole path counts
        QCOMPARE(limit->source, std::string("the cgroup's memory.max"));
        // memory.high below it wins.
        writeText(base + "/job_7/step_0/memory.high", "1073741824\n");
        const auto high = cgroupMemoryLimit("0::/job_7/step_0\n", root.toStdString());
        QVERIFY(high);
        QCOMPARE(high->bytes, 1073741824ULL);
        QCOMPARE(high->source, std::string("the cgroup's memory.high"));
        // A path that does not exist here (a container whose cgroup is not namespaced): the mount's root.
        writeText(base + "/memory.max", "2147483648\n");
        const auto inside = cgroupMemoryLimit("0::/docker/0123abcd\n", root.toStdString());
        QVERIFY(inside);
        QCOMPARE(inside->bytes, 2147483648ULL);
        // No files, garbage, "max": no limit.
        QVERIFY(!cgroupMemoryLimit("0::/\n", pathFor("cg-none").toStdString()));
        QVERIFY(!cgroupMemoryLimit("garbage without colons", root.toStdString()));
        QVERIFY(!cgroupMemoryLimit("", root.toStdString()));
    }

    void cgroupV1Memory() {
        const QString root = pathFor("cg-v1");
        const QString mem = root + "/sys/fs/cgroup/memory";
        writeText(mem + "/memory.limit_in_bytes", "9223372036854771712\n"); // v1's "unlimited"
        writeText(mem + "/slurm/uid_0/job_9/memory.limit_in_bytes", "1610612736\n");
        const std::string self = "12:pids:/slurm/uid_0/job_9\n5:memory:/slurm/uid_0/job_9\n3:cpu,cpuacct:/slurm/uid_0/job_9\n";
        const auto limit = cgroupMemoryLimit(self, root.toStdString());
        QVERIFY(limit);
        QCOMPARE(limit->bytes, 1610612736ULL);
        QCOMPARE(limit->source, std::string("the cgroup's memory.limit_in_bytes"));
        // Only the unlimited value: none.
        QVERIFY(!cgroupMemoryLimit("5:memory:/\n", root.toStdString()));
    }

    void cgroupCpuQuotas() {
        const QString root = pathFor("cg-cpu2");
        const QString base = root + "/sys/fs/cgroup";
        writeText(base + "/a/cpu.max", "max 100000\n");
        QVERIFY(!cgroupCpuQuota("0::/a\n", root.toStdString()));
        writeText(base + "/a/b/cpu.max", "250000 100000\n");
        QCOMPARE(cgroupCpuQuota("0::/a/b\n", root.toStdString()), std::optional<int>(3)); // 2.5 rounded up
        writeText(base + "/a/cpu.max", "50000 100000\n");
        QCOMPARE(cgroupCpuQuota("0::/a/b\n", root.toStdString()), std::optional<int>(1)); // half a CPU: at least 1
        writeText(base + "/a/cpu.max", "garbage\n");
        writeText(base + "/a/b/cpu.max", "100000 0\n");
        QVERIFY(!cgroupCpuQuota("0::/a/b\n", root.toStdString()));

        const QString v1 = pathFor("cg-cpu1");
        const QString cpu = v1 + "/sys/fs/cgroup/cpu,cpuacct";
        writeText(cpu + "/job/cpu.cfs_quota_us", "150000\n");
        writeText(cpu + "/job/cpu.cfs_period_us", "100000\n");
        writeText(cpu + "/cpu.cfs_quota_us", "-1\n");
        writeText(cpu + "/cpu.cfs_period_us", "100000\n");
        QCOMPARE(cgroupCpuQuota("4:cpu,cpuacct:/job\n", v1.toStdString()), std::optional<int>(2));
        QVERIFY(!cgroupCpuQuota("4:cpu,cpuacct:/\n", v1.toStdString()));
        QVERIFY(!cgroupCpuQuota("4:memory:/job\n", v1.toStdString())); // not the cpu controller's line
    }

    // This process: the limit is never above half the physical memory, nor the cgroup's; the threads
    // never above the affinity.
    void processLimits() {
        const MemoryLimit limit = processMemoryLimit();
        QVERIFY(limit.bytes >= 1);
        QVERIFY(limit.bytes <= physicalMemoryBytes() / 2);
        QVERIFY(!limit.source.empty());
        if (const auto as = addressSpaceLimit()) QVERIFY(limit.bytes < *as);
        const auto affinity = affinityCpuCount();
        QVERIFY(affinity && *affinity >= 1);
        QVERIFY(processCpuCount() >= 1 && processCpuCount() <= *affinity);
    }

    // --- bounded decompression (session files' masks) ----------------------------------------------------

    void boundedInflate() {
        QByteArray mask(64 * 48, '\0');
        for (int i = 0; i < mask.size(); ++i) mask[i] = static_cast<char>((i % 64 > 10 && i / 64 < 30) ? 1 : 0);
        const QByteArray packed = qCompress(mask, 9);
        const auto bytes = [](const QByteArray& b) { return reinterpret_cast<const std::uint8_t*>(b.constData()); };
        const auto back = inflateQtCompressed(bytes(packed), static_cast<std::size_t>(packed.size()), 64 * 48);
        QVERIFY(back);
        QVERIFY(std::equal(back->begin(), back->end(), mask.cbegin(), mask.cend()));
        // Another size than the mask's, a cut stream, garbage: nothing.
        QVERIFY(!inflateQtCompressed(bytes(packed), static_cast<std::size_t>(packed.size()), 64 * 48 - 1));
        QVERIFY(!inflateQtCompressed(bytes(packed), static_cast<std::size_t>(packed.size()) - 3, 64 * 48));
        const QByteArray junk("\x00\x00\x0c\x00garbage garbage");
        QVERIFY(!inflateQtCompressed(bytes(junk), static_cast<std::size_t>(junk.size()), 64 * 48));
        QVERIFY(!inflateQtCompressed(bytes(packed), 3, 64 * 48));
    }

    // A mask of 1 GiB of zeros in about 1 MiB: whatever length it declares, inflating it for a mask of
    // 4096 pixels stops at 4096 bytes (the process grows by far less than the bomb).
    void zlibBombStopsAtTheMaskSize() {
        const QByteArray honest = zeroBomb(1ULL << 30, 0x40000000u); // declares its 1 GiB
        const QByteArray lying = QByteArray("\x00\x00\x10\x00", 4) + honest.mid(4); // declares 4096
        QVERIFY(honest.size() < (8 << 20));
        const long before = maxRssKiB();
        const auto* data = reinterpret_cast<const std::uint8_t*>(lying.constData());
        QVERIFY(!inflateQtCompressed(data, static_cast<std::size_t>(lying.size()), 4096));
        QVERIFY(!inflateQtCompressed(reinterpret_cast<const std::uint8_t*>(honest.constData()),
                                     static_cast<std::size_t>(honest.size()), 4096));
        QVERIFY(!inflateExactly(data + 4, static_cast<std::size_t>(lying.size()) - 4, 1 << 20));
        QVERIFY2(maxRssKiB() - before < 64 * 1024, qPrintable(QString::number(maxRssKiB() - before) + " KiB more"));
    }

    // --- real child processes ---------------------------------------------------------------------------

#if GLINT_WITH_IMGCODECS // raster files (PNG, TIFF, JPEG, PNM): a build without the codecs reads none
    // A valid 8000 x 8000 PNG (64 Mpixels: 1.1 GiB with Glint's working copies) under RLIMIT_AS of 1 GiB:
    // refused before decoding, naming the limit; a small image under the same limit is read.
    void addressSpaceLimitRefuses() {
        const QString big = writeBytes("big-valid.png", zeroPng(8000, 8000));
        const test::CliResult r = runLimited({"info", big}, kChildAddressSpace);
        QVERIFY2(r.exitCode == 3, qPrintable("exit " + QString::number(r.exitCode) + ": " + r.err));
        QVERIFY2(test::oneErrorLine(r.err), r.err.constData());
        QVERIFY2(r.err.contains("too large") && r.err.contains("RLIMIT_AS of 1.0 GiB"), r.err.constData());
        // Without the limit, the same file passes the size check wherever half the memory holds it.
        if (physicalMemoryBytes() / 2 > (3ULL << 30)) {
            const test::CliResult free = runLimited({"info", big}, 0);
            QVERIFY2(!free.err.contains("too large"), free.err.constData());
        }
        QCOMPARE(widthOf(writeBytes("small-valid.png", zeroPng(64, 48))), 64);
    }
#endif

    // Under the affinity of one CPU, glint-cli works with one thread.
    void affinityLimitsThreads() {
        const QString small = writeBytes("threads.csv", "1,2,3\n4,5,6\n"); // read by every build
        const test::CliResult one = runLimited({"info", small, "--json", "-"}, 0, true);
        QCOMPARE(one.exitCode, 0);
        QCOMPARE(test::jsonOf(one)["device"].toString(), QString("CPU, 1 thread"));
        const test::CliResult all = runLimited({"info", small, "--json", "-"}, 0, false);
        QCOMPARE(all.exitCode, 0);
        const int n = processCpuCount();
        QCOMPARE(test::jsonOf(all)["device"].toString(),
                 QString("CPU, %1 %2").arg(n).arg(n == 1 ? "thread" : "threads"));
    }

    // --- hostile headers --------------------------------------------------------------------------------

#if GLINT_WITH_IMGCODECS
    void hostileFiles_data() {
        test::columns<QByteArray, QByteArray>({"bytes", "message"});
        // 32767^2 and 40000^2 pixels typed SSHORT and SLONG: read, and too large.
        QTest::newRow("tiff sshort") << greyTiff(32767, 8, 32767, 8, 16) << QByteArray("32767 \xC3\x97 32767");
        QTest::newRow("tiff slong") << greyTiff(40000, 9, 40000, 9, 16) << QByteArray("40000 \xC3\x97 40000");
        QTest::newRow("tiff byte x slong") << greyTiff(200, 1, 100000000, 9, 16)
                                           << QByteArray("absurd dimensions (200x100000000)");
        QTest::newRow("tiff negative slong") << greyTiff(0xFFFFFFFFu, 9, 4, 3, 16)
                                             << QByteArray("ImageWidth is negative (-1)");
        QTest::newRow("tiff rational width") << greyTiff(40000, 5, 40000, 3, 16)
                                             << QByteArray("ImageWidth is of type 5, not an integer");
        QTest::newRow("tiff no width") << tiffFile({{257, 3, 4}, {258, 3, 8}}, QByteArray(4, '\0'))
                                       << QByteArray("has no ImageWidth");
        QTest::newRow("tiff huge tile") << tiledTiff(65536, 65536) << QByteArray("in tiles of 65536 \xC3\x97 65536");
        QTest::newRow("tiff 16k tile") << tiledTiff(16384, 16384) << QByteArray("in tiles of 16384");
        QTest::newRow("bigtiff huge") << greyTiff(40000, 16, 40000, 16, 16, true) << QByteArray("40000 \xC3\x97 40000");
        QByteArray badBig = greyTiff(4, 3, 3, 3, 12, true);
        badBig[4] = 4; // BigTIFF offsets of 4 bytes
        QTest::newRow("bigtiff offsets 4") << badBig << QByteArray("BigTIFF header is damaged");
        // The frame header after a junk byte: libjpeg skips it, so the size check must too.
        QTest::newRow("jpeg junk after app0") << jpegHeaderOnly(40000, 40000, QByteArray(1, '\x42'))
                                              << QByteArray("40000 \xC3\x97 40000");
        QTest::newRow("jpeg junk ff00 after app0") << jpegHeaderOnly(40000, 40000, QByteArray("\xFF\x00\x13\x37", 4))
                                                   << QByteArray("40000 \xC3\x97 40000");
        QTest::newRow("jpeg no frame") << QByteArray("\xFF\xD8\xFF\xE0\x00\x04\x00\x00\x12\xFF\xD9", 11)
                                       << QByteArray("no frame header");
        QTest::newRow("jpeg bad length") << QByteArray("\xFF\xD8\xFF\xE0\x00\x01\xFF\xD9", 8)
                                         << QByteArray("marker segment of length 1");
        QTest::newRow("pgm ascii above maxval") << QByteArray("P2\n2 2\n100\n1 2\n3 200\n")
                                                << QByteArray("value of 200 above its largest value 100 (sample 4)");
        QTest::newRow("pgm binary above maxval") << QByteArray("P5\n3 1\n100\n\x10\x65\x20", 14)
                                                 << QByteArray("value of 101 above its largest value 100 (sample 2)");
        QTest::newRow("pgm 16-bit above maxval") << QByteArray("P5 2 1 1000\n\x03\xE8\x03\xE9", 16)
                                                 << QByteArray("value of 1001 above its largest value 1000");
        QTest::newRow("ppm ascii above maxval") << QByteArray("P3 1 1 15 1 2 16\n") << QByteArray("PPM file has a value of 16");
        QTest::newRow("pgm maxval 0") << QByteArray("P5 1 1 0\n\x00", 10) << QByteArray("largest value is 0");
    }

    void hostileFiles() {
        QFETCH(QByteArray, bytes);
        QFETCH(QByteArray, message);
        const QString name = QString("hostile-%1").arg(QTest::currentDataTag()).replace(' ', '-');
        expectRefused(writeBytes(name, bytes), message);
    }

    // --- valid files that must be read -------------------------------------------------------------------

    void validFilesRead() {
        // SHORT and LONG sizes, BigTIFF (refused before as an unknown format), and a small file whose tile
        // is larger than the image (legal).
        QCOMPARE(widthOf(writeBytes("ok-short.tif", greyTiff(4, 3, 3, 3, 12))), 4);
        QCOMPARE(widthOf(writeBytes("ok-long.tif", greyTiff(4, 4, 3, 4, 12))), 4);
        QCOMPARE(widthOf(writeBytes("ok-big.tif", greyTiff(4, 16, 3, 16, 12, true))), 4);
        QCOMPARE(widthOf(writeBytes("ok-sshort.tif", greyTiff(4, 8, 3, 9, 12))), 4);
        const Image big = loadImage(pathFor("ok-big.tif").toStdString());
        QCOMPARE(big.width(), 4);
        QCOMPARE(big.height(), 3);
        QCOMPARE(big.value(1, 0), 20.0); // the samples of the strip: i * 20
        QCOMPARE(big.value(0, 2), 160.0);
        QCOMPARE(widthOf(writeBytes("ok-max.pgm", QByteArray("P2 2 1 100 0 100\n"))), 2);
        QCOMPARE(widthOf(writeBytes("ok-max5.pgm", QByteArray("P5 2 1 100\n\x00\x64", 13))), 2);
    }

    // A JPEG that libjpeg decodes although a junk byte follows APP0: read.
    void jpegJunkByteDecodes() {
        cv::Mat m(48, 64, CV_8UC1);
        cv::randu(m, 0, 255);
        std::vector<std::uint8_t> encoded;
        QVERIFY(cv::imencode(".jpg", m, encoded));
        QByteArray jpeg(reinterpret_cast<const char*>(encoded.data()), static_cast<qsizetype>(encoded.size()));
        QCOMPARE(static_cast<unsigned char>(jpeg[3]), 0xE0); // APP0 first
        const int app0End = 4 + (static_cast<unsigned char>(jpeg[4]) << 8 | static_cast<unsigned char>(jpeg[5]));
        jpeg.insert(app0End, '\x42');
        QCOMPARE(widthOf(writeBytes("junk-ok.jpg", jpeg)), 64);
    }

    // JPEGs cut inside a scan and given an end-of-image marker: refused (libjpeg would fill the rest with
    // grey). Progressive (the cut in its largest scan) and baseline.
    void jpegFakeEndRefused_data() {
        QTest::addColumn<bool>("progressive");
        QTest::newRow("progressive") << true;
        QTest::newRow("baseline") << false;
    }

    void jpegFakeEndRefused() {
        QFETCH(bool, progressive);
        cv::Mat m(256, 256, CV_8UC1);
        cv::randu(m, 0, 255);
        std::vector<std::uint8_t> encoded;
        QVERIFY(cv::imencode(".jpg", m, encoded, {cv::IMWRITE_JPEG_QUALITY, 95, cv::IMWRITE_JPEG_PROGRESSIVE, progressive ? 1 : 0}));
        const QByteArray jpeg(reinterpret_cast<const char*>(encoded.data()), static_cast<qsizetype>(encoded.size()));
        // The whole file is read.
        QCOMPARE(widthOf(writeBytes(progressive ? "whole-p.jpg" : "whole-b.jpg", jpeg)), 256);
        std::vector<int> scans = markerOffsets(jpeg, 0xDA);
        QVERIFY(!scans.empty());
        if (progressive) QVERIFY(scans.size() > 1);
        scans.push_back(static_cast<int>(jpeg.size()) - 2);
        std::size_t largest = 0;
        for (std::size_t i = 0; i + 1 < scans.size(); ++i)
            if (scans[i + 1] - scans[i] > scans[largest + 1] - scans[largest]) largest = i;
        const int cut = (scans[largest] + scans[largest + 1]) / 2;
        QByteArray cutFile = jpeg.left(cut);
        if (static_cast<unsigned char>(cutFile.back()) == 0xFF) cutFile.chop(1);
        cutFile.append("\xFF\xD9", 2);
        expectRefused(writeBytes(progressive ? "cut-p.jpg" : "cut-b.jpg", cutFile), "JPEG file is damaged or truncated");
        if (progressive) {
            // Cut between two scans: no scan is damaged, but the image is not complete.
            const QByteArray between = jpeg.left(scans[scans.size() - 2]) + QByteArray("\xFF\xD9", 2);
            expectRefused(writeBytes("cut-between.jpg", between), "progressive scans end before the image is complete");
        }
    }
#endif
};

QTEST_GUILESS_MAIN(HostileLimitsTest)
#include "test_hostile_limits.moc"
