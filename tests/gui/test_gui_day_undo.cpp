// Issue 34, "the window for a day's work": Edit ▸ Undo / Redo (Qt's QUndoStack) for the edits of the current image.
// Exclusion shapes and the ROI drawn on the canvas (Brightest: add, delete, Clear All, the mammogram's
// auto-exclusion; Sources: draw, Clear ROI and Exclusions), a region-statistics rectangle, a finished trace and a
// deleted one, a change of a parameter field (typing merges into one step) and of a panel's own Backend box and
// Show guides check, the menu's texts and keys, and undo once the image it was made on is gone (nothing applied to
// the new image, a message).
#include "tests/gui/GuiTestSupport.h"
#include "tests/gui/test_gui_trace_support.h"
#include "tests/support/TestSupport.h"

#include "ui/modules/BrightestLayers.h"
#include "ui/modules/BrightestModule.h"
#include "ui/modules/BrightestPanel.h"
#include "ui/modules/RegionStatisticsModule.h"
#include "ui/modules/SourcesModule.h"
#include "ui/modules/TraceModule.h"
#include "ui/modules/TracePanel.h"
#include "ui/overlay/ShapeLayer.h"
#include "ui/params/SpecForm.h"
#include "ui/results/ResultsModel.h"
#include "ui/undo/UndoCommands.h"

#include <QCheckBox>
#include <QComboBox>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QUndoStack>

using namespace glint;
using namespace glint::ui;

namespace {

QAction* actionNamed(const QList<QAction*>& actions, const QString& text) {
    for (QAction* a : actions)
        if (a->text() == text) return a;
    return nullptr;
}

// Drags a rectangle over whole pixels a..b with the canvas's rectangle tool.
void dragPixels(ImageCanvas* canvas, QPoint a, QPoint b) {
    const ViewTransform v = canvas->view();
    QTest::mousePress(canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(QPointF(a)).toPoint());
    QTest::mouseMove(canvas, v.imageToWidget(QPointF(b)).toPoint());
    QTest::mouseRelease(canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(QPointF(b)).toPoint());
}

// The exclusion layer's shapes as whole-pixel rectangles (empty when there is no layer).
QVector<QRect> exclusionRects(const BrightestModule* m) {
    QVector<QRect> out;
    if (m->exclusionLayer())
        for (const OverlayShape& s : m->exclusionLayer()->shapes()) out.append(s.pixelRect());
    return out;
}

struct Window {
    MainWindow window{{false, false}};
    BrightestModule* brightest = nullptr;
    QAction* undo = nullptr;
    QAction* redo = nullptr;
    QUndoStack* stack = nullptr;
};

bool open(Window& w, Image image) {
    w.window.resize(1280, 800);
    w.window.show();
    if (!QTest::qWaitForWindowExposed(&w.window)) return false;
    w.window.context().setImage(std::move(image), QStringLiteral("first"));
    if (!QTest::qWaitFor([&] { return test::imageShown(w.window.context()); }, 30000)) return false;
    w.brightest = test::findModule<BrightestModule>(w.window);
    w.undo = w.window.findChild<QAction*>(QStringLiteral("UndoAction"));
    w.redo = w.window.findChild<QAction*>(QStringLiteral("RedoAction"));
    w.stack = w.window.context().undoStack();
    return w.brightest && w.undo && w.redo && w.stack;
}

// Two exclusion rectangles drawn with Brightest ▸ Exclude Rectangle.
void drawTwoRectangles(Window& w) {
    actionNamed(w.brightest->actions(), QStringLiteral("Brightest: Exclude Rectangle"))->trigger();
    dragPixels(w.window.canvas(), QPoint(5, 6), QPoint(14, 20));
    dragPixels(w.window.canvas(), QPoint(40, 30), QPoint(55, 44));
}

const QVector<QRect> kTwo{QRect(QPoint(5, 6), QPoint(14, 20)), QRect(QPoint(40, 30), QPoint(55, 44))};

} // namespace

