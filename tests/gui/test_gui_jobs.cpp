// The job runners: progress is reported, Cancel stops a long job within 100 ms and the runner is idle at
// once, failures carry the job's message, a second job is refused while one runs, the UI thread stays
// free, and the latest-request runner delivers only the newest of a burst of requests.
#include "tests/gui/GuiTestSupport.h"

#include "ui/jobs/JobRunner.h"
#include "ui/jobs/JobStatusWidget.h"
#include "ui/jobs/LatestRequestRunner.h"
#include "core/util/Errors.h"

#include <QElapsedTimer>
#include <QProgressBar>
#include <QSignalSpy>
#include <QThread>
#include <QToolButton>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

using namespace glint;
using namespace glint::ui;

namespace {
// A test-only busy loop: works in ~1 ms slices, polls the token between them, reports progress, and never
// ends by itself (or after `slices` slices).
void busyJob(JobControl& job, long slices = -1) {
    for (long i = 0; slices < 0 || i < slices; ++i) {
        job.throwIfCancelled();
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
        volatile double sink = 0;
        while (std::chrono::steady_clock::now() < until) sink = sink + 1.0;
        job.setProgress(slices < 0 ? 1.0 - 1.0 / (2.0 + static_cast<double>(i)) : static_cast<double>(i + 1) / slices);
    }
}
} // namespace

