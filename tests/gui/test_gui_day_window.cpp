// The window for a day's work (issue 34), the part on running and first meeting it: Esc cancels a run with the
// canvas or a parameter field focused (an armed drawing tool still gets Esc when nothing runs); the first window
// fits a 1280 × 800 or 1024 × 768 screen with its frame, the status bar inside, the canvas at least 70 % of the
// height and the empty results dock folded; the first look opens the sample with its brightest regions found
// (`--preset auto`) and listed; the header's HDU line numbers HDUs as glint-cli does.
#include "tests/gui/GuiTestSupport.h"
#include "tests/gui/test_gui_brightest_support.h"
#include "tests/support/TestSupport.h"

#include "core/params/ImageKind.h"
#include "ui/FirstLook.h"
#include "ui/WindowFit.h"
#include "ui/canvas/CanvasTool.h"
#include "ui/docks/HeaderDock.h"
#include "ui/docks/ResultsDock.h"
#include "ui/docks/TimingDock.h"
#include "ui/modules/BrightestModule.h"
#include "ui/modules/BrightestPanel.h"
#include "ui/results/ResultsModel.h"
#include "ui/results/TimingLog.h"

#include <QComboBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>

#include <algorithm>
#include <random>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::brightest;

namespace {

// A FITS card: 80 characters.
QByteArray card(const QString& text) { return text.toLatin1().leftJustified(80, ' ', true); }

// A header of cards, ended and padded to 2880 bytes.
QByteArray header(QStringList cards) {
    cards << QStringLiteral("END");
    QByteArray h;
    for (const QString& c : cards) h += card(c);
    return h.leftJustified((h.size() + 2879) / 2880 * 2880, ' ');
}

QString value(const char* key, const QString& v) { return QStringLiteral("%1= %2").arg(QLatin1String(key), -8).arg(v, 20); }

// A multi-extension file as HST writes one: an empty primary HDU, then the images SCI, ERR and DQ
// (32 × 24, 16-bit, a ramp), so the first HDU with an image is HDU 1 of 0–3.
QString writeMultiExtensionFits() {
    QByteArray file = header({value("SIMPLE", QStringLiteral("T")), value("BITPIX", QStringLiteral("16")),
                              value("NAXIS", QStringLiteral("0")), value("EXTEND", QStringLiteral("T"))});
    const int w = 32, h = 24;
    for (const char* name : {"SCI", "ERR", "DQ"}) {
        file += header({value("XTENSION", QStringLiteral("'IMAGE   '")), value("BITPIX", QStringLiteral("16")),
                        value("NAXIS", QStringLiteral("2")), value("NAXIS1", QString::number(w)),
                        value("NAXIS2", QString::number(h)), value("PCOUNT", QStringLiteral("0")),
                        value("GCOUNT", QStringLiteral("1")), value("EXTNAME", QStringLiteral("'%1'").arg(QLatin1String(name)))});
        QByteArray data;
        for (int i = 0; i < w * h; ++i) {
            const int v = (i * 7) % 1000;
            data += static_cast<char>((v >> 8) & 0xff);
            data += static_cast<char>(v & 0xff);
        }
        file += data.leftJustified((data.size() + 2879) / 2880 * 2880, '\0');
    }
    return test::writeTempFile(QStringLiteral("hst-like.fits"), file);
}

// A window showing a large random image whose reference search reports progress, active (it has the keyboard).
void showRandomImage(MainWindow& window) {
    std::mt19937 rng(34);
    QVERIFY(test::showExposed(window, QSize(1280, 800)));
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.context().setImage(test::randomIntImage(1200, 1200, 0, 255, rng), QStringLiteral("large"));
    GLINT_WAIT_FOR_IMAGE(window);
}

// Counts the layout requests a window gets: a settled window gets none while nothing happens (the results dock's
// fit does not keep asking for a height the layout does not give).
class LayoutRequests : public QObject {
public:
    explicit LayoutRequests(QWidget& window) { window.installEventFilter(this); }
    int count = 0;
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::LayoutRequest) ++count;
        return QObject::eventFilter(watched, event);
    }
};

// The status bar's bottom edge, in screen pixels, for a window whose client area is at `client`.
int statusBarBottom(MainWindow& window, const QRect& client) {
    return client.top() + window.statusBar()->mapTo(&window, QPoint(0, window.statusBar()->height() - 1)).y();
}

} // namespace

