// Brightest region's panel in the window: its registration, the per-image defaults (a FITS image's source
// finder, a mammogram's auto-exclusions, an aerial photo's mean pivot), a search that waits for the
// auto-exclusions, the user's values kept across images and sessions, the search's note, the Max box field,
// and K shown and used everywhere (Enter in the panel's values runs, Ctrl+B runs with the panel's K).
// Screenshots: set GLINT_SCREENSHOT_DIR to keep the window grabs the tests take (mammogram).
#include "tests/gui/test_gui_brightest_support.h"

#include "ui/AppContext.h"
#include "ui/docks/ParametersDock.h"
#include "ui/docks/ResultsDock.h"
#include "core/algo/kmax/KMax.h"
#include "core/params/ImageKind.h"
#include "ui/params/BoundSpinBox.h"
#include "ui/session/SessionInputs.h"

#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>

#include <random>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::brightest;

class TestGuiBrightestPanel : public QObject {
    Q_OBJECT

private slots:
    void registered() {
        MainWindow window({false, false});
        BrightestModule* module = findModule(window);
        QVERIFY(test::moduleRegistered(window, module));
        QVERIFY(module->panel());
        // K as far as the CLI takes it; the overlap mode is one combo entry.
        QCOMPARE(module->panel()->kBox()->maximum(), static_cast<int>(kMaxKMaxResults)); // the spec's range, as the CLI's
        QVERIFY(module->panel()->modeBox()->findData(QStringLiteral("overlap")) >= 0);
        // Without an image a run is refused with a message, not a crash.
        QVERIFY(!module->run());
        QVERIFY(!module->panel()->status().isEmpty());
    }

