// Helpers of the Trace tool's window suites (test_gui_trace_editing, test_gui_trace_settings): the module,
// widget and image points of the canvas, a scene's centre line, a window on a scene with the tool picked.
#pragma once

#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "core/algo/trace/LineTrace.h"
#include "scenes/TraceScenes.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/modules/TraceModule.h"
#include "ui/modules/TraceTool.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

namespace glint::test::tracetool {

using namespace glint;
using namespace glint::ui;

inline TraceModule* findTraceModule(MainWindow& window) { return test::findModule<TraceModule>(window); }

inline QPoint widgetAt(const ImageCanvas* canvas, QPointF image) { return canvas->view().imageToWidget(image).toPoint(); }
// Where a click at a widget pixel lands in the image: what the trace must start or end at.
inline QPointF imageAt(const ImageCanvas* canvas, QPoint widget) { return canvas->view().widgetToImage(QPointF(widget)); }

// The centre-line point of a scene at column x (the centre polyline is sampled every half pixel).
inline QPointF centreAt(const TraceScene& scene, double x) {
    const auto it = std::min_element(scene.centre.begin(), scene.centre.end(),
                                     [x](TracePoint a, TracePoint b) { return std::fabs(a.x - x) < std::fabs(b.x - x); });
    return {it->x, it->y};
}

// A window showing `image`, the Trace tool picked from the Analyze menu with `settings`.
struct Fixture {
    MainWindow window{{false, false}};
    TraceModule* module = nullptr;
    ImageCanvas* canvas = nullptr;
};
inline bool open(Fixture& f, Image image, const TraceSettings& settings) {
    f.window.resize(1280, 800);
    f.window.show();
    if (!QTest::qWaitForWindowExposed(&f.window)) return false;
    f.window.context().setImage(std::move(image), QStringLiteral("scene"));
    if (!QTest::qWaitFor([&] { return test::imageShown(f.window.context()); }, 30000)) return false;
    f.module = findTraceModule(f.window);
    f.canvas = f.window.canvas();
    if (!f.module) return false;
    f.module->setSettings(settings);
    f.module->actions().first()->trigger();
    return f.canvas->tool() == f.module->tool();
}

// Clicks the scene's start point on the canvas (a trace's first click): where, in widget pixels.
inline QPoint clickFrom(ImageCanvas* canvas, const TraceScene& scene) {
    const QPoint w = widgetAt(canvas, QPointF(scene.from.x, scene.from.y));
    QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w);
    return w;
}

inline TraceSettings roadSettings() {
    TraceSettings s;
    s.field.score = TraceScore::Ridge;
    s.field.lineWidth = 5.0;
    s.backend = Backend::Cpu; // compared exactly with test_gui_trace_editing's directTrace()
    s.snap = false;           // the traces end exactly at the cursor
    s.autoWidth = false;      // the field of width 5, as directTrace() computes it
    return s;
}

} // namespace glint::test::tracetool

#define WAIT_LIVE_AT(module, point)                                                                                    \
    QTRY_VERIFY_WITH_TIMEOUT(!(module)->livePolyline().isEmpty() && (module)->livePolyline().last() == (point), 20000)
#define WAIT_IDLE(module) QTRY_VERIFY_WITH_TIMEOUT(!(module)->runner()->isBusy() && !(module)->isFixing(), 20000)
// In a test function: `f`, a Fixture whose window shows `image` with the Trace tool picked (open), or the
// test fails.
#define OPEN_TRACE_WINDOW(f, image, settings)                                                                          \
    ::glint::test::tracetool::Fixture f;                                                                               \
    QVERIFY(::glint::test::tracetool::open(f, image, settings))
