// batch's pipeline (app/cli/BatchPipeline.h): files in flight on worker threads, outcomes
// taken in file order. The ordered map against a sequential one on many random shapes (order, values, the
// bound on results waiting, errors from either side), the memory gate's bound, the silenced stderr shared
// by threads, and glint-cli batch with --jobs 1 / 3 / 8 / auto giving the same CSV and the same failure
// lines over a folder of good, bad and unknown files; --devices' usage errors.
#include "tests/support/TestSupport.h"

#include "app/cli/BatchPipeline.h"
#include "core/util/StderrSilencer.h"

#include <QDir>
#include <QFile>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <random>
#include <stdexcept>
#include <thread>
#include <unistd.h>

using namespace glint;

namespace {

// A CSV matrix (read by every build, the lean one included) with a bright block at (bx, by) and a seeded
// texture.
void writeMatrix(const QString& path, int w, int h, int bx, int by, unsigned seed) {
    QByteArray text;
    std::mt19937 rng(seed);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const bool block = x >= bx && x < bx + 5 && y >= by && y < by + 4;
            text += QByteArray::number(block ? 220 : static_cast<int>(rng() % 40)) + (x + 1 < w ? "," : "\n");
        }
    }
    test::writeFile(path, text);
}

// A batch's stderr without the tally's output name and elapsed time (what differs from run to run here).
QByteArray withoutTime(QByteArray err) {
    const int to = err.lastIndexOf(" written to ");
    const int semi = err.lastIndexOf("; ");
    if (to >= 0 && semi > to) err.remove(to, semi - to);
    return err;
}

} // namespace

class TestBatchPipeline : public QObject {
    Q_OBJECT
private slots:
    void orderedLikeSequential();
    void errorsFromEitherSide();
    void memoryGateBound();
    void silencedStderrSharedByThreads();
    void jobsGiveTheSameCsv();
    void devicesOptions();
};

// Random file counts, worker counts and windows, random work times: the consumer sees 0, 1, 2, ... with
// each file's own value, every file is produced once, and never more than `window` results wait (beside the
// one being consumed).
void TestBatchPipeline::orderedLikeSequential() {
    std::mt19937 rng(20261206);
    for (int round = 0; round < 60; ++round) {
        const std::size_t count = rng() % 200;
        const int workers = 1 + static_cast<int>(rng() % 9);
        const std::size_t window = workers + rng() % 6;
        std::vector<std::atomic<int>> produced(count);
        std::atomic<long> waiting{0}, maxWaiting{0};
        std::vector<std::size_t> seen;
        std::vector<int> delays(count);
        for (int& d : delays) d = static_cast<int>(rng() % 300);
        cli::orderedPipeline<long>(
            count, workers, window,
            [&](std::size_t i, int worker) {
                if (worker < 0 || worker >= workers) throw std::logic_error("bad worker index");
                std::this_thread::sleep_for(std::chrono::microseconds(delays[i]));
                ++produced[i];
                const long now = ++waiting;
                long m = maxWaiting.load();
                while (now > m && !maxWaiting.compare_exchange_weak(m, now)) {}
                return static_cast<long>(i * i + 7);
            },
            [&](std::size_t i, long&& value) {
                --waiting;
                QCOMPARE(value, static_cast<long>(i * i + 7));
                seen.push_back(i);
            });
        QCOMPARE(seen.size(), count);
        for (std::size_t i = 0; i < count; ++i) {
            QCOMPARE(seen[i], i);
            QCOMPARE(produced[i].load(), 1);
        }
        // At most `window` results wait in the pipeline, plus the one the consumer holds.
        QVERIFY2(maxWaiting.load() <= static_cast<long>(std::max<std::size_t>(window, workers)) + 1,
                 qPrintable(QString("%1 results waited, window %2").arg(maxWaiting.load()).arg(window)));
    }
}