class TestGuiDayWindow : public QObject {
    Q_OBJECT

private slots:
    // Esc cancels a running analysis as the Cancel button's tooltip and the guide say, whether the canvas or a
    // parameter field has the keyboard. The job is held inside its run until Esc was pressed, so it cannot end
    // on its own first.
    void escCancelsARun_data() {
        QTest::addColumn<QString>("focus");
        QTest::newRow("canvas") << QStringLiteral("canvas");
        QTest::newRow("parameter field") << QStringLiteral("field");
    }
    void escCancelsARun() {
        QFETCH(QString, focus);
        MainWindow window({false, false});
        showRandomImage(window);
        BrightestModule* module = findModule(window);
        QVERIFY(window.jobStatus()->cancelButton()->toolTip().contains(QLatin1String("Esc")));
        module->panel()->backendBox()->setCurrentText(QStringLiteral("reference"));
        QWidget* target = focus == QLatin1String("canvas") ? static_cast<QWidget*>(window.canvas()) : module->panel()->kBox();
        target->setFocus();
        QTRY_VERIFY(target->hasFocus());
        QSignalSpy cancelled(module, &BrightestModule::runCancelled);
        QSignalSpy finished(module, &BrightestModule::runFinished);
        test::HoldJobAtProgress hold;
        QVERIFY(module->run());
        QTRY_VERIFY_WITH_TIMEOUT(hold.held(), 30000);
        QVERIFY(window.context().jobs()->isBusy());
        QVERIFY(target->hasFocus());
        QTest::keyClick(target, Qt::Key_Escape);
        hold.release();
        QTRY_VERIFY_WITH_TIMEOUT(!window.context().jobs()->isBusy(), 30000);
        QCOMPARE(finished.count(), 0);
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(window.resultsDock()->resultSetCount(), 0);
        QVERIFY(!module->regionLayer());
        // The field kept its value: Esc went to the run, not to the field.
        if (focus == QLatin1String("field")) QVERIFY(module->panel()->kBox()->value() > 0);
    }

    // The progress label names the step that runs, as the job's timing names its steps ("Brightest region:
    // search"); the step shown is one the finished run's timing lists.
    void progressShowsTheStep() {
        MainWindow window({false, false});
        showRandomImage(window);
        BrightestModule* module = findModule(window);
        module->panel()->backendBox()->setCurrentText(QStringLiteral("reference"));
        QSignalSpy steps(window.context().jobs(), &JobRunner::stepChanged);
        test::HoldJobAtProgress hold;
        QVERIFY(module->run());
        QTRY_VERIFY_WITH_TIMEOUT(hold.held(), 30000);
        const QString prefix = module->name() + QStringLiteral(": ");
        QLabel* label = window.jobStatus()->label();
        QTRY_VERIFY2(label->text().startsWith(prefix) && label->text().size() > prefix.size(), qPrintable(label->text()));
        const QString step = label->text().mid(prefix.size());
        QCOMPARE(window.context().jobs()->currentStep(), step);
        QString message;
        QVERIFY2(runAndWait(module, [&] { hold.release(); }, &message), qPrintable(message));
        QVERIFY(!steps.isEmpty());
        QVERIFY(window.context().jobs()->currentStep().isEmpty()); // idle: no step
        const std::vector<RunRecord>& records = window.context().timingLog()->records();
        QVERIFY(!records.empty());
        QStringList timed;
        for (const glint::TimingStep& s : records.back().steps) timed << QString::fromStdString(s.name);
        QVERIFY2(timed.contains(step), qPrintable(step + QStringLiteral(" not in ") + timed.join(QStringLiteral(", "))));
    }

    // With nothing running, Esc is the armed drawing tool's again: it drops the tool (back to panning).
    void escDropsAnArmedToolWhenNothingRuns() {
        MainWindow window({false, false});
        showRandomImage(window);
        BrightestModule* module = findModule(window);
        ImageCanvas* canvas = window.canvas();
        module->panel()->excludeRectangleButton()->click();
        QVERIFY(canvas->tool() != canvas->defaultTool());
        canvas->setFocus();
        QTRY_VERIFY(canvas->hasFocus());
        QVERIFY(!window.context().jobs()->isBusy());
        QTest::keyClick(canvas, Qt::Key_Escape);
        QCOMPARE(canvas->tool(), canvas->defaultTool());
    }