    // Per-image defaults (issue 14, issue 17 item 3): a FITS image starts at the local pivot, threshold 3,
    // min SNR 5, and its K=10 answer has SNR >= 5 in the new columns; the mammogram gets its exclusions
    // (editable shapes) and its first region is the mass or the calcification cluster, not a label; the
    // aerial photo after it is back at the mean pivot with no exclusion carried over.
    void perImageDefaults() {
        const QString fits = test::samplePath(QStringLiteral("ngc1316o.fit"));
        const QString mammogram = test::samplePath(QStringLiteral("synthetic-mammogram.png"));
        const QString aero = test::samplePath(QStringLiteral("aero.png"));
        if (!QFile::exists(fits) || !QFile::exists(mammogram) || !QFile::exists(aero)) QSKIP("a bundled sample is missing");
        MainWindow window({false, false});
        showWindow(window);
        BrightestModule* module = findModule(window);
        BrightestPanel* panel = module->panel();
        QVERIFY(panel->pivotBox()->findData(QStringLiteral("local")) >= 0);

        window.openFile(fits);
        GLINT_WAIT_FOR_IMAGE(window);
        QCOMPARE(panel->pivotBox()->currentData().toString(), QStringLiteral("local"));
        QCOMPARE(panel->thresholdBox()->value(), 3.0);
        QCOMPARE(panel->minSnrBox()->value(), 5.0);
        QCOMPARE(panel->maxBoxBox()->value(), BoundSpinBox::kAuto); // the search bound: 5 FWHM measured on the image
        QCOMPARE(panel->maxBoxBox()->text(), QStringLiteral("auto (5 × FWHM)"));
        QCOMPARE(module->exclusionCount(), 0);
        QCOMPARE(panel->kBox()->value(), 10);
        panel->backendBox()->setCurrentText(QStringLiteral("cpu"));
        QString message;
        QVERIFY2(runAndWait(module, [&] { panel->runButton()->click(); }, &message), qPrintable(message));
        const glint::BrightestParams fitsParams = module->currentParams(10);
        QCOMPARE(fitsParams.pivot.kind, PivotSpec::Kind::Local);
        QCOMPARE(fitsParams.threshold, 3.0);
        QCOMPARE(fitsParams.minSnr, 5.0);
        QVERIFY(fitsParams.maxBox.isAuto());
        // The run measured the bound on the image, every box fits it, and the status bar says so.
        {
            const BrightestResult& fitsResult = module->lastResults().front();
            QVERIFY(fitsResult.maxBoxAuto);
            QVERIFY(fitsResult.maxBox >= 3 && fitsResult.maxBox <= 64);
            for (const BrightestRegion& g : fitsResult.regions) QVERIFY(g.width <= fitsResult.maxBox && g.height <= fitsResult.maxBox);
            QVERIFY2(panel->status().contains(QStringLiteral("max box auto")), qPrintable(panel->status()));
        }
        // Overlap mode takes the same bound (issue 14): Max box stays enabled, its FITS default reaches the run, and
        // every listed box fits the bound it measured.
        panel->modeBox()->setCurrentIndex(panel->modeBox()->findData(QStringLiteral("overlap")));
        QVERIFY(panel->maxBoxBox()->isEnabled());
        QVERIFY(module->currentParams(10).maxBox.isAuto());
        QVERIFY2(runAndWait(module, [&] { panel->runButton()->click(); }, &message), qPrintable(message));
        QCOMPARE(module->lastResults().front().mode, BrightestMode::Overlap);
        QVERIFY(!module->lastResults().front().regions.empty());
        QVERIFY(module->lastResults().front().maxBoxAuto);
        const int overlapBound = module->lastResults().front().maxBox;
        QVERIFY(overlapBound >= 3 && overlapBound <= 64);
        for (const BrightestRegion& g : module->lastResults().front().regions)
            QVERIFY(g.width <= overlapBound && g.height <= overlapBound);
        panel->modeBox()->setCurrentIndex(panel->modeBox()->findData(QStringLiteral("disjoint")));
        QVERIFY2(runAndWait(module, [&] { panel->runButton()->click(); }, &message), qPrintable(message));
        ResultsModel* model = module->model();
        QVERIFY(model->rowCount() > 0);
        const QStringList columns = model->columns();
        QCOMPARE(columns.mid(0, 7), (QStringList{"rank", "x", "y", "width", "height", "sum", "mean"}));
        const int snr = static_cast<int>(columns.indexOf(QStringLiteral("SNR")));
        QCOMPARE(snr, 8);
        QCOMPARE(columns.at(7), QStringLiteral("flux"));
        QVERIFY(columns.contains(QStringLiteral("centroid x")) && columns.contains(QStringLiteral("flags")));
        if (window.context().image()->meta.wcs) QVERIFY(columns.contains(QStringLiteral("RA")) && columns.contains(QStringLiteral("Dec")));
        for (int row = 0; row < model->rowCount(); ++row)
            QVERIFY2(model->value(row, snr).toDouble() >= 5.0, qPrintable(model->value(row, snr).toString()));
        const BrightestResult& fitsResult = module->lastResults().front();
        for (const BrightestRegion& r : fitsResult.regions) {
            QVERIFY(r.measured);
            QVERIFY(r.snr >= 5.0);
        }
        if (!fitsResult.note.empty()) // the search's own note, in the results dock
            QVERIFY(window.resultsDock()->noteLabel()->text().contains(QString::fromStdString(fitsResult.note)));

        window.openFile(mammogram);
        GLINT_WAIT_FOR_IMAGE(window);
        QCOMPARE(glint::classifyImage(*window.context().image()).kind, glint::ImageKind::Mammogram);
        QVERIFY(waitForAutoExclusion(module));
        QVERIFY(module->exclusionCount() > 0);
        QCOMPARE(module->exclusionLayer()->itemCount(), module->exclusionCount());
        QCOMPARE(panel->exclusionList()->count(), module->exclusionCount());
        QCOMPARE(panel->pivotBox()->currentData().toString(), QStringLiteral("local"));
        QCOMPARE(panel->thresholdBox()->value(), 3.0);
        QCOMPARE(panel->minSnrBox()->value(), 5.0);
        QCOMPARE(panel->maxBoxBox()->value(), 64);
        saveShot(window, QStringLiteral("mammogram-auto-exclusions"));
        // Ctrl+B's action: K Brightest Regions with the panel's K.
        QAction* kBrightest = nullptr;
        for (QAction* a : module->actions())
            if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_B)) kBrightest = a;
        QVERIFY(kBrightest);
        QVERIFY2(runAndWait(module, [&] { kBrightest->trigger(); }, &message), qPrintable(message));
        const BrightestResult& first = module->lastResults().front();
        QVERIFY(!first.regions.empty());
        const BrightestRegion& top = first.regions.front();
        const QRect topRect(top.x, top.y, top.width, top.height);
        const QRect near = topRect.adjusted(-40, -40, 40, 40);
        QVERIFY2(near.contains(QPoint(520, 330)) || near.contains(QPoint(585, 655)),
                 qPrintable(QStringLiteral("%1,%2 %3x%4").arg(top.x).arg(top.y).arg(top.width).arg(top.height)));
        const glint::BrightestParams mammoParams = module->currentParams(10);
        QVERIFY(avoids(topRect, mammoParams));
        QVERIFY(!topRect.intersects(QRect(736, 864, 288, 160)) && !topRect.intersects(QRect(850, 40, 174, 80))); // the labels
        saveShot(window, QStringLiteral("mammogram-first-answer"));
        // The shapes are ordinary exclusions: one can be deleted.
        const int shapes = module->exclusionCount();
        module->removeExclusion(0);
        QCOMPARE(module->exclusionCount(), shapes - 1);

        window.openFile(aero);
        GLINT_WAIT_FOR_IMAGE(window);
        QVERIFY(glint::classifyImage(*window.context().image()).kind != glint::ImageKind::Mammogram);
        QVERIFY(!module->autoExclusionPending());
        QCOMPARE(module->exclusionCount(), 0);
        QVERIFY(!module->exclusionLayer() || module->exclusionLayer()->itemCount() == 0);
        QCOMPARE(panel->pivotBox()->currentData().toString(), QStringLiteral("mean"));
        QCOMPARE(panel->thresholdBox()->value(), 0.0);
        QCOMPARE(panel->minSnrBox()->value(), 0.0);
        QCOMPARE(panel->maxBoxBox()->value(), 0);
        // The button runs the auto-exclusion on any image.
        QSignalSpy added(module, &BrightestModule::autoExclusionsAdded);
        panel->autoExcludeButton()->click();
        QVERIFY(waitForAutoExclusion(module));
        QCOMPARE(added.size(), 1);
        QCOMPARE(module->exclusionCount(), added.first().first().toInt());
    }

    // A search asked for right after a mammogram opens runs with its auto-exclusions (it waits for them).
    void runWaitsForAutoExclusion() {
        MainWindow window({false, false});
        showWindow(window);
        BrightestModule* module = findModule(window);
        const QString file = test::samplePath(QStringLiteral("synthetic-mammogram.png"));
        if (!QFile::exists(file)) QSKIP("the synthetic mammogram sample is missing");
        module->panel()->backendBox()->setCurrentText(QStringLiteral("cpu"));
        QSignalSpy opened(&window.context(), &AppContext::imageChanged);
        window.openFile(file);
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 30000);
        QString message;
        QVERIFY2(runAndWait(module, [&] { QVERIFY(module->run(0)); }, &message), qPrintable(message));
        QVERIFY(module->exclusionCount() > 0);
        const BrightestResult& result = module->lastResults().front();
        QVERIFY(result.includedPixels < static_cast<std::size_t>(result.imageWidth) * static_cast<std::size_t>(result.imageHeight));
        for (const BrightestRegion& r : result.regions)
            QVERIFY(avoids(QRect(r.x, r.y, r.width, r.height), module->currentParams(10)));
    }

    // A field the user changed keeps the user's value on the next image; the others take its defaults.
    // The search's note (fewer regions than K, and why) is in the status bar and the results dock.
    void userValuesAndNote() {
        const QString fits = test::samplePath(QStringLiteral("ngc1316o.fit"));
        if (!QFile::exists(fits)) QSKIP("the FITS sample is missing");
        std::mt19937 rng(3);
        const QString csv = writeMatrix(test::randomFloatImage(60, 50, 0.0, 1.0, rng, 0.0), QStringLiteral("note.csv"));
        MainWindow window({false, false});
        showWindow(window);
        BrightestModule* module = findModule(window);
        BrightestPanel* panel = module->panel();
        window.openFile(csv);
        GLINT_WAIT_FOR_IMAGE(window);
        QCOMPARE(panel->pivotBox()->currentData().toString(), QStringLiteral("mean"));
        panel->minSnrBox()->setValue(1000.0); // the user's
        window.openFile(fits);
        GLINT_WAIT_FOR_IMAGE(window);
        QCOMPARE(panel->pivotBox()->currentData().toString(), QStringLiteral("local"));
        QCOMPARE(panel->thresholdBox()->value(), 3.0);
        QCOMPARE(panel->minSnrBox()->value(), 1000.0);
        window.openFile(csv);
        GLINT_WAIT_FOR_IMAGE(window);
        setPivot(panel, QStringLiteral("p50"));
        panel->pivotBox()->setCurrentIndex(panel->pivotBox()->findData(QStringLiteral("local")));
        panel->meshBox()->setValue(16);
        panel->kBox()->setValue(5);
        panel->backendBox()->setCurrentText(QStringLiteral("cpu"));
        QString message;
        QVERIFY2(runAndWait(module, [&] { panel->runButton()->click(); }, &message), qPrintable(message));
        const BrightestResult& result = module->lastResults().front();
        QVERIFY(result.regions.size() < 5);
        QVERIFY(!result.note.empty());
        const QString note = QString::fromStdString(result.note);
        QVERIFY2(window.statusBar()->currentMessage().contains(note), qPrintable(window.statusBar()->currentMessage()));
        QVERIFY2(window.resultsDock()->noteLabel()->text().contains(note), qPrintable(window.resultsDock()->noteLabel()->text()));

        // Sessions keep the source finder's fields; a session without them keeps the image's defaults.
        const QJsonObject state = module->saveSession();
        const QJsonObject saved = state[QStringLiteral("form")].toObject(); // the brightest spec's keys
        QCOMPARE(saved[QStringLiteral("mesh")].toInt(), 16);
        QCOMPARE(saved[QStringLiteral("min_snr")].toDouble(), 1000.0);
        QCOMPARE(saved[QStringLiteral("pivot")].toString(), QStringLiteral("local"));
        QCOMPARE(state[QStringLiteral("runs")].toArray().last().toObject()[QStringLiteral("parameters")].toObject()[QStringLiteral("mesh")].toInt(), 16);
        panel->meshBox()->setValue(64);
        panel->minSnrBox()->setValue(0.0);
        SessionImages inputs;
        inputs.insert(QString(), window.context().image());
        module->prepareSession(state, inputs)();
        QCOMPARE(panel->meshBox()->value(), 16);
        QCOMPARE(panel->minSnrBox()->value(), 1000.0);
        // A session of an older version: its "panel", without the source finder's fields.
        QJsonObject older = state;
        older.remove(QStringLiteral("form"));
        older[QStringLiteral("panel")] = QJsonObject{{QStringLiteral("k"), 5}, {QStringLiteral("mode"), QStringLiteral("disjoint")},
                                                     {QStringLiteral("pivot_kind"), QStringLiteral("local")},
                                                     {QStringLiteral("percentile"), 50.0}, {QStringLiteral("number"), QString()},
                                                     {QStringLiteral("backend"), QStringLiteral("cpu")}};
        panel->thresholdBox()->setValue(2.5);
        module->prepareSession(older, inputs)();
        QCOMPARE(panel->thresholdBox()->value(), 2.5);
        QCOMPARE(panel->meshBox()->value(), 16);
        // The search bound goes into the run's parameters and the session.
        panel->maxBoxBox()->setValue(9);
        QCOMPARE(module->currentParams(10).maxBox.get(), 9);
        const QJsonObject withBox = module->saveSession();
        QCOMPARE(withBox[QStringLiteral("form")].toObject()[QStringLiteral("max_box")].toInt(), 9);
        panel->maxBoxBox()->setValue(0);
        module->prepareSession(withBox, inputs)();
        QCOMPARE(panel->maxBoxBox()->value(), 9);
        // auto goes into the session and comes back.
        panel->maxBoxBox()->setValue(BoundSpinBox::kAuto);
        const QJsonObject withAuto = module->saveSession();
        QCOMPARE(withAuto[QStringLiteral("form")].toObject()[QStringLiteral("max_box")].toString(), QStringLiteral("auto"));
        panel->maxBoxBox()->setValue(5);
        module->prepareSession(withAuto, inputs)();
        QCOMPARE(panel->maxBoxBox()->value(), BoundSpinBox::kAuto);
    }

    // The Max box field reads "auto (5 × FWHM)", "none" or "N px", and takes any of them typed.
    void maxBoxTyping() {
        BrightestPanel panel;
        QSpinBox* box = panel.maxBoxBox();
        box->setValue(BoundSpinBox::kAuto);
        QCOMPARE(box->text(), QStringLiteral("auto (5 × FWHM)"));
        box->setValue(0);
        QCOMPARE(box->text(), QStringLiteral("none"));
        box->setValue(17);
        QCOMPARE(box->text(), QStringLiteral("17 px"));
        for (const auto& [typed, value] : {std::pair{QStringLiteral("20"), 20}, std::pair{QStringLiteral("none"), 0},
                                           std::pair{QStringLiteral("auto"), BoundSpinBox::kAuto}, std::pair{QStringLiteral("33 px"), 33}}) {
            box->findChild<QLineEdit*>()->selectAll();
            QTest::keyClicks(box, typed);
            box->interpretText();
            QVERIFY2(box->value() == value, qPrintable(typed + QStringLiteral(" -> ") + QString::number(box->value())));
        }
        // Not a bound: the box keeps its value.
        box->findChild<QLineEdit*>()->selectAll();
        QTest::keyClicks(box, QStringLiteral("x"));
        box->interpretText();
        QCOMPARE(box->value(), 33);
    }

    // K is visible and used everywhere: the K field starts at a useful K, the menu entry names it, Enter in
    // the panel's values runs the search, and Ctrl+B runs with the panel's K (not K = 1).
    void kIsVisibleAndEnterRuns() {
        MainWindow window({false, false});
        showWindow(window);
        std::mt19937 rng(21);
        window.context().setImage(test::randomIntImage(60, 50, -50, 50, rng), QStringLiteral("random"));
        GLINT_WAIT_FOR_IMAGE(window);
        BrightestModule* module = findModule(window);
        BrightestPanel* panel = module->panel();
        panel->backendBox()->setCurrentText(QStringLiteral("cpu"));
        QCOMPARE(panel->kBox()->value(), 10);
        QAction* kAction = module->actions().at(1);
        QCOMPARE(kAction->text(), QStringLiteral("K Brightest Regions (K = 10)"));
        QCOMPARE(module->actions().at(0)->text(), QStringLiteral("Brightest Region (K = 1)"));
        QCOMPARE(kAction->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_B));
        QVERIFY(module->actions().at(0)->shortcut().isEmpty());

        // Enter in K: the typed K runs.
        panel->kBox()->setFocus();
        panel->kBox()->selectAll();
        QString message;
        QVERIFY2(runAndWait(module, [&] {
                     QTest::keyClicks(panel->kBox(), QStringLiteral("4"));
                     QTest::keyClick(panel->kBox(), Qt::Key_Return);
                 }, &message),
                 qPrintable(message));
        QCOMPARE(panel->kBox()->value(), 4);
        QCOMPARE(kAction->text(), QStringLiteral("K Brightest Regions (K = 4)"));
        QCOMPARE(module->runs().back().k, 4);
        QCOMPARE(module->model()->rowCount(), 4);

        // Enter in the percentile and in the number pivot runs too, with the value typed.
        setPivot(panel, QStringLiteral("p90"));
        panel->percentileBox()->selectAll();
        QVERIFY2(runAndWait(module, [&] {
                     QTest::keyClicks(panel->percentileBox(), QStringLiteral("95"));
                     QTest::keyClick(panel->percentileBox(), Qt::Key_Enter);
                 }, &message),
                 qPrintable(message));
        QCOMPARE(module->lastResults().front().pivotSpec.text(), std::string("p95"));
        setPivot(panel, QStringLiteral("3"));
        QVERIFY2(runAndWait(module, [&] { QTest::keyClick(panel->numberEdit(), Qt::Key_Return); }, &message), qPrintable(message));
        QCOMPARE(module->lastResults().front().pivot, 3.0);
        QCOMPARE(module->runs().size(), std::size_t(3));
        // Enter in the sweep list runs the sweep.
        panel->sweepEdit()->setText(QStringLiteral("0, 10"));
        QVERIFY2(runAndWait(module, [&] { QTest::keyClick(panel->sweepEdit(), Qt::Key_Return); }, &message), qPrintable(message));
        QVERIFY(module->runs().back().sweep);
        QCOMPARE(module->lastResults().size(), std::size_t(2));

        // Ctrl+B, typed in the window: the panel's K.
        panel->kBox()->setValue(6);
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY2(runAndWait(module, [&] { QTest::keyClick(&window, Qt::Key_B, Qt::ControlModifier); }, &message),
                 qPrintable(message));
        QCOMPARE(module->runs().back().k, 6);
        QVERIFY(!module->runs().back().sweep);
        QCOMPARE(module->model()->rowCount(), 6);
    }
};

GLINT_GUI_TEST_MAIN(TestGuiBrightestPanel)
#include "test_gui_brightest_panel.moc"
