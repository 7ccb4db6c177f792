// The CUDA workspaces' pools and memory budget (cuda/CudaToolkit.cuh): as many runs as a pool holds share a
// device at once, each with its own workspace; a run short of memory waits for the others' buffers instead of
// failing, and two short runs never wait for each other (one runs, the other is declined to the CPU).
// Needs a CUDA device: without one (or in a build without CUDA) every function skips, saying so.
#include "tests/support/TestSupport.h"

#if GLINT_HAVE_CUDA
#include "cuda/CudaDevice.h"
#include "cuda/CudaToolkit.cuh"
#include "core/util/Errors.h"

#include <cuda_runtime.h>
#endif

#include <QtTest>

#include <atomic>
#include <chrono>
#include <future>
#include <set>
#include <thread>
#include <vector>

#if GLINT_HAVE_CUDA
using namespace glint;
using namespace glint::cuda;

namespace {

std::size_t freeBytes() {
    std::size_t free = 0, total = 0;
    GLINT_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return free;
}

// Waits for a future, failing the whole test (not hanging it) when it is not ready in a minute: a deadlock.
template <class T>
T within(std::future<T>& f, const char* what) {
    if (f.wait_for(std::chrono::seconds(60)) != std::future_status::ready) qFatal("deadlock: %s", what);
    return f.get();
}

} // namespace
#endif

class TestWorkspacePool : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
#if !GLINT_HAVE_CUDA
        QSKIP("built without CUDA");
#else
        GLINT_REQUIRE_CUDA();
#endif
    }

#if GLINT_HAVE_CUDA
    // kPoolSize leases at once hold distinct workspaces; one more waits until a lease ends, and then gets
    // the workspace that was given back.
    void leasesAreDistinctAndBounded() {
        WorkspacePool& pool = Workspace::shared("test pool: distinct");
        std::vector<std::unique_ptr<Workspace::Lease>> leases;
        std::set<Workspace*> held;
        for (int i = 0; i < Workspace::kPoolSize; ++i) {
            leases.push_back(std::make_unique<Workspace::Lease>(pool));
            held.insert(&**leases.back());
        }
        QCOMPARE(static_cast<int>(held.size()), Workspace::kPoolSize);
        std::atomic<Workspace*> got{nullptr};
        std::promise<void> leased, done;
        std::thread extra([&] {
            Workspace::Lease one(pool);
            got = &*one;
            leased.set_value();
            done.get_future().wait();
        });
        auto leasedFuture = leased.get_future();
        QVERIFY(leasedFuture.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout); // all taken: it waits
        Workspace* given = &**leases[1];
        leases[1].reset();
        within(leasedFuture, "a lease given back was not taken");
        QCOMPARE(got.load(), given);
        done.set_value();
        extra.join();
    }

    // Each member is a workspace of its own: buffers of one name do not alias across members.
    void membersKeepTheirOwnBuffers() {
        WorkspacePool& pool = Workspace::shared("test pool: buffers");
        Workspace::Lease a(pool), b(pool);
        void* pa = a->get("x", 1 << 20);
        void* pb = b->get("x", 1 << 20);
        QVERIFY(pa && pb && pa != pb);
        QCOMPARE(a->held(), std::size_t{1} << 20);
        QVERIFY(MemoryBudget::held() >= (std::size_t{2} << 20));
    }

    // A run short of memory while another run holds it waits for that run to end, then has the other's idle
    // buffers freed and proceeds.
    void shortRunWaitsForTheOther() {
        WorkspacePool& pool = Workspace::shared("test pool: wait");
        MemoryBudget::releaseIdle(pool.device());
        const std::size_t f = freeBytes();
        auto first = std::make_unique<Workspace::Lease>(pool);
        (*first)->get("big", f / 10 * 4);
        std::promise<void> started;
        auto second = std::async(std::launch::async, [&]() -> bool {
            Workspace::Lease lease(pool);
            started.set_value();
            try {
                lease->require(f / 10 * 7, "the test's run");
            } catch (const std::exception& e) {
                qWarning("%s", e.what());
                return false;
            }
            return lease->available() >= f / 10 * 7;
        });
        started.get_future().wait();
        QVERIFY(second.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout); // waiting
        Workspace* firstWs = &**first;
        first.reset(); // the first run ends: its 40 % are idle now
        QVERIFY(within(second, "the waiting run never resumed"));
        QCOMPARE(firstWs->held(), std::size_t{0}); // freed for the second
        MemoryBudget::releaseIdle(pool.device());
    }

    // Two runs, each holding 40 % and each needing 70 %: neither waits for the other forever. One is declined
    // (BackendDeclined: its work goes to the CPU), the other then gets the memory.
    void twoShortRunsDoNotDeadlock() {
        for (int round = 0; round < 3; ++round) {
            WorkspacePool& pool = Workspace::shared("test pool: two short");
            MemoryBudget::releaseIdle(pool.device());
            const std::size_t f = freeBytes();
            std::atomic<int> ready{0};
            auto run = [&]() -> int {
                Workspace::Lease lease(pool);
                lease->get("big", f / 10 * 4);
                ++ready;
                while (ready.load() < 2) std::this_thread::yield();
                try {
                    lease->require(f / 10 * 7, "the test's run");
                    return lease->available() >= f / 10 * 7 ? 1 : -1;
                } catch (const BackendDeclined&) {
                    return 0;
                }
            };
            auto a = std::async(std::launch::async, run);
            auto b = std::async(std::launch::async, run);
            const int ra = within(a, "two short runs"), rb = within(b, "two short runs");
            QCOMPARE(ra + rb, 1); // one ran (1), one was declined (0); -1 would be a run without its memory
            QVERIFY(ra >= 0 && rb >= 0);
            MemoryBudget::releaseIdle(pool.device());
        }
    }

    // A run that needs more than the whole device is refused at once (nothing to wait for): BackendUnavailable.
    void tooLargeForTheDevice() {
        WorkspacePool& pool = Workspace::shared("test pool: too large");
        Workspace::Lease lease(pool);
        std::size_t free = 0, total = 0;
        GLINT_CUDA_CHECK(cudaMemGetInfo(&free, &total));
        QVERIFY_THROWS_EXCEPTION(BackendUnavailable, lease->require(total * 2, "the test's run"));
    }
#endif
};

GLINT_BACKEND_TEST_MAIN(TestWorkspacePool)
#include "test_workspace_pool.moc"
