// parallelFor: every index once, from many threads at once, nested, with exceptions, and its extra
// threads really share the work.
#include "core/util/Parallel.h"

#include <QtTest>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace glint;

class TestParallel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCOMPARE(cpuThreadCount(), 8); } // GLINT_THREADS, set in main

private:
    std::thread::id mainThread_ = std::this_thread::get_id();

private slots:

    void everyIndexOnce() {
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1000), std::size_t(100003)})
            for (std::size_t grain : {std::size_t(1), std::size_t(16), std::size_t(5000)}) {
                std::vector<std::atomic<int>> hits(n);
                parallelFor(0, n, grain, [&](std::size_t b, std::size_t e) {
                    QVERIFY(e - b <= grain);
                    for (std::size_t i = b; i < e; ++i) hits[i].fetch_add(1);
                });
                for (std::size_t i = 0; i < n; ++i) QCOMPARE(hits[i].load(), 1);
            }
    }

    void otherThreadsHelp() {
        // Chunks that wait for each other can only finish when several threads run them at once.
        std::atomic<int> arrived{0};
        std::mutex m;
        std::set<std::thread::id> ids;
        parallelFor(0, 4, 1, [&](std::size_t, std::size_t) {
            {
                std::lock_guard lock(m);
                ids.insert(std::this_thread::get_id());
            }
            arrived.fetch_add(1);
            for (int spin = 0; arrived.load() < 4 && spin < 2000; ++spin)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
        QCOMPARE(arrived.load(), 4);
        QVERIFY2(ids.size() >= 2, "no other thread took part");
    }

    void manyCallersNested() {
        std::atomic<long long> total{0};
        std::vector<std::thread> callers;
        for (int t = 0; t < 6; ++t)
            callers.emplace_back([&] {
                for (int round = 0; round < 10; ++round)
                    parallelFor(0, 40, 3, [&](std::size_t b, std::size_t e) {
                        for (std::size_t i = b; i < e; ++i)
                            parallelFor(0, 100, 7, [&](std::size_t b2, std::size_t e2) {
                                total.fetch_add(static_cast<long long>(e2 - b2));
                            });
                    });
            });
        for (auto& c : callers) c.join();
        QCOMPARE(total.load(), 6LL * 10 * 40 * 100);
    }

    void exceptionReachesTheCaller() {
        for (int round = 0; round < 20; ++round) {
            std::atomic<int> ran{0};
            bool caught = false;
            try {
                parallelFor(0, 1000, 1, [&](std::size_t b, std::size_t) {
                    ran.fetch_add(1);
                    if (b == 500) throw std::runtime_error("chunk 500");
                });
            } catch (const std::runtime_error& e) {
                caught = QString(e.what()) == "chunk 500";
            }
            QVERIFY(caught);
            QVERIFY(ran.load() <= 1000);
        }
        // Still works afterwards.
        std::atomic<int> n{0};
        parallelFor(0, 100, 1, [&](std::size_t, std::size_t) { n.fetch_add(1); });
        QCOMPARE(n.load(), 100);
    }

    // The extra threads are the process's pool's, parked between calls, not started anew for each: a thread that
    // helped one call is found helping a later one (its thread_local mark survives), and calls from several threads
    // at once (one gets the pool, the others threads of their own) still give every index once.
    void poolThreadsAreReused() {
        static thread_local int helpedBefore = 0;
        bool reused = false;
        for (int call = 0; call < 20 && !reused; ++call) {
            std::atomic<int> arrived{0};
            std::atomic<bool> seen{false};
            parallelFor(0, 4, 1, [&](std::size_t, std::size_t) {
                if (std::this_thread::get_id() != mainThread_) {
                    if (helpedBefore > 0) seen = true;
                    ++helpedBefore;
                }
                arrived.fetch_add(1);
                for (int spin = 0; arrived.load() < 4 && spin < 2000; ++spin)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
            });
            reused = seen;
        }
        QVERIFY2(reused, "every call started threads of its own");
        std::vector<std::thread> callers;
        std::atomic<long long> total{0};
        for (int t = 0; t < 4; ++t)
            callers.emplace_back([&] {
                for (int round = 0; round < 50; ++round)
                    parallelFor(0, 1000, 10, [&](std::size_t b, std::size_t e) { total.fetch_add(static_cast<long long>(e - b)); });
            });
        for (auto& c : callers) c.join();
        QCOMPARE(total.load(), 4LL * 50 * 1000);
    }

    void explicitThreadCount() {
        std::mutex m;
        std::set<std::thread::id> ids;
        parallelFor(
            0, 64, 1,
            [&](std::size_t, std::size_t) {
                std::lock_guard lock(m);
                ids.insert(std::this_thread::get_id());
            },
            1);
        QCOMPARE(ids.size(), std::size_t(1));
        QVERIFY(ids.count(std::this_thread::get_id()));
    }
};

int main(int argc, char** argv) {
    setenv("GLINT_THREADS", "8", 1); // before the first cpuThreadCount(): 8 threads on any machine
    TestParallel t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_parallel.moc"
