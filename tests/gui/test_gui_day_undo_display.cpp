// Issue 34, undo beyond the canvas edits: the display dock's changes (scale, limits mode, colour map, low/high typed
// into their boxes, a drag of the limits on the histogram) are each one step of Edit ▸ Undo (a drag or a run of
// typing merges into one), the blend's B opacity slider (a drag is one step, key presses in a row are one), and the
// pivot sweep's text (each finished edit), and the Layers dock's Remove of any layer: results layers are kept hidden
// while the step is on the stack; input layers (exclusions, ROI, traces) go through their module's undoable clear.
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "ui/display/DisplayPipeline.h"
#include "ui/display/HistogramWidget.h"
#include "ui/docks/DisplayDock.h"
#include "ui/docks/LayerDock.h"
#include "ui/modules/BrightestLayers.h"
#include "ui/modules/BrightestModule.h"
#include "ui/modules/BrightestPanel.h"
#include "ui/modules/CommonComponentLayers.h"
#include "ui/modules/CommonComponentModule.h"
#include "ui/modules/CommonComponentPanel.h"
#include "ui/overlay/LayerStack.h"
#include "ui/results/ResultsModel.h"
#include "ui/overlay/ShapeLayer.h"
#include "ui/undo/UndoCommands.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QUndoStack>

using namespace glint;
using namespace glint::ui;

namespace {

struct Window {
    MainWindow window{{false, false}};
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
    w.undo = w.window.findChild<QAction*>(QStringLiteral("UndoAction"));
    w.redo = w.window.findChild<QAction*>(QStringLiteral("RedoAction"));
    w.stack = w.window.context().undoStack();
    return w.undo && w.redo && w.stack;
}

int indexOfData(const QComboBox* box, int value) {
    for (int i = 0; i < box->count(); ++i)
        if (box->itemData(i).toInt() == value) return i;
    return -1;
}

} // namespace

