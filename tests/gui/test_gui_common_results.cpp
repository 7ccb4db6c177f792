// Common component in the window, its answers: a component's outline, no match as a result (not an error), an
// unreliable match said so, pairs of different sizes against the reference, Cancel within a second of a long
// reference run, and a backend that cannot run.
#include "tests/gui/test_gui_common_support.h"
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "core/algo/commoncomponent/CommonComponent.h"
#include "ui/docks/ParametersDock.h"
#include "ui/docks/ResultsDock.h"
#include "ui/jobs/JobRunner.h"
#include "ui/modules/CommonComponentLayers.h"
#include "ui/modules/CommonComponentModule.h"
#include "ui/modules/CommonComponentPanel.h"
#include "ui/results/ResultsModel.h"
#include "ui/results/TimingLog.h"

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>

#include <random>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::common;

class TestGuiCommonResults : public QObject {
    Q_OBJECT

private slots:
    // The outline of a pixel set: the outer edge and the edge of each hole, collinear edges merged.
    void boundaryOfARing() {
        const std::vector<std::uint8_t> ring{1, 1, 1, 1, 0, 1, 1, 1, 1};
        const QVector<QLineF> lines = maskBoundary(3, 3, ring);
        QCOMPARE(lines.size(), 8);
        double length = 0;
        for (const QLineF& l : lines) length += l.length();
        QCOMPARE(length, 16.0);
        QVERIFY(lines.contains(QLineF(-0.5, -0.5, 2.5, -0.5)));
        QVERIFY(lines.contains(QLineF(0.5, 0.5, 1.5, 0.5)));   // the hole's top
        QVERIFY(lines.contains(QLineF(1.5, 0.5, 1.5, 1.5)));   // the hole's right
        QVERIFY(lines.contains(QLineF(2.5, -0.5, 2.5, 2.5)));  // the right side, one line
        // Diagonal neighbours: the edges meeting at the shared corner continue one another and are drawn
        // as one line (6 lines, the 8 unit edges' length).
        const QVector<QLineF> diagonal = maskBoundary(2, 2, {1, 0, 0, 1});
        QCOMPARE(diagonal.size(), 6);
        double diagonalLength = 0;
        for (const QLineF& l : diagonal) diagonalLength += l.length();
        QCOMPARE(diagonalLength, 8.0);
        QVERIFY(diagonal.contains(QLineF(-0.5, 0.5, 1.5, 0.5)));
    }

    // No pixel matches: a result that says so, no component layers, no error.
    void noMatchIsAResult() {
        MainWindow window({false, false});
        window.show();
        window.context().setImage(Image(20, 15, SampleType::UInt8), QStringLiteral("zeros"));
        auto* module = test::findModule<CommonComponentModule>(window);
        std::vector<std::uint8_t> ones(12 * 9, 1);
        module->setSecondImage(Image::fromSamples<std::uint8_t>(12, 9, std::move(ones)), QStringLiteral("ones"));
        CommonComponentParams raw; // the paper's definition: linear would map the constant B onto A
        module->setParameters(raw);
        QSignalSpy shown(module, &CommonComponentModule::resultShown);
        QSignalSpy failed(window.context().jobs(), &JobRunner::failed);
        QVERIFY(module->run());
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        QCOMPARE(failed.count(), 0);
        QVERIFY(!module->result()->found);
        QVERIFY(!module->componentLayerA() && !module->componentLayerB());
        QCOMPARE(module->model()->rowCount(), 1);
        QCOMPARE(module->model()->value(0, 0).toString(), QStringLiteral("no common pixel"));
        QCOMPARE(module->model()->value(0, 3).toULongLong(), 0ull);
        QVERIFY(module->panel()->summaryLabel()->text().startsWith(QStringLiteral("No common pixel")));
        QCOMPARE(window.context().timingLog()->records().size(), std::size_t(1));
        // Why, in the results dock above the row and in the status bar (once the job has ended).
        const QString why = QStringLiteral("No common pixel: no pixel of A matches B within the tolerance 0 at any of the");
        QVERIFY(window.resultsDock()->noteLabel()->isVisibleTo(window.resultsDock()));
        QVERIFY2(window.resultsDock()->noteLabel()->text().startsWith(why), qPrintable(window.resultsDock()->noteLabel()->text()));
        QTRY_VERIFY(window.statusBar()->currentMessage().startsWith(why));
    }