    // The first window on a 1280 × 800 and a 1024 × 768 screen, framed as a window manager frames it: the window
    // with its frame inside the screen (the status bar with it), the canvas at least 70 % of the window's height,
    // the results dock folded to a line while it has no results, and rows of results under a canvas that keeps
    // 70 % once a run has listed them.
    void firstWindowFitsTheScreen_data() {
        QTest::addColumn<QSize>("screen");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1024x768") << QSize(1024, 768);
    }
    void firstWindowFitsTheScreen() {
        QFETCH(QSize, screen);
        const QRect available(QPoint(0, 0), screen);
        const QMargins frame(1, 29, 1, 4); // a title bar and thin borders, as openbox draws them
        MainWindow window({false, false});
        const QRect client = fittedGeometry(QRect(QPoint(frame.left(), frame.top()), window.size()), QSize(1280, 800), frame,
                                            available, window.minimumSizeHint());
        QVERIFY2(available.contains(client.marginsAdded(frame)),
                 qPrintable(QStringLiteral("%1,%2 %3x%4").arg(client.x()).arg(client.y()).arg(client.width()).arg(client.height())));
        QVERIFY(client.height() >= screen.height() - frame.top() - frame.bottom() - 1);
        QVERIFY(test::showExposed(window, client.size()));
        window.openFile(test::samplePath(QStringLiteral("ngc1316o.fit")));
        GLINT_WAIT_FOR_IMAGE(window);
        // The window keeps the size asked for (its docks' minimums do not push it past the screen).
        QCOMPARE(window.size(), client.size());
        QVERIFY2(statusBarBottom(window, client) <= available.bottom(),
                 qPrintable(QStringLiteral("status bar ends at %1").arg(statusBarBottom(window, client))));
        QVERIFY(window.statusBar()->isVisible() && window.statusBar()->height() > 0);
        const auto canvasShare = [&] { return static_cast<double>(window.canvas()->height()) / window.height(); };
        QTRY_VERIFY2(canvasShare() >= 0.70, qPrintable(QStringLiteral("canvas %1 of %2").arg(window.canvas()->height()).arg(window.height())));
        // Empty: the results dock folds to the chooser's line ("No results yet"), as small as the layout lets it
        // (its tab, the timing dock, has its own minimum), not a third of the window.
        ResultsDock* results = window.resultsDock();
        QCOMPARE(results->resultSetCount(), 0);
        QVERIFY(results->table()->isHidden());
        const int folded = std::max(results->minimumSizeHint().height(), window.timingDock()->minimumSizeHint().height());
        QTRY_VERIFY2(results->height() <= folded + 2 && results->height() <= window.height() * 15 / 100,
                     qPrintable(QStringLiteral("empty results dock %1 of %2 (folded %3)").arg(results->height()).arg(window.height()).arg(folded)));

        // Idle, the window stays as it is (no loop of layouts).
        QTest::qWait(300);
        {
            LayoutRequests requests(window);
            QTest::qWait(600);
            QVERIFY2(requests.count <= 2, qPrintable(QStringLiteral("%1 layout requests while idle").arg(requests.count)));
        }

        BrightestModule* module = findModule(window);
        QString message;
        QVERIFY2(runAndWait(module, [&] { module->run(10); }, &message), qPrintable(message));
        QVERIFY(results->table()->model()->rowCount() >= 3);
        // Rows under the chooser, the run's note and the column header: three on the taller screen, two on the
        // shorter (where a horizontal scroll bar also takes its line).
        const int rowsWanted = screen.height() >= 800 ? 3 : 2;
        QTRY_VERIFY2(results->rowsInView() >= rowsWanted && canvasShare() >= 0.70,
                     qPrintable(QStringLiteral("%1 rows, canvas %2 of %3").arg(results->rowsInView()).arg(window.canvas()->height()).arg(window.height())));
        QCOMPARE(window.size(), client.size());
        QTest::qWait(300);
        {
            LayoutRequests requests(window);
            QTest::qWait(600);
            QVERIFY2(requests.count <= 2, qPrintable(QStringLiteral("%1 layout requests while idle").arg(requests.count)));
        }
        saveShot(window, QStringLiteral("day-window-%1x%2").arg(screen.width()).arg(screen.height()));
    }

    // keepOnScreen() on the screen the window is on: a window larger than the screen comes back inside it.
    void keepOnScreenFitsTheRealScreen() {
        MainWindow window({false, false});
        const QRect available = window.screen()->availableGeometry();
        const QSize minimum = window.minimumSizeHint();
        if (minimum.width() > available.width() || minimum.height() > available.height())
            QSKIP(qPrintable(QStringLiteral("this screen (%1 x %2) is smaller than the window's minimum").arg(available.width()).arg(available.height())));
        window.resize(available.width() + 300, available.height() + 200);
        keepOnScreen(window);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY2(available.contains(window.frameGeometry()),
                     qPrintable(QStringLiteral("%1 x %2 on %3 x %4").arg(window.frameGeometry().width()).arg(window.frameGeometry().height()).arg(available.width()).arg(available.height())));
    }