// A file whose production throws: the consumer has taken every earlier file and gets the error at that
// file's turn. A consumer that throws: the error comes out, the workers stop, nothing hangs.
void TestBatchPipeline::errorsFromEitherSide() {
    for (int workers : {1, 2, 5}) {
        std::vector<std::size_t> seen;
        bool caught = false;
        try {
            cli::orderedPipeline<int>(
                40, workers, 8,
                [](std::size_t i, int) {
                    if (i == 17) throw std::runtime_error("seventeen");
                    return static_cast<int>(i);
                },
                [&](std::size_t i, int&&) { seen.push_back(i); });
        } catch (const std::runtime_error& e) {
            caught = std::string(e.what()) == "seventeen";
        }
        QVERIFY(caught);
        QCOMPARE(seen.size(), std::size_t{17});

        std::atomic<int> producedAfter{0};
        caught = false;
        try {
            cli::orderedPipeline<int>(
                1000, workers, 4,
                [&](std::size_t i, int) {
                    if (i > 20) ++producedAfter;
                    return static_cast<int>(i);
                },
                [&](std::size_t i, int&&) {
                    if (i == 5) throw std::runtime_error("consumer");
                });
        } catch (const std::runtime_error& e) {
            caught = std::string(e.what()) == "consumer";
        }
        QVERIFY(caught);
        // The window holds the workers back: nothing far ahead of the failing file was produced.
        QCOMPARE(producedAfter.load(), 0);
    }
}

// Holds of random sizes from many threads: together within the limit, except one alone over it.
void TestBatchPipeline::memoryGateBound() {
    const std::uint64_t limit = 1000;
    cli::MemoryGate gate(limit);
    std::atomic<std::uint64_t> used{0}, worst{0};
    std::atomic<bool> overAlone{true};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            std::mt19937 rng(static_cast<unsigned>(t));
            for (int i = 0; i < 200; ++i) {
                const std::uint64_t bytes = (i % 50 == 7) ? 1500 : 50 + rng() % 400;
                const cli::MemoryGate::Hold hold(gate, bytes);
                const std::uint64_t now = used += bytes;
                if (now > limit && now != bytes) overAlone = false;
                std::uint64_t w = worst.load();
                while (now > w && !worst.compare_exchange_weak(w, now)) {}
                std::this_thread::sleep_for(std::chrono::microseconds(rng() % 50));
                used -= bytes;
            }
        });
    for (auto& th : threads) th.join();
    QVERIFY2(overAlone.load(), "several holds together went over the limit");
    QVERIFY(worst.load() >= 1500); // the oversized hold did run (alone)
}

