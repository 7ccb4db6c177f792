// The program's operator new (core/util/LargePages.cpp): image-sized blocks are advised as transparent huge pages
// (the kernel's VmFlags "hg" on their mapping), whether glibc maps them or takes them from the heap; blocks of 8 MiB
// and more are resident when they are returned; and the allocation functions keep the
// standard's contract (bad_alloc, nothrow's null, distinct pointers for size 0, every form freed by its delete).
#include <QtTest>

#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

// The VmFlags of the mapping of /proc/self/smaps that holds address a ("" when none does).
std::string vmFlagsAt(std::uintptr_t a) {
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        std::uintptr_t begin = 0, end = 0;
        char dash = 0;
        std::istringstream head(line);
        if (head >> std::hex >> begin >> dash >> end && dash == '-' && line.find(':') > line.find(' ')) {
            inside = begin <= a && a < end;
            continue;
        }
        if (inside && line.rfind("VmFlags:", 0) == 0) return line.substr(8);
    }
    return {};
}

bool hasFlag(const std::string& flags, const std::string& flag) {
    std::istringstream words(flags);
    for (std::string w; words >> w;)
        if (w == flag) return true;
    return false;
}

} // namespace

class TestLargePages : public QObject {
    Q_OBJECT

private slots:
    void imageSizedBlocksAreAdvised() {
        // A kernel without transparent huge pages ignores the advice: no "hg", the block as malloc gave it.
        const bool thp = std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled");
        for (int round = 0; round < 2; ++round) {
            // Round 0: glibc's own thresholds (each block mapped by itself); round 1: glint-cli's (blocks up to
            // 32 MiB from the heap).
            if (round == 1) {
                mallopt(M_MMAP_THRESHOLD, 32 << 20);
                mallopt(M_TRIM_THRESHOLD, 1 << 30);
            }
            for (std::size_t megabytes : {4, 16, 48}) {
                std::vector<float> map(megabytes << 18); // megabytes MiB of floats
                const auto begin = reinterpret_cast<std::uintptr_t>(map.data());
                const std::uintptr_t interior = (begin + kHugePage - 1) & ~(kHugePage - 1);
                QVERIFY(interior + kHugePage <= begin + map.size() * sizeof(float));
                const std::string flags = vmFlagsAt(interior);
                QVERIFY2(!flags.empty(), "the block's mapping is not in /proc/self/smaps");
                QVERIFY2(hasFlag(flags, "hg") == thp,
                         qPrintable(QString("round %1, %2 MiB block, VmFlags:%3").arg(round).arg(megabytes).arg(flags.c_str())));
                map[map.size() / 2] = 1.0f;
                QCOMPARE(map[map.size() / 2], 1.0f);
            }
        }
    }

    // A block of 8 MiB or more is resident as soon as operator new returns it (faulted in by the process's CPUs),
    // before anything is written to it. (96 MiB is mapped fresh by glibc: nothing else could have made it resident.)
    void largeBlocksArePopulated() {
        void* probe = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        QVERIFY(probe != MAP_FAILED);
        const bool supported = madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
        munmap(probe, 4096);
        // Before Linux 5.14 (no MADV_POPULATE_WRITE) the pages fault in as they are written: the block is only usable.
        auto residentShare = [](const void* p, std::size_t n) {
            const auto begin = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{4095};
            const auto end = (reinterpret_cast<std::uintptr_t>(p) + n + 4095) & ~std::uintptr_t{4095};
            std::vector<unsigned char> pages((end - begin) / 4096);
            if (mincore(reinterpret_cast<void*>(begin), end - begin, pages.data()) != 0) return -1.0;
            std::size_t in = 0;
            for (unsigned char c : pages) in += c & 1;
            return static_cast<double>(in) / static_cast<double>(pages.size());
        };
        for (std::size_t megabytes : {8, 24, 96}) {
            const std::size_t n = megabytes << 20;
            char* p = static_cast<char*>(::operator new(n));
            const double share = residentShare(p, n);
            p[0] = p[n - 1] = 'x';
            const bool written = p[0] == 'x' && p[n - 1] == 'x';
            ::operator delete(p, n);
            QVERIFY(written);
            if (supported)
                QVERIFY2(share == 1.0, qPrintable(QString("%1 MiB block: %2 of its pages resident").arg(megabytes).arg(share)));
        }
    }

    void theStandardsContract() {
        // Size 0: a distinct, freeable pointer each time.
        void* a = ::operator new(0);
        void* b = ::operator new(0);
        QVERIFY(a != nullptr && b != nullptr && a != b);
        ::operator delete(a);
        ::operator delete(b, std::size_t{0});
        // More than any machine has: bad_alloc, and null from the nothrow forms.
        const std::size_t absurd = std::size_t{1} << 62;
        auto throwsBadAlloc = [&] {
            try {
                void* p = ::operator new(absurd);
                ::operator delete(p);
            } catch (const std::bad_alloc&) {
                return true;
            }
            return false;
        };
        QVERIFY(throwsBadAlloc());
        QCOMPARE(::operator new(absurd, std::nothrow), static_cast<void*>(nullptr));
        QCOMPARE(::operator new[](absurd, std::nothrow), static_cast<void*>(nullptr));
        // A new_handler that frees something lets the allocation be retried; it runs once per failure.
        static int calls = 0;
        calls = 0;
        std::set_new_handler([] {
            ++calls;
            std::set_new_handler(nullptr); // the next failure throws
        });
        QVERIFY(throwsBadAlloc());
        QCOMPARE(calls, 1);
        // Every form with its own delete, large and small; the memory is usable to its last byte.
        for (std::size_t n : {std::size_t{1}, std::size_t{4096}, std::size_t{5} << 20}) {
            char* p = static_cast<char*>(::operator new(n));
            char* q = new char[n];
            char* r = static_cast<char*>(::operator new(n, std::nothrow));
            QVERIFY(r != nullptr);
            p[0] = p[n - 1] = q[0] = q[n - 1] = r[0] = r[n - 1] = 'x';
            ::operator delete(p, n);
            delete[] q;
            ::operator delete(r, std::nothrow);
        }
    }
};

QTEST_GUILESS_MAIN(TestLargePages)
#include "test_large_pages.moc"
