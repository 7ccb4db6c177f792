// The program's allocation functions (the replaceable global operator new and delete of [new.delete]): malloc and
// free, as the standard library's own, plus two things: a block of 2 MiB or more is advised to the kernel as
// transparent-huge-page memory (madvise MADV_HUGEPAGE on its 2 MiB-aligned interior) before anything touches it, and
// one of 8 MiB or more is faulted in by all the CPUs the process may use (populate(), below).
//
// Why: a catalogue's maps are image-sized (16 MiB each at 2048^2) and written once, fresh; with 4 KiB pages each
// costs 4096 page faults and as many TLB entries. On the 2-core development VM a 2048^2 sparse catalogue spent more
// than half its time faulting and zero-filling (perf), 0.55 s against 0.19 s with huge pages; the compute itself
// also ran faster (user time 0.39 -> 0.23 s). Kernels set to "madvise" (Debian's and Ubuntu's default) give huge
// pages only to memory advised so; "always" gives them anyway; "never" or a kernel without THP ignores the advice.
// glibc's tunable glibc.malloc.hugetlb=1 does the same for every block, but only when set in the environment
// before the program starts.
//
// This file is part of glint_core, so every program linking it (glint-cli, the window, the tests) uses these
// definitions: the linker takes an archive member to resolve operator new before it reaches libstdc++.
// Allocations by C code (CFITSIO, Qt's QImage, OpenCV's Mat) are malloc's own and not advised.
#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kAdviseFrom = kHugePage; // a smaller block holds no whole huge page

void adviseHugePages(void* p, std::size_t n) noexcept {
    if (n < kAdviseFrom) return;
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(kHugePage - 1);
    // Advice only: a kernel without THP answers EINVAL, and the block is as good as malloc gave it.
    if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// A block this large is about to be written whole (a vector value-initialises it, or a pass fills it): its pages
// are faulted in now, a share by each CPU the process may use (MADV_POPULATE_WRITE, Linux 5.14), rather than one by
// one on the thread that writes it first -- the kernel's zero-filling of fresh pages was a third of a catalogue's
// samples, on one core. Pages already there (a block the heap kept) cost nothing. Helper threads are shared out among
// the blocks being populated at once (batch workers allocate together), at most one per CPU in all. Best effort: an
// older kernel, or threads that cannot be started, leave the faults to the first writes.
constexpr std::size_t kPopulateFrom = std::size_t{8} << 20;
constexpr std::size_t kPopulateShare = std::size_t{4} << 20; // the least a thread populates

void populate(void* p, std::size_t n) noexcept {
    if (n < kPopulateFrom) return;
    const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{4095};
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(p) + n;
    cpu_set_t cpus;
    const int allowed = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
    static std::atomic<int> helping{0}; // helper threads running, over all blocks
    const int spare = std::max(allowed - 1 - helping.load(std::memory_order_relaxed), 0);
    const std::size_t parts = std::clamp<std::size_t>((end - begin) / kPopulateShare, 1, static_cast<std::size_t>(spare) + 1);
    const std::size_t share = ((end - begin) / parts + kHugePage - 1) & ~(kHugePage - 1);
    auto run = [&](std::size_t k) {
        const std::uintptr_t a = begin + k * share, b = std::min<std::uintptr_t>(end, a + share);
        if (a < b) (void)madvise(reinterpret_cast<void*>(a), ((b - a + 4095) & ~std::uintptr_t{4095}), MADV_POPULATE_WRITE);
    };
    std::vector<std::thread> helpers;
    try {
        helpers.reserve(parts - 1);
        for (std::size_t k = 1; k < parts; ++k) {
            helping.fetch_add(1, std::memory_order_relaxed);
            try {
                helpers.emplace_back([&run, k] {
                    run(k);
                    helping.fetch_sub(1, std::memory_order_relaxed);
                });
            } catch (...) {
                helping.fetch_sub(1, std::memory_order_relaxed);
                throw;
            }
        }
    } catch (...) {
        // Fewer threads than asked: the shares without one fault in as they are written.
    }
    run(0);
    for (std::thread& t : helpers) t.join();
}

void* allocate(std::size_t n) {
    for (;;) {
        if (void* p = std::malloc(n == 0 ? 1 : n)) {
            adviseHugePages(p, n);
            populate(p, n);
            return p;
        }
        std::new_handler handler = std::get_new_handler();
        if (!handler) throw std::bad_alloc();
        handler();
    }
}

void* allocateNoThrow(std::size_t n) noexcept {
    try {
        return allocate(n);
    } catch (...) {
        return nullptr;
    }
}

} // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocateNoThrow(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocateNoThrow(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