    // The first look: the sample opens with its brightest regions found with the preset of its kind (what
    // glint-cli's --preset auto picks), drawn and listed; the window does not wait for it.
    void firstLookListsResults() {
        MainWindow window({false, false});
        QVERIFY(test::showExposed(window, QSize(1280, 800)));
        const QString sample = defaultSample();
        QVERIFY(!sample.isEmpty());
        QElapsedTimer clock;
        clock.start();
        BrightestModule* module = openFirstLook(window, sample);
        QVERIFY(module);
        QVERIFY(!window.context().hasImage()); // the image loads on a worker: the call returned at once
        QSignalSpy finished(module, &BrightestModule::runFinished);
        QSignalSpy failed(module, &BrightestModule::runFailed);
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 120000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        QCOMPARE(window.context().imagePath(), sample);
        QCOMPARE(window.parametersDock()->currentTitle(), module->name());
        ResultsDock* results = window.resultsDock();
        QCOMPARE(results->resultSetCount(), 1);
        QVERIFY(results->table()->isVisible());
        const int rows = results->table()->model()->rowCount();
        QVERIFY(rows >= 1);
        QCOMPARE(rows, static_cast<int>(module->lastResults().front().regions.size()));
        QVERIFY(module->regionLayer() && module->regionLayer()->isVisible());
        // The kind's preset, as --preset auto resolves it, and the CLI's answer with it.
        const std::string kind = imageKindName(classifyImage(*window.context().image()).kind);
        QCOMPARE(module->runs().back().parameters["preset"].get<std::string>(), kind);
        const QJsonObject cli = test::runCliJson({QStringLiteral("brightest"), sample, QStringLiteral("--preset"), QStringLiteral("auto"),
                                                  QStringLiteral("--json"), QStringLiteral("-")});
        QCOMPARE(cli.value(QStringLiteral("parameters")).toObject().value(QStringLiteral("preset")).toString().toStdString(), kind);
        const QJsonArray regions = cli.value(QStringLiteral("regions")).toArray();
        QCOMPARE(regions.size(), rows);
        qInfo("first look: %d regions with the %s preset, %lld ms after the call", rows, kind.c_str(),
              static_cast<long long>(clock.elapsed()));
    }

    // A first look can be cancelled like any run (Esc), and leaves the image open without results.
    void firstLookCanBeCancelled() {
        MainWindow window({false, false});
        QVERIFY(test::showExposed(window, QSize(1280, 800)));
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        BrightestModule* module = openFirstLook(window, defaultSample());
        QVERIFY(module);
        QSignalSpy cancelled(module, &BrightestModule::runCancelled);
        QSignalSpy finished(module, &BrightestModule::runFinished);
        QTRY_VERIFY_WITH_TIMEOUT(window.context().jobs()->isBusy() || !finished.isEmpty(), 60000);
        if (!finished.isEmpty()) QSKIP("the first look finished before Esc could be pressed");
        window.canvas()->setFocus();
        QTest::keyClick(window.canvas(), Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!cancelled.isEmpty() || !finished.isEmpty(), 60000);
        if (!finished.isEmpty()) QSKIP("the first look finished before the cancel reached it");
        QVERIFY(window.context().hasImage());
        QCOMPARE(window.resultsDock()->resultSetCount(), 0);
    }

    // The header's HDU line numbers HDUs as glint-cli does (--hdu N, `glint-cli info`): from 0, the primary; an
    // HST-like file of four HDUs shows its first image, HDU 1 (SCI), of 0–3.
    void hduLabelAgreesWithTheCli() {
        const QString path = writeMultiExtensionFits();
        const QJsonObject info = test::runCliJson({QStringLiteral("info"), path, QStringLiteral("--json"), QStringLiteral("-")});
        QCOMPARE(info.value(QStringLiteral("hdu")).toInt(-1), 1);
        QCOMPARE(info.value(QStringLiteral("hdus")).toArray().size(), 4);
        QCOMPARE(info.value(QStringLiteral("hdus")).toArray().at(1).toObject().value(QStringLiteral("name")).toString(), QStringLiteral("SCI"));

        MainWindow window({false, false});
        QVERIFY(test::showExposed(window, QSize(1280, 800)));
        window.openFile(path);
        GLINT_WAIT_FOR_IMAGE(window);
        const QString summary = window.headerDock()->summary()->text();
        QVERIFY2(summary.contains(QStringLiteral("HDU: 1 (SCI) of 0–3, counted from 0 = primary (glint-cli --hdu 1)")), qPrintable(summary));
        QVERIFY2(!summary.contains(QStringLiteral("of 4")), qPrintable(summary));
        // The HDU the window names is the one the CLI reads with that number.
        const QJsonObject same = test::runCliJson({QStringLiteral("info"), path, QStringLiteral("--hdu"), QStringLiteral("1"),
                                                   QStringLiteral("--json"), QStringLiteral("-")});
        QCOMPARE(same.value(QStringLiteral("width")).toInt(), window.context().image()->width());
        QCOMPARE(same.value(QStringLiteral("max")).toDouble(), window.context().loaded().stats.max);
    }
};

GLINT_GUI_TEST_MAIN(TestGuiDayWindow)
#include "test_gui_day_window.moc"
