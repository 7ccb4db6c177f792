// The first window fits its screen: the window with its frame (title bar, borders) inside the screen's
// available area, so that the status bar (progress, Cancel, the readout, every message) is never below
// the screen's edge at 1280 × 800 or smaller.
#pragma once

#include <QMargins>
#include <QRect>
#include <QSize>

class QWidget;

namespace glint::ui {

// Where a window whose client area wants `wanted` goes on a screen of `available` area when the window
// manager adds `frame` around it: the client geometry, no larger than wanted, at least `minimum`, and (as far
// as the minimum allows) with its frame inside `available`; a window that fits as it is keeps its place.
QRect fittedGeometry(const QRect& current, QSize wanted, const QMargins& frame, const QRect& available, QSize minimum = {});

// Resizes and moves a top-level window to fittedGeometry() on its screen, now (with the frame estimated
// while the window manager has not framed it yet) and again once the real frame is known (the first
// moves and resizes after it is shown). `wanted`: the client size to come back to when the frame is
// smaller than estimated (default the window's size now).
void keepOnScreen(QWidget& window, QSize wanted = {});

} // namespace glint::ui