class TestGuiDayUndoDisplay : public QObject {
    Q_OBJECT

private slots:
    void displayChangesUndo() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(120, 90, 0, 1000, test::Seed{8})));
        AppContext& ctx = w.window.context();
        DisplayDock* dock = w.window.displayDock();
        QVERIFY(dock);
        const DisplaySettings s0 = ctx.displaySettings();
        const int start = w.stack->count();

        // Scale: one step, named; undo sets the settings and the box back, redo again; no steps of their own.
        const int asinh = indexOfData(dock->scaleBox(), static_cast<int>(DisplayScale::Asinh));
        QVERIFY(asinh >= 0 && s0.scale != DisplayScale::Asinh);
        dock->scaleBox()->setCurrentIndex(asinh);
        QCOMPARE(ctx.displaySettings().scale, DisplayScale::Asinh);
        QCOMPARE(w.stack->count(), start + 1);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Change Scale"));
        w.undo->trigger();
        QCOMPARE(ctx.displaySettings().scale, s0.scale);
        QCOMPARE(dock->scaleBox()->currentData().toInt(), static_cast<int>(s0.scale));
        w.redo->trigger();
        QCOMPARE(ctx.displaySettings().scale, DisplayScale::Asinh);
        QCOMPARE(dock->scaleBox()->currentIndex(), asinh);
        QCOMPARE(w.stack->count(), start + 1);

        // Colour map and limits mode: a step each.
        const int heat = indexOfData(dock->colormapBox(), static_cast<int>(Colormap::Heat));
        QVERIFY(heat >= 0);
        dock->colormapBox()->setCurrentIndex(heat);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Change Colour Map"));
        const int zscale = indexOfData(dock->limitsBox(), static_cast<int>(LimitsMode::ZScale));
        QVERIFY(zscale >= 0 && s0.limits != LimitsMode::ZScale);
        dock->limitsBox()->setCurrentIndex(zscale);
        QCOMPARE(w.stack->count(), start + 3);
        QCOMPARE(ctx.displaySettings().limits, LimitsMode::ZScale);
        w.undo->trigger();
        QCOMPARE(ctx.displaySettings().limits, s0.limits);
        QCOMPARE(ctx.displaySettings().colormap, Colormap::Heat);
        w.undo->trigger();
        QCOMPARE(ctx.displaySettings().colormap, s0.colormap);
        w.redo->trigger();
        w.redo->trigger();
        QCOMPARE(ctx.displaySettings().limits, LimitsMode::ZScale);
        QCOMPARE(w.stack->count(), start + 3);

        // Low typed in its box: several value changes in a row are one step (manual limits from zscale's).
        const DisplaySettings beforeTyping = ctx.displaySettings();
        QVERIFY(QTest::qWaitFor([&] { return ctx.frame() && ctx.frame()->settings.limits == LimitsMode::ZScale; }, 20000));
        const double high = dock->highBox()->value();
        QVERIFY(high > 10.0);
        dock->lowBox()->setValue(1.0);
        dock->lowBox()->setValue(2.0);
        dock->lowBox()->setValue(3.0);
        QCOMPARE(ctx.displaySettings().limits, LimitsMode::Manual);
        QCOMPARE(ctx.displaySettings().low, 3.0);
        QCOMPARE(w.stack->count(), start + 4);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Change Limits"));
        w.undo->trigger();
        QCOMPARE(ctx.displaySettings().limits, LimitsMode::ZScale);
        QVERIFY(sameDisplay(ctx.displaySettings(), beforeTyping));
        w.redo->trigger();
        QCOMPARE(ctx.displaySettings().low, 3.0);

        // A drag of the limits on the histogram: every move of one drag is one step; the next drag another.
        HistogramWidget* histogram = dock->histogram();
        emit histogram->limitsDragged(5.0, 500.0);
        emit histogram->limitsDragged(6.0, 480.0);
        emit histogram->limitsDragged(7.0, 460.0);
        emit histogram->limitsDragFinished(ctx.displaySettings().low, ctx.displaySettings().high);
        QCOMPARE(w.stack->count(), start + 5);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Drag Limits"));
        QCOMPARE(ctx.displaySettings().high, 460.0);
        emit histogram->limitsDragged(8.0, 400.0);
        emit histogram->limitsDragFinished(ctx.displaySettings().low, ctx.displaySettings().high);
        QCOMPARE(w.stack->count(), start + 6);
        w.undo->trigger();
        QCOMPARE(ctx.displaySettings().low, 7.0);
        QCOMPARE(ctx.displaySettings().high, 460.0);
        w.undo->trigger();
        QCOMPARE(ctx.displaySettings().low, 3.0);
        QCOMPARE(dock->lowBox()->value(), 3.0);
        // Dragged out and back to where it started: no step at all.
        const int before = w.stack->index();
        const double highNow = ctx.displaySettings().high;
        emit histogram->limitsDragged(50.0, 300.0);
        emit histogram->limitsDragged(3.0, highNow);
        emit histogram->limitsDragFinished(ctx.displaySettings().low, ctx.displaySettings().high);
        QCOMPARE(w.stack->index(), before);

        // The whole way back: the image's own first settings.
        while (w.stack->canUndo()) w.undo->trigger();
        QVERIFY(sameDisplay(ctx.displaySettings(), s0));
    }

    void blendSliderUndo() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(60, 40, 0, 255, test::Seed{2})));
        auto* module = test::findModule<CommonComponentModule>(w.window);
        QVERIFY(module && module->panel());
        QSlider* slider = module->panel()->opacitySlider();
        slider->setEnabled(true);
        const int start = w.stack->count();
        QCOMPARE(slider->value(), 50);

        // A drag: pressed at 50, moved, let go at 80: one step.
        slider->setSliderDown(true);
        slider->setSliderPosition(60);
        slider->setSliderPosition(80);
        slider->setSliderDown(false);
        QCOMPARE(slider->value(), 80);
        QCOMPARE(module->blendOpacity(), 0.8);
        QCOMPARE(w.stack->count(), start + 1);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Change B Opacity"));

        // Key presses in a row: one step.
        slider->triggerAction(QAbstractSlider::SliderSingleStepSub);
        slider->triggerAction(QAbstractSlider::SliderSingleStepSub);
        slider->triggerAction(QAbstractSlider::SliderPageStepSub);
        const int keyed = slider->value();
        QVERIFY(keyed < 78);
        QCOMPARE(w.stack->count(), start + 2);

        w.undo->trigger();
        QCOMPARE(slider->value(), 80);
        w.undo->trigger();
        QCOMPARE(slider->value(), 50);
        QCOMPARE(module->blendOpacity(), 0.5);
        w.redo->trigger();
        QCOMPARE(module->blendOpacity(), 0.8);
        w.redo->trigger();
        QCOMPARE(slider->value(), keyed);
        QCOMPARE(w.stack->count(), start + 2);
        // Set by the program (a session): no step.
        module->setBlendOpacity(0.3);
        QCOMPARE(w.stack->count(), start + 2);
    }

    // The Layers dock's Remove of a results layer is a step: undo puts it back where it was; a layer a module reads
    // its input from is deleted at once (no step); another image drops the removed layer for good.
    void layerRemovalUndo() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(60, 40, 0, 255, test::Seed{5})));
        LayerStack* layers = w.window.context().layers();
        QPointer<BrightestRegionLayer> regions = new BrightestRegionLayer(QStringLiteral("regions"), QColor(255, 176, 0));
        regions->setRegions({{1, QRect(3, 4, 5, 6), QStringLiteral("#1")}, {2, QRect(20, 10, 4, 4), QStringLiteral("#2")}});
        layers->add(regions);
        QPointer<ShapeLayer> shapes = new ShapeLayer(QStringLiteral("shapes"), QColor(0, 200, 0));
        layers->add(shapes);
        const int index = layers->indexOf(regions);
        QVERIFY(index >= 0);
        LayerDock* dock = w.window.layerDock();
        QPushButton* remove = nullptr;
        for (QPushButton* b : dock->findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Remove")) remove = b;
        QVERIFY(remove);
        const auto select = [&](const QString& name) {
            for (int row = 0; row < dock->list()->count(); ++row)
                if (dock->list()->item(row)->text() == name) dock->list()->setCurrentRow(row);
        };
        const int start = w.stack->count();

        select(QStringLiteral("regions"));
        remove->click();
        QVERIFY(regions); // kept for its undo
        QCOMPARE(layers->indexOf(regions), -1);
        QCOMPARE(w.stack->count(), start + 1);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Remove Layer “regions”"));
        w.undo->trigger();
        QCOMPARE(layers->indexOf(regions), index);
        QVERIFY(regions->isVisible());
        QCOMPARE(regions->itemCount(), 2);
        w.redo->trigger();
        QCOMPARE(layers->indexOf(regions), -1);
        w.undo->trigger();
        QCOMPARE(layers->indexOf(regions), index);

        select(QStringLiteral("shapes"));
        remove->click();
        QVERIFY(!shapes); // deleted, as before: no step
        QCOMPARE(w.stack->count(), start + 1);

        // Removed, then another image: the step leaves the stack and the layer goes with it.
        w.redo->trigger();
        QVERIFY(regions && layers->indexOf(regions) < 0);
        w.window.context().setImage(test::randomIntImage(30, 30, 0, 9, test::Seed{6}), QStringLiteral("second"));
        QTRY_VERIFY(!regions);
        QVERIFY(!w.stack->canUndo());
    }

    // Layers a module reads its input from: Remove is the module's own undoable clear and the layer's removal, one
    // step; undo gives back the layer (same place, visibility) and exactly its shapes, and the module uses them.
    void inputLayerRemovalUndo() {
        Window w;
        std::vector<std::int32_t> samples(60 * 40);
        for (int y = 0; y < 40; ++y)
            for (int x = 0; x < 60; ++x) samples[static_cast<std::size_t>(y * 60 + x)] = (x * 7 + y * 3) % 10;
        for (int y = 10; y < 15; ++y)
            for (int x = 10; x < 15; ++x) samples[static_cast<std::size_t>(y * 60 + x)] = 1000; // the brightest block
        QVERIFY(open(w, test::intImage(60, 40, samples)));
        auto* module = test::findModule<BrightestModule>(w.window);
        QVERIFY(module);
        LayerStack* layers = w.window.context().layers();
        LayerDock* dock = w.window.layerDock();
        QPushButton* remove = nullptr;
        for (QPushButton* b : dock->findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Remove")) remove = b;
        QVERIFY(remove);
        const auto removeLayer = [&](OverlayLayer* layer) {
            for (int row = 0; row < dock->list()->count(); ++row)
                if (dock->list()->item(row)->text() == layer->name()) dock->list()->setCurrentRow(row);
            remove->click();
        };

        const QRect excluded(8, 8, 9, 9);
        module->addExclusionRectangle(excluded);
        module->addExclusionPolygon(QPolygonF({QPointF(40, 5), QPointF(50, 5), QPointF(45, 15)}));
        module->setRoi(QRect(2, 2, 50, 30));
        QPointer<BrightestExclusionLayer> exclusions = module->exclusionLayer();
        QPointer<ShapeLayer> roi = module->roiLayer();
        QVERIFY(exclusions && roi);
        QCOMPARE(exclusions->itemCount(), 2);
        exclusions->setVisible(false); // hidden before its removal: hidden after its undo
        const int index = layers->indexOf(exclusions);
        const QRectF polygonBounds = exclusions->itemBounds(1);
        const int start = w.stack->count();

        removeLayer(exclusions);
        QVERIFY(exclusions);
        QCOMPARE(layers->indexOf(exclusions), -1);
        QCOMPARE(module->exclusionCount(), 0);
        QCOMPARE(w.stack->count(), start + 1);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Remove Layer “Brightest: exclusions”"));
        w.undo->trigger();
        QCOMPARE(layers->indexOf(exclusions), index);
        QCOMPARE(module->exclusionCount(), 2);
        QCOMPARE(exclusions->itemCount(), 2);
        QCOMPARE(exclusions->itemBounds(1), polygonBounds);
        QVERIFY(!exclusions->isVisible());
        w.redo->trigger();
        QCOMPARE(layers->indexOf(exclusions), -1);
        QCOMPARE(module->exclusionCount(), 0);
        w.undo->trigger();
        QCOMPARE(module->exclusionCount(), 2);
        exclusions->setVisible(true);

        // The ROI layer: undo gives the same rectangle.
        removeLayer(roi);
        QVERIFY(roi && layers->indexOf(roi) < 0 && !module->roi());
        w.undo->trigger();
        QVERIFY(layers->indexOf(roi) >= 0);
        QCOMPARE(module->roi().value_or(QRect()), QRect(2, 2, 50, 30));

        // A run after the undo honours the restored exclusions: the bright block is not found.
        QSignalSpy finished(module, &BrightestModule::runFinished);
        QVERIFY(module->run(1));
        QVERIFY(finished.wait(30000));
        QVERIFY(!module->lastResults().empty() && !module->lastResults().front().regions.empty());
        for (const BrightestRegion& r : module->lastResults().front().regions)
            QVERIFY(!QRect(r.x, r.y, r.width, r.height).intersects(QRect(10, 10, 5, 5)));

        // Removed, then a new shape drawn: the layer comes back on top, shown, with the new shape only; undoing
        // the shape and then the removal gives back the two shapes.
        removeLayer(exclusions);
        QCOMPARE(layers->indexOf(exclusions), -1);
        module->addExclusionRectangle(QRect(30, 20, 4, 4));
        QVERIFY(module->exclusionLayer() == exclusions.data());
        QCOMPARE(layers->indexOf(exclusions), static_cast<int>(layers->layers().size()) - 1);
        QCOMPARE(exclusions->itemCount(), 1);
        w.undo->trigger();
        w.undo->trigger();
        QCOMPARE(module->exclusionCount(), 2);
        QVERIFY(layers->indexOf(exclusions) >= 0);
    }

    // Layers that only show results beyond the brightest regions: a sweep's legend and the common components.
    // Remove hides them while the step is on the stack; undo shows them again.
    void resultLayerRemovalUndo() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(60, 40, 0, 255, test::Seed{8})));
        LayerStack* layers = w.window.context().layers();
        QPointer<OverlayLayer> legend = new BrightestSweepLayer(QStringLiteral("legend"));
        QPointer<OverlayLayer> component = new ComponentLayer(QStringLiteral("component"), QColor(0, 255, 0));
        QPointer<OverlayLayer> second = new SecondImageLayer(QStringLiteral("B"), QColor(0, 0, 255));
        for (OverlayLayer* l : {legend.data(), component.data(), second.data()}) layers->add(l);
        LayerDock* dock = w.window.layerDock();
        QPushButton* remove = nullptr;
        for (QPushButton* b : dock->findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Remove")) remove = b;
        QVERIFY(remove);
        for (const QPointer<OverlayLayer>& layer : {legend, component, second}) {
            const int index = layers->indexOf(layer);
            for (int row = 0; row < dock->list()->count(); ++row)
                if (dock->list()->item(row)->text() == layer->name()) dock->list()->setCurrentRow(row);
            // The index, not the count: the previous layer's step was undone, and this push drops it.
            const int start = w.stack->index();
            remove->click();
            QVERIFY(layer);
            QCOMPARE(layers->indexOf(layer), -1);
            QVERIFY(!layer->isVisible());
            QCOMPARE(w.stack->index(), start + 1);
            QCOMPARE(w.stack->count(), start + 1);
            w.undo->trigger();
            QCOMPARE(layers->indexOf(layer), index);
            QVERIFY(layer->isVisible());
            w.redo->trigger();
            QCOMPARE(layers->indexOf(layer), -1);
            w.undo->trigger();
        }
    }

    void sweepTextUndo() {
        Window w;
        QVERIFY(open(w, test::randomIntImage(60, 40, 0, 255, test::Seed{3})));
        auto* module = test::findModule<BrightestModule>(w.window);
        QVERIFY(module && module->panel());
        QLineEdit* sweep = module->panel()->sweepEdit();
        const QString text0 = sweep->text();
        const int start = w.stack->count();
        w.window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        sweep->setFocus();
        sweep->end(false);
        QTest::keyClicks(sweep, QStringLiteral(", p50"));
        QCOMPARE(w.stack->count(), start); // not yet: the edit is not finished
        emit sweep->editingFinished();
        QCOMPARE(w.stack->count(), start + 1);
        QCOMPARE(w.undo->text(), QStringLiteral("Undo Edit Sweep"));
        QCOMPARE(sweep->text(), text0 + QStringLiteral(", p50"));
        w.undo->trigger();
        QCOMPARE(sweep->text(), text0);
        w.redo->trigger();
        QCOMPARE(sweep->text(), text0 + QStringLiteral(", p50"));
        // Finishing without a change, or a text set by the program: no step.
        emit sweep->editingFinished();
        sweep->setText(QStringLiteral("mean"));
        QCOMPARE(w.stack->count(), start + 1);
    }
};

GLINT_GUI_TEST_MAIN(TestGuiDayUndoDisplay)
#include "test_gui_day_undo_display.moc"
