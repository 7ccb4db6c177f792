// Helpers of the usability suites (test_gui_usability_canvas, test_gui_usability_window,
// test_gui_usability_histogram): the window at 1280 × 800 with a bundled sample open.
#pragma once

#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include <QtTest>

namespace glint::test::usability {

// Shows the window at 1280 × 800 and opens the bundled sample `name` in it; false when the window was not
// exposed or the image not drawn in time.
inline bool showWithSample(ui::MainWindow& window, const QString& name) {
    if (!test::showExposed(window, QSize(1280, 800))) return false;
    window.openFile(test::samplePath(name));
    return QTest::qWaitFor([&] { return test::imageShown(window.context()); }, 30000);
}

} // namespace glint::test::usability