// Two threads silence stderr at overlapping times: it stays silenced until the last one ends, and
// writeStderr reaches the real stderr all along.
void TestBatchPipeline::silencedStderrSharedByThreads() {
    const QString path = test::tempDir() + "/stderr.txt";
    const int file = ::open(path.toLocal8Bit().constData(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    QVERIFY(file >= 0);
    std::fflush(stderr);
    const int saved = ::dup(STDERR_FILENO);
    ::dup2(file, STDERR_FILENO);
    ::close(file);
    {
        auto a = std::make_unique<StderrSilencer>();
        std::thread other([] {
            const StderrSilencer b;
            std::fprintf(stderr, "library noise 1\n");
            std::fflush(stderr);
        });
        other.join();
        a.reset();
        auto c = std::make_unique<StderrSilencer>();
        std::unique_ptr<StderrSilencer> d;
        std::thread third([&] { d = std::make_unique<StderrSilencer>(); });
        third.join();
        c.reset(); // d still silences
        std::fprintf(stderr, "library noise 2\n");
        std::fflush(stderr);
        writeStderr("glint line\n");
        d.reset();
    }
    std::fprintf(stderr, "after\n");
    std::fflush(stderr);
    ::dup2(saved, STDERR_FILENO);
    ::close(saved);
    const std::string text = test::readFileString(path);
    QCOMPARE(QString::fromStdString(text), QString("glint line\nafter\n"));
}

// Good files (CSV matrices), corrupt PNGs and files of no format spread through the list: every --jobs gives
// the same CSV, byte for byte, the same failure lines in the same order and the same tally.
void TestBatchPipeline::jobsGiveTheSameCsv() {
    const QString dir = test::tempDir() + "/jobs";
    QDir().mkpath(dir);
    std::mt19937 rng(7);
    for (int i = 0; i < 36; ++i) {
        const QString name = dir + QString("/f%1").arg(i, 2, 10, QChar('0'));
        switch (i % 6) {
        case 0: test::writeFile(name + ".png", QByteArray("\x89PNG\r\n\x1a\n", 8) + QByteArray(30, 'x')); break;
        case 1: test::writeFile(name + ".bin", QByteArray("\x00\x01\x02", 3)); break;
        default:
            writeMatrix(name + ".csv", 40 + i, 30 + i % 7, static_cast<int>(rng() % 30), static_cast<int>(rng() % 20),
                        static_cast<unsigned>(i));
        }
    }
    QByteArray reference, referenceErr;
    for (const QString jobs : {"1", "3", "8", "auto"}) {
        const QString out = test::tempDir() + "/jobs-" + jobs + ".csv";
        const auto r = test::runCli({"batch", "--algo", "brightest", "--k", "3", "--pivot", "median", "--jobs", jobs,
                                     "--backend", "cpu", "--out", out, dir});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QByteArray csv = QByteArray::fromStdString(test::readFileString(out));
        QVERIFY(csv.count('\n') > 20);
        QCOMPARE(r.err.count("failed '"), 6);
        if (reference.isEmpty()) {
            reference = csv;
            referenceErr = withoutTime(r.err);
            continue;
        }
        QCOMPARE(csv, reference);
        QCOMPARE(withoutTime(r.err), referenceErr);
    }
    // The same for --algo info (no backend), many jobs over few files.
    const auto one = test::runCli({"batch", "--algo", "info", "--jobs", "1", "--out", "-", dir});
    const auto many = test::runCli({"batch", "--algo", "info", "--jobs", "64", "--out", "-", dir});
    QCOMPARE(one.exitCode, 0);
    QCOMPARE(many.exitCode, 0);
    QCOMPARE(many.out, one.out);
}

void TestBatchPipeline::devicesOptions() {
    const QString file = test::tempDir() + "/dev.csv";
    writeMatrix(file, 20, 20, 3, 3, 1);
    const QString out = test::tempDir() + "/dev-out.csv";
    for (const QStringList& bad : {QStringList{"--jobs", "0"}, QStringList{"--jobs", "x"},
                                   QStringList{"--devices", "all", "--backend", "cpu"},
                                   QStringList{"--devices", "0", "--backend", "reference"}}) {
        const auto r = test::runCli(QStringList{"batch", "--algo", "brightest", "--out", out} + bad + QStringList{file});
        QVERIFY2(r.exitCode == 2, qPrintable(bad.join(' ') + ": " + r.err));
        QVERIFY(test::oneErrorLine(r.err));
    }
    const auto info = test::runCli({"batch", "--algo", "info", "--devices", "all", "--out", out, file});
    QCOMPARE(info.exitCode, 2);
    // Without a usable GPU, asking for one is exit 4 with one line; with one, device 0 gives the CPU's rows.
    const auto r = test::runCli({"batch", "--algo", "brightest", "--devices", "0", "--out", out, file});
    const auto cpu = test::runCli({"batch", "--algo", "brightest", "--backend", "cpu", "--out", "-", file});
    QCOMPARE(cpu.exitCode, 0);
    if (r.exitCode == 4) {
        QVERIFY(test::oneErrorLine(r.err));
        QVERIFY(r.err.contains("CUDA"));
    } else {
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // The same rows but for the backend column (the fourth: path, width, height, backend, ...).
        const auto withoutBackend = [](const QByteArray& csv) {
            QList<QByteArray> rows = csv.split('\n').mid(2);
            for (QByteArray& row : rows) {
                int comma = -1;
                for (int i = 0; i < 3 && (comma = row.indexOf(',', comma + 1)) >= 0; ++i) {}
                const int next = comma >= 0 ? row.indexOf(',', comma + 1) : -1;
                if (next > comma) row.remove(comma, next - comma);
            }
            return rows;
        };
        const QByteArray written = QByteArray::fromStdString(test::readFileString(out));
        QVERIFY(written.contains(",cuda,"));
        QCOMPARE(withoutBackend(written), withoutBackend(cpu.out));
        const auto twice = test::runCli({"batch", "--algo", "brightest", "--devices", "0,0", "--out", out, file});
        QCOMPARE(twice.exitCode, 2);
    }
}

QTEST_GUILESS_MAIN(TestBatchPipeline)
#include "test_batch_pipeline.moc"