    // Two unrelated images: some pixels match at every offset, but the best component covers a sliver of the
    // overlap. The window says so instead of drawing a speck.
    void unrelatedPairIsNotReliable() {
        MainWindow window({false, false});
        window.show();
        std::mt19937 random(3);
        const auto noise = [&](int w, int h) {
            std::vector<std::uint8_t> v(static_cast<std::size_t>(w) * h);
            for (std::uint8_t& x : v) x = static_cast<std::uint8_t>(random() % 4);
            return Image::fromSamples<std::uint8_t>(w, h, std::move(v));
        };
        window.context().setImage(noise(120, 100), QStringLiteral("noise A"));
        auto* module = test::findModule<CommonComponentModule>(window);
        window.parametersDock()->showPanel(module->name());
        module->setSecondImage(noise(110, 90), QStringLiteral("noise B"));
        module->setBackend(Backend::Cpu);
        QVERIFY(runAndWaitShown(module, 30000));
        const CommonComponentResult& r = *module->result();
        QVERIFY(r.found);
        QVERIFY(!r.confidence.reliable);
        QVERIFY(!module->componentLayerA() && !module->componentLayerB());
        const QString why = QStringLiteral("No reliable common region (coverage %1 % of the overlap)")
                                .arg(100.0 * r.confidence.coverage, 0, 'f', 1);
        QVERIFY2(module->panel()->summaryLabel()->text().startsWith(why), qPrintable(module->panel()->summaryLabel()->text()));
        QCOMPARE(module->model()->value(0, 0).toString(), QStringLiteral("no reliable common region"));
        QVERIFY2(window.resultsDock()->noteLabel()->text().startsWith(why), qPrintable(window.resultsDock()->noteLabel()->text()));
        QTRY_VERIFY(window.statusBar()->currentMessage().startsWith(why));
    }

    // Images of different sizes, tolerance and maximum shift, every CPU backend: the window shows what
    // the reference computes.
    void differentSizesAgainstReference_data() {
        test::columns<int, int, int, int, int, double, int, QString>(
            {"wA", "hA", "wB", "hB", "values", "tolerance", "maxShift", "backend"});
        QTest::newRow("wide A, tall B, cpu") << 23 << 9 << 7 << 17 << 3 << 0.0 << -1 << "cpu";
        QTest::newRow("1x1 B, reference") << 13 << 11 << 1 << 1 << 2 << 0.0 << -1 << "reference";
        QTest::newRow("tolerance 1, cpu") << 16 << 12 << 14 << 15 << 6 << 1.0 << -1 << "cpu";
        QTest::newRow("max shift 3, cpu") << 18 << 18 << 20 << 16 << 4 << 0.0 << 3 << "cpu";
        QTest::newRow("auto") << 11 << 19 << 19 << 11 << 3 << 0.0 << -1 << "auto";
    }

    void differentSizesAgainstReference() {
        QFETCH(int, wA);
        QFETCH(int, hA);
        QFETCH(int, wB);
        QFETCH(int, hB);
        QFETCH(int, values);
        QFETCH(double, tolerance);
        QFETCH(int, maxShift);
        QFETCH(QString, backend);
        std::mt19937 rng(static_cast<unsigned>(wA * 131 + hB));
        Image a = test::randomIntImage(wA, hA, 0, values - 1, rng, 0.05);
        Image b = test::randomIntImage(wB, hB, 0, values - 1, rng);
        CommonComponentParams params;
        params.tolerance = tolerance;
        params.maxShift = maxShift;
        JobControl job;
        const CommonComponentResult expected = findCommonComponent(a, b, params, Backend::Reference, job);

        MainWindow window({false, false});
        window.show();
        window.context().setImage(std::move(a), QStringLiteral("A"));
        auto* module = test::findModule<CommonComponentModule>(window);
        module->setSecondImage(std::move(b), QStringLiteral("B"));
        module->setParameters(params);
        module->setBackend(parseBackend(backend.toStdString()));
        QCOMPARE(module->panel()->parameters().tolerance, tolerance);
        QCOMPARE(module->panel()->parameters().maxShift, static_cast<long long>(maxShift));
        QVERIFY(runAndWaitShown(module, 30000));
        const CommonComponentResult& r = *module->result();
        QCOMPARE(r.size, expected.size);
        QCOMPARE(r.found, expected.found);
        if (!r.found) return;
        // Ties may pick another offset; whatever is shown must be a component of that size at its offset,
        // tinted on A where the mask is and on B at the mask + offset.
        std::uint64_t tintedOnA = 0;
        const QPoint placement = module->secondPlacement();
        for (int y = 0; y < hA; ++y)
            for (int x = 0; x < wA; ++x) {
                QCOMPARE(module->componentLayerA()->isSet(x, y), inComponent(r, x, y));
                if (!inComponent(r, x, y)) continue;
                ++tintedOnA;
                QVERIFY(module->componentLayerB()->isSet(placement.x() + x + r.dx, placement.y() + y + r.dy));
                QVERIFY(!module->secondImage()->isBlank(x + r.dx, y + r.dy));
                QVERIFY(samplesMatch(window.context().image()->value(x, y), module->secondImage()->value(x + r.dx, y + r.dy),
                                     tolerance));
            }
        QCOMPARE(tintedOnA, r.size);
        if (maxShift >= 0) QVERIFY(std::abs(r.dx) <= maxShift && std::abs(r.dy) <= maxShift);
    }

