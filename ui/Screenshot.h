// `glint --screenshot OUT.png [IMAGE] [--size WxH]`: open the image in the main window, wait until it is
// loaded and drawn, grab the whole window (offscreen works) and write the PNG atomically. For tests and docs.
#pragma once

#include <QSize>
#include <QString>

namespace glint::ui {

class MainWindow;

struct ScreenshotRequest {
    QString output;      // the PNG to write
    QString image;       // empty: the default sample
    QSize size{1280, 800};
};

// Returns the process exit code: 0 when written; 3 when the image cannot be opened or the PNG cannot be
// written (one line on stderr, no file left behind).
int takeScreenshot(MainWindow& window, const ScreenshotRequest& request, int timeoutMs = 120000);

// "1280x800" → QSize; an invalid QSize for anything else (sides 64..16384).
QSize parseWindowSize(const QString& text);

} // namespace glint::ui