class TestGuiJobs : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { test::isolateSettings(); }

    void cancelStopsTheJob() {
        JobRunner runner;
        QSignalSpy progress(&runner, &JobRunner::progressChanged);
        QSignalSpy finished(&runner, &JobRunner::finished);
        JobStatusWidget status(runner);
        QVERIFY(runner.start({QStringLiteral("busy"), [](JobControl& job) { busyJob(job); }, nullptr}));
        QVERIFY(runner.isBusy());
        QVERIFY(!status.isHidden());
        // Progress arrives through the 50 ms poll.
        QTRY_VERIFY_WITH_TIMEOUT(runner.progress() > 0.5 && progress.count() >= 2, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(status.progressBar()->value() > 500, 5000);

        QEventLoop loop;
        QElapsedTimer clock;
        qint64 cancelledAfter = -1;
        connect(&runner, &JobRunner::cancelled, &loop, [&] {
            cancelledAfter = clock.elapsed();
            loop.quit();
        });
        QTimer::singleShot(2000, &loop, &QEventLoop::quit);
        clock.start();
        status.cancelButton()->click(); // what the user does
        loop.exec();
        QVERIFY2(cancelledAfter >= 0, "the job did not stop");
        qInfo("cancel to idle: %lld ms", static_cast<long long>(cancelledAfter));
        // Generous: the 100 ms product target is a bench row (glint-cli bench cancel), not a unit-test bound.
        QVERIFY2(cancelledAfter < 1000, qPrintable(QStringLiteral("cancel took %1 ms").arg(cancelledAfter)));
        QVERIFY(!runner.isBusy());
        QVERIFY(status.isHidden());
        QCOMPARE(finished.count(), 0);
    }

    void finishesWithProgressAndRunsDoneOnUiThread() {
        JobRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy busy(&runner, &JobRunner::busyChanged);
        QThread* workerThread = nullptr;
        QThread* doneThread = nullptr;
        double timingStep = -1;
        JobRequest request;
        request.name = QStringLiteral("short");
        request.work = [&](JobControl& job) {
            workerThread = QThread::currentThread();
            auto step = job.timing().scope("slices");
            busyJob(job, 30);
        };
        request.done = [&](JobControl& job) {
            doneThread = QThread::currentThread();
            timingStep = job.timing().step("slices");
        };
        // The UI thread keeps running its own timers while the job works.
        int ticks = 0;
        QTimer tick;
        connect(&tick, &QTimer::timeout, [&] { ++ticks; });
        tick.start(5);
        QVERIFY(runner.start(std::move(request)));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 5000);
        QCOMPARE(doneThread, QThread::currentThread());
        QVERIFY(workerThread != QThread::currentThread());
        QVERIFY(timingStep >= 25.0);
        QVERIFY2(ticks >= 3, qPrintable(QString::number(ticks)));
        QCOMPARE(busy.count(), 2); // busy, then idle
        QCOMPARE(finished.at(0).at(0).toString(), QStringLiteral("short"));
        QVERIFY(finished.at(0).at(1).toDouble() >= 25.0);
    }

    void failureCarriesMessage() {
        JobRunner runner;
        QSignalSpy failed(&runner, &JobRunner::failed);
        bool doneCalled = false;
        QVERIFY(runner.start({QStringLiteral("bad"), [](JobControl&) { throw BackendUnavailable("no usable CUDA device: none"); },
                              [&](JobControl&) { doneCalled = true; }}));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 5000);
        QCOMPARE(failed.at(0).at(1).toString(), QStringLiteral("no usable CUDA device: none"));
        QVERIFY(!doneCalled);
        QVERIFY(!runner.isBusy());
        // The runner takes the next job after a failure.
        QSignalSpy finished(&runner, &JobRunner::finished);
        QVERIFY(runner.start({QStringLiteral("next"), [](JobControl&) {}, nullptr}));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 5000);
    }

    void secondJobIsRefused() {
        JobRunner runner;
        QSignalSpy refused(&runner, &JobRunner::refused);
        QVERIFY(runner.start({QStringLiteral("first"), [](JobControl& job) { busyJob(job); }, nullptr}));
        std::atomic<bool> secondRan{false};
        QVERIFY(!runner.start({QStringLiteral("second"), [&](JobControl&) { secondRan = true; }, nullptr}));
        QCOMPARE(refused.count(), 1);
        QCOMPARE(refused.at(0).at(0).toString(), QStringLiteral("second"));
        QCOMPARE(refused.at(0).at(1).toString(), QStringLiteral("first"));
        QCOMPARE(runner.currentName(), QStringLiteral("first"));
        runner.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!runner.isBusy(), 2000);
        QVERIFY(!secondRan);
    }

    void destructionCancelsRunningJob() {
        std::atomic<bool> started{false}, stopped{false};
        {
            JobRunner runner;
            runner.start({QStringLiteral("endless"),
                          [&](JobControl& job) {
                              started = true;
                              try {
                                  busyJob(job);
                              } catch (const Cancelled&) {
                                  stopped = true;
                                  throw;
                              }
                          },
                          nullptr});
            QTRY_VERIFY_WITH_TIMEOUT(started, 10000); // running, not merely queued
        }
        QVERIFY(stopped);
    }

    void latestRequestWins() {
        LatestRequestRunner runner;
        QSignalSpy idle(&runner, &LatestRequestRunner::idle);
        QList<int> delivered;
        for (int i = 0; i < 5; ++i)
            runner.request([](JobControl& job) { busyJob(job, 40); }, [&delivered, i] { delivered << i; });
        QTRY_VERIFY_WITH_TIMEOUT(idle.count() >= 1 && !runner.isBusy(), 5000);
        QCOMPARE(delivered, QList<int>{4});
        // Only the first and the last ever ran: the middle ones were replaced while waiting.
        QCOMPARE(runner.startedCount(), 2);
        QCOMPARE(runner.supersededCount(), 4);
    }

    void latestRequestReportsFailureOfTheNewest() {
        LatestRequestRunner runner;
        QSignalSpy failed(&runner, &LatestRequestRunner::failed);
        runner.request([](JobControl&) { throw InputError("broken"); }, [] { QFAIL("a failed request delivered"); });
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 5000);
        QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("broken"));
        // Cancelled work is neither delivered nor reported as a failure.
        runner.request([](JobControl& job) { busyJob(job); }, [] { QFAIL("cancelled work delivered"); });
        QTest::qWait(10);
        runner.cancelAll();
        QTRY_VERIFY_WITH_TIMEOUT(!runner.isBusy(), 2000);
        QCOMPARE(failed.count(), 1);
    }
};

QTEST_MAIN(TestGuiJobs)
#include "test_gui_jobs.moc"
