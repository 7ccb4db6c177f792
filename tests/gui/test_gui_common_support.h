// Helpers of the common component's window suites (test_gui_common_views, test_gui_common_results): running the
// search until its result is shown, and whether a pixel of A is in the component.
#pragma once

#include "tests/gui/GuiTestSupport.h"

#include "core/algo/commoncomponent/CommonComponent.h"
#include "ui/modules/CommonComponentModule.h"

#include <QSignalSpy>
#include <QtTest>

namespace glint::test::common {

// Runs the search and waits (up to timeoutMs) until its result is shown, once.
inline bool runAndWaitShown(ui::CommonComponentModule* module, int timeoutMs) {
    QSignalSpy shown(module, &ui::CommonComponentModule::resultShown);
    if (!module->run()) return false;
    return QTest::qWaitFor([&] { return !shown.isEmpty(); }, timeoutMs) && shown.count() == 1;
}

// The component in A's frame, as the test expects it to be tinted.
inline bool inComponent(const CommonComponentResult& r, int x, int y) {
    return x >= 0 && y >= 0 && x < r.maskWidth && y < r.maskHeight && r.mask[static_cast<std::size_t>(y) * r.maskWidth + x];
}

} // namespace glint::test::common