class TestGuiDayUndo : public QObject {
    Q_OBJECT

private slots:
    void editMenuNamesWhatItUndoes() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(80, 60, 0, 100, test::Seed{1})));
        // Edit is the second menu, after File; Undo and Redo with the usual keys.
        const QList<QAction*> menus = w.window.menuBar()->actions();
        QVERIFY(menus.size() > 2);
        QCOMPARE(menus.at(0)->text().remove(QLatin1Char('&')), QStringLiteral("File"));
        QCOMPARE(menus.at(1)->text().remove(QLatin1Char('&')), QStringLiteral("Edit"));
        QMenu* edit = menus.at(1)->menu();
        QVERIFY(edit->actions().contains(w.undo) && edit->actions().contains(w.redo));
        QCOMPARE(w.undo->shortcut(), QKeySequence(QStringLiteral("Ctrl+Z")));
        QVERIFY(w.redo->shortcuts().contains(QKeySequence(QStringLiteral("Ctrl+Shift+Z"))));
        QVERIFY(w.redo->shortcuts().contains(QKeySequence(QStringLiteral("Ctrl+Y"))));
        // Nothing done yet: nothing to undo.
        QVERIFY(!w.undo->isEnabled());
        QVERIFY(!w.redo->isEnabled());

        drawTwoRectangles(w);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Add exclusion rectangle"));
        QVERIFY(w.undo->isEnabled());
        w.undo->trigger();
        QCOMPARE(w.redo->text(), QStringLiteral("Redo Add exclusion rectangle"));
        QCOMPARE(w.stack->index(), 1);
        // Clear ROI with no ROI changes nothing: no step.
        w.brightest->panel()->clearRoiButton()->click();
        QCOMPARE(w.stack->count(), 2);
    }

    void exclusionRectanglesUndoRedo() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(80, 60, 0, 100, test::Seed{2})));
        drawTwoRectangles(w);
        QCOMPARE(w.brightest->exclusionCount(), 2);
        QCOMPARE(exclusionRects(w.brightest), kTwo);

        // Ctrl+Z on the canvas: one rectangle goes (its overlay, its row of the list, the request's exclude).
        w.window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        w.window.canvas()->setFocus();
        QTest::keyClick(w.window.canvas(), Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.brightest->exclusionCount(), 1);
        QCOMPARE(exclusionRects(w.brightest), QVector<QRect>{kTwo[0]});
        QCOMPARE(w.brightest->panel()->exclusionList()->count(), 1);
        QCOMPARE(w.brightest->currentRequest(1)["exclude"].size(), std::size_t(1));

        // Ctrl+Shift+Z brings it back; Ctrl+Y after another undo too.
        QTest::keyClick(w.window.canvas(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(exclusionRects(w.brightest), kTwo);
        w.undo->trigger();
        QCOMPARE(w.brightest->exclusionCount(), 1);
        QTest::keyClick(w.window.canvas(), Qt::Key_Y, Qt::ControlModifier);
        QCOMPARE(exclusionRects(w.brightest), kTwo);
        QCOMPARE(w.brightest->panel()->exclusionList()->count(), 2);
        QCOMPARE(w.brightest->currentRequest(1)["exclude"].size(), std::size_t(2));

        // Both undone: no exclusion left; a new rectangle then drops the redo steps.
        w.undo->trigger();
        w.undo->trigger();
        QCOMPARE(w.brightest->exclusionCount(), 0);
        QVERIFY(!w.undo->isEnabled());
        dragPixels(w.window.canvas(), QPoint(20, 20), QPoint(25, 25));
        QCOMPARE(w.brightest->exclusionCount(), 1);
        QVERIFY(!w.redo->isEnabled());
    }

    void clearAllDeleteAndRoiUndo() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(80, 60, 0, 100, test::Seed{3})));
        drawTwoRectangles(w);
        BrightestPanel* panel = w.brightest->panel();

        // Clear All, then undo: both shapes back, in order.
        panel->clearExclusionsButton()->click();
        QCOMPARE(w.brightest->exclusionCount(), 0);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Clear all exclusions"));
        w.undo->trigger();
        QCOMPARE(exclusionRects(w.brightest), kTwo);
        QCOMPARE(panel->exclusionList()->count(), 2);
        w.redo->trigger();
        QCOMPARE(w.brightest->exclusionCount(), 0);
        w.undo->trigger();

        // Delete the first from the list; undo puts it back at its place.
        panel->exclusionList()->setCurrentRow(0);
        panel->deleteExclusionButton()->click();
        QCOMPARE(exclusionRects(w.brightest), QVector<QRect>{kTwo[1]});
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Delete exclusion 1"));
        w.undo->trigger();
        QCOMPARE(exclusionRects(w.brightest), kTwo);

        // The ROI: drawn, drawn again, cleared; each undone in turn.
        actionNamed(w.brightest->actions(), QStringLiteral("Brightest: Draw ROI"))->trigger();
        dragPixels(w.window.canvas(), QPoint(2, 2), QPoint(30, 30));
        const QRect first(QPoint(2, 2), QPoint(30, 30));
        QCOMPARE(w.brightest->roi(), std::optional<QRect>(first));
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Draw region of interest"));
        dragPixels(w.window.canvas(), QPoint(10, 10), QPoint(60, 50));
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Change region of interest"));
        panel->clearRoiButton()->click();
        QVERIFY(!w.brightest->roi());
        w.undo->trigger();
        QCOMPARE(w.brightest->roi(), std::optional<QRect>(QRect(QPoint(10, 10), QPoint(60, 50))));
        w.undo->trigger();
        QCOMPARE(w.brightest->roi(), std::optional<QRect>(first));
        QCOMPARE(w.brightest->roiLayer()->shapes().size(), qsizetype(1));
        QCOMPARE(w.brightest->roiLayer()->shape(0).pixelRect(), first);
        w.undo->trigger();
        QVERIFY(!w.brightest->roi());
        QVERIFY(!w.brightest->currentRequest(1).contains("roi"));
        QCOMPARE(exclusionRects(w.brightest), kTwo); // the exclusions were not touched
    }

    void mammogramAutoExclusionUndo() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(80, 60, 0, 100, test::Seed{9})));
        w.window.openFile(test::samplePath(QStringLiteral("synthetic-mammogram.png")));
        GLINT_WAIT_FOR_IMAGE(w.window);
        QTRY_VERIFY_WITH_TIMEOUT(!w.brightest->autoExclusionPending(), 60000);
        const int found = w.brightest->exclusionCount();
        QVERIFY(found > 0);
        // The shapes the auto-exclusion added are one step: undone, the panel's status line says so.
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Auto-exclusion (mammogram)"));
        const QString added = w.brightest->panel()->status();
        w.undo->trigger();
        QCOMPARE(w.brightest->exclusionCount(), 0);
        QVERIFY2(w.brightest->panel()->status().contains(QStringLiteral("undone")), qPrintable(w.brightest->panel()->status()));
        w.redo->trigger();
        QCOMPARE(w.brightest->exclusionCount(), found);
        QCOMPARE(w.brightest->panel()->status(), added);
    }

    void sourcesShapesUndo() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(80, 60, 0, 100, test::Seed{8})));
        auto* sources = test::findModule<SourcesModule>(w.window);
        QVERIFY(sources);
        actionNamed(sources->actions(), QStringLiteral("Sources: Draw ROI"))->trigger();
        dragPixels(w.window.canvas(), QPoint(1, 1), QPoint(70, 50));
        actionNamed(sources->actions(), QStringLiteral("Sources: Exclude Rectangle"))->trigger();
        dragPixels(w.window.canvas(), QPoint(5, 6), QPoint(14, 20));
        QCOMPARE(sources->exclusionCount(), 1);
        QVERIFY(sources->roi().has_value());

        // Clear ROI and Exclusions is one step: one undo brings back both.
        actionNamed(sources->actions(), QStringLiteral("Sources: Clear ROI and Exclusions"))->trigger();
        QCOMPARE(sources->exclusionCount(), 0);
        QVERIFY(!sources->roi());
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Clear ROI and exclusions"));
        w.undo->trigger();
        QCOMPARE(sources->exclusionCount(), 1);
        QCOMPARE(sources->roi(), std::optional<QRect>(QRect(QPoint(1, 1), QPoint(70, 50))));
        QCOMPARE(sources->exclusionLayer()->shape(0).pixelRect(), kTwo[0]);
        w.undo->trigger();
        QCOMPARE(sources->exclusionCount(), 0);
        QVERIFY(sources->roi().has_value());
        w.undo->trigger();
        QVERIFY(!sources->roi());
    }

    void regionStatisticsUndo() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(80, 60, 0, 100, test::Seed{10})));
        auto* stats = test::findModule<RegionStatisticsModule>(w.window);
        QVERIFY(stats);
        actionNamed(stats->actions(), QStringLiteral("Region Statistics: Draw Rectangle"))->trigger();
        dragPixels(w.window.canvas(), QPoint(3, 4), QPoint(20, 30));
        QTRY_COMPARE_WITH_TIMEOUT(stats->model() ? stats->model()->rowCount() : 0, 1, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.window.context().jobs()->isBusy(), 20000);
        dragPixels(w.window.canvas(), QPoint(40, 10), QPoint(60, 50));
        QTRY_COMPARE_WITH_TIMEOUT(stats->model()->rowCount(), 2, 20000);
        const QVariant mean2 = stats->model()->value(1, 8);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Measure rectangle #2"));

        // Undo: the second rectangle and its row go; the first stays. Redo: back with its values.
        w.undo->trigger();
        QCOMPARE(stats->model()->rowCount(), 1);
        QCOMPARE(stats->layer()->itemCount(), 1);
        QCOMPARE(stats->model()->value(0, 0).toInt(), 1);
        QCOMPARE(stats->layer()->shape(0).pixelRect(), QRect(QPoint(3, 4), QPoint(20, 30)));
        w.redo->trigger();
        QCOMPARE(stats->model()->rowCount(), 2);
        QCOMPARE(stats->layer()->itemCount(), 2);
        QCOMPARE(stats->model()->value(1, 0).toInt(), 2);
        QCOMPARE(stats->model()->value(1, 8), mean2);
        QCOMPARE(stats->layer()->shape(1).pixelRect(), QRect(QPoint(40, 10), QPoint(60, 50)));
        QCOMPARE(stats->model()->overlayItem(1), 1);
    }

    void traceCommitAndDeleteUndo() {
        using namespace glint::test::tracetool;
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 7);
        OPEN_TRACE_WINDOW(f, scene.image, roadSettings());
        TraceModule* m = f.module;
        QAction* undo = f.window.findChild<QAction*>(QStringLiteral("UndoAction"));
        QAction* redo = f.window.findChild<QAction*>(QStringLiteral("RedoAction"));
        QVERIFY(undo && redo);

        clickFrom(f.canvas, scene);
        const QPoint end = widgetAt(f.canvas, QPointF(scene.to.x, scene.to.y));
        QTest::mouseMove(f.canvas, end);
        WAIT_LIVE_AT(m, imageAt(f.canvas, end));
        QTest::mouseClick(f.canvas, Qt::LeftButton, Qt::NoModifier, end);
        QTRY_COMPARE_WITH_TIMEOUT(m->fixedLegCount(), 1, 20000);
        QTest::keyClick(f.canvas, Qt::Key_Return);
        QVERIFY(!m->isTracing());
        QCOMPARE(m->layer()->itemCount(), 1);
        const QPolygonF line = m->layer()->shape(0).points;
        QCOMPARE(undo->text(), QStringLiteral("Undo Trace #1"));

        // Undo: the overlay polyline, the results row and the exported trace go; redo: they come back as they were.
        undo->trigger();
        QCOMPARE(m->layer()->itemCount(), 0);
        QCOMPARE(m->model()->rowCount(), 0);
        QVERIFY(m->traces().empty());
        QVERIFY(m->exportableResults().isEmpty());
        redo->trigger();
        QCOMPARE(m->layer()->itemCount(), 1);
        QCOMPARE(m->layer()->shape(0).points, line);
        QCOMPARE(m->model()->rowCount(), 1);
        QCOMPARE(m->model()->value(0, 0).toInt(), 1);
        QCOMPARE(m->traces().size(), std::size_t(1));

        // Delete Selected Trace: nothing selected is a message; the selected one goes, and undo brings it back.
        QVERIFY(!m->deleteSelectedTrace());
        QVERIFY(!m->lastMessage().isEmpty());
        m->layer()->setSelected(0);
        m->deleteTraceAction()->trigger();
        QCOMPARE(m->layer()->itemCount(), 0);
        QCOMPARE(undo->text(), QStringLiteral("Undo Delete trace #1"));
        undo->trigger();
        QCOMPARE(m->layer()->itemCount(), 1);
        QCOMPARE(m->layer()->shape(0).points, line);
        QCOMPARE(m->model()->rowCount(), 1);
    }

    void parameterChangeUndo() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(80, 60, 0, 100, test::Seed{4})));
        w.window.parametersDock()->showPanel(w.brightest->name());
        BrightestPanel* panel = w.brightest->panel();
        QSpinBox* k = panel->kBox();
        const int k0 = k->value();
        QVERIFY(k0 != 17);
        const int before = w.stack->count();

        // Typing "17" in K is one step (two value changes merged), named after the field.
        w.window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        k->setFocus();
        k->selectAll();
        QTest::keyClicks(k, QStringLiteral("17"));
        QCOMPARE(k->value(), 17);
        QCOMPARE(w.stack->count(), before + 1);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Change Regions (K)"));
        QCOMPARE(panel->request()["k"].get<int>(), 17);

        // Another field is another step.
        QComboBox* mode = panel->modeBox();
        const int mode0 = mode->currentIndex();
        mode->setCurrentIndex(mode0 == 0 ? 1 : 0);
        QCOMPARE(w.stack->count(), before + 2);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Change Mode"));

        w.undo->trigger();
        QCOMPARE(mode->currentIndex(), mode0);
        QCOMPARE(k->value(), 17);
        w.undo->trigger();
        QCOMPARE(k->value(), k0);
        QCOMPARE(panel->request()["k"].get<int>(), k0);
        QVERIFY(!panel->form()->changedByUser("k")); // back to the image's default: the next image may set it
        w.redo->trigger();
        QCOMPARE(k->value(), 17);
        QVERIFY(panel->form()->changedByUser("k"));
        // Undo and redo set the fields without adding steps of their own.
        QCOMPARE(w.stack->count(), before + 2);

        // The panel's own Backend box (outside the form): a choice from the keyboard is a step too.
        QComboBox* backend = panel->backendBox();
        const int backend0 = backend->currentIndex();
        const Backend chosen0 = panel->backend();
        QVERIFY(backend->count() > 1);
        backend->setFocus();
        QTest::keyClick(backend, backend0 + 1 < backend->count() ? Qt::Key_Down : Qt::Key_Up);
        QVERIFY(backend->currentIndex() != backend0);
        const int backend1 = backend->currentIndex();
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Change Backend"));
        QVERIFY(panel->backend() != chosen0);
        w.undo->trigger();
        QCOMPARE(backend->currentIndex(), backend0);
        QCOMPARE(panel->backend(), chosen0);
        w.redo->trigger();
        QCOMPARE(backend->currentIndex(), backend1);
    }

    void traceShowGuidesUndo() {
        using namespace glint::test::tracetool;
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 9);
        OPEN_TRACE_WINDOW(f, scene.image, roadSettings());
        QAction* undo = f.window.findChild<QAction*>(QStringLiteral("UndoAction"));
        QCheckBox* guides = f.window.findChild<TracePanel*>()->showGuidesCheck();
        const bool shown = f.module->settings().showGuides;
        QCOMPARE(guides->isChecked(), shown);
        guides->click();
        QCOMPARE(f.module->settings().showGuides, !shown);
        QCOMPARE(undo->text(), QStringLiteral("Undo Change Show guides"));
        undo->trigger();
        QCOMPARE(guides->isChecked(), shown);
        QCOMPARE(f.module->settings().showGuides, shown);
    }

    void undoAfterAnotherImageIsSafe() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(80, 60, 0, 100, test::Seed{5})));
        drawTwoRectangles(w);
        QVERIFY(w.undo->isEnabled());

        // Another image: the old image's steps are gone (nothing of them applies to this one).
        w.window.context().setImage(test::randomIntImage(90, 70, 0, 100, test::Seed{6}), QStringLiteral("second"));
        GLINT_WAIT_FOR_IMAGE(w.window);
        QCOMPARE(w.stack->count(), 0);
        QVERIFY(!w.undo->isEnabled());
        QCOMPARE(w.undo->text(), QStringLiteral("Undo"));
        w.window.canvas()->setFocus();
        QTest::keyClick(w.window.canvas(), Qt::Key_Z, Qt::ControlModifier);
        w.stack->undo();
        QCOMPARE(w.brightest->exclusionCount(), 0);

        // A command kept past its image (on a stack of its own) refuses with a message and drops out.
        QUndoStack kept;
        int applied = 0;
        kept.push(new ImageEditCommand(w.window.context(), QStringLiteral("Add exclusion rectangle"), [&] { ++applied; },
                                       [&] { ++applied; }, true));
        QCOMPARE(kept.count(), 1);
        w.window.context().setImage(test::randomIntImage(50, 40, 0, 100, test::Seed{7}), QStringLiteral("third"));
        GLINT_WAIT_FOR_IMAGE(w.window);
        kept.undo();
        QCOMPARE(applied, 0);
        QCOMPARE(kept.count(), 0);
        QVERIFY2(w.window.statusBar()->currentMessage().contains(QStringLiteral("no longer open")),
                 qPrintable(w.window.statusBar()->currentMessage()));
    }
};

GLINT_GUI_TEST_MAIN(TestGuiDayUndo)
#include "test_gui_day_undo.moc"