    // Cancel from the status bar stops a running reference search (within a second here; the 100 ms
    // product target is a bench row); nothing is shown. The search is held at its first progress report
    // until Cancel is clicked, so it cannot finish first.
    void cancelStopsTheSearch() {
        std::mt19937 rng(11);
        MainWindow window({false, false});
        window.show();
        // Tall and narrow: seconds of reference search in all, while the reference checks Cancel once per
        // row of offsets (95 offsets of 48 x 640 pixels here: a few ms).
        window.context().setImage(test::randomIntImage(48, 640, 0, 3, rng), QStringLiteral("A"));
        auto* module = test::findModule<CommonComponentModule>(window);
        module->setSecondImage(test::randomIntImage(48, 640, 0, 3, rng), QStringLiteral("B"));
        module->setBackend(Backend::Reference);
        JobRunner* jobs = window.context().jobs();
        QSignalSpy shown(module, &CommonComponentModule::resultShown);
        test::HoldJobAtProgress hold;
        QVERIFY(module->run());
        QTRY_VERIFY_WITH_TIMEOUT(hold.held(), 20000);

        QVERIFY(jobs->isBusy());
        const qint64 cancelledAfter = test::clickCancelAndTime(window, [&] { hold.release(); });
        QVERIFY2(cancelledAfter >= 0, "the search did not stop");
        qInfo("cancel to idle: %lld ms", static_cast<long long>(cancelledAfter));
        QVERIFY2(cancelledAfter < 1000, qPrintable(QStringLiteral("cancel took %1 ms").arg(cancelledAfter)));
        QVERIFY(!jobs->isBusy());
        QTest::qWait(50);
        QCOMPARE(shown.count(), 0);
        QVERIFY(!module->result());
        QVERIFY(window.context().timingLog()->records().empty());
        QCOMPARE(module->panel()->summaryLabel()->text(), QStringLiteral("The search was cancelled."));
    }

    // A backend that cannot run is a clear message, not a crash; the window stays usable.
    void unavailableBackendIsAMessage() {
        if (test::cudaUsable()) QSKIP("a CUDA device is usable here");
        MainWindow window({false, false});
        window.show();
        std::mt19937 rng(5);
        window.context().setImage(test::randomIntImage(12, 10, 0, 3, rng), QStringLiteral("A"));
        auto* module = test::findModule<CommonComponentModule>(window);
        module->setSecondImage(test::randomIntImage(9, 11, 0, 3, rng), QStringLiteral("B"));
        module->panel()->backendBox()->setCurrentText(QStringLiteral("cuda"));
        QSignalSpy failed(window.context().jobs(), &JobRunner::failed);
        QVERIFY(module->run());
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("CUDA")));
        QVERIFY(module->panel()->summaryLabel()->text().startsWith(QStringLiteral("The search failed: ")));
        QVERIFY(!module->result());
        module->setBackend(Backend::Cpu);
        QVERIFY(runAndWaitShown(module, 10000));
    }
};

GLINT_GUI_TEST_MAIN(TestGuiCommonResults)
#include "test_gui_common_results.moc"
