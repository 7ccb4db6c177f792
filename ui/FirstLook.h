// The first look: glint started without a file (the README's `scripts/glint-dev run`) opens the bundled sample
// with its answer computed and drawn: the brightest regions with the preset of the image's kind (glint-cli's
// `--preset auto`), listed in the results dock, the Brightest region panel in front. The run is an ordinary
// job: on the worker thread, with progress, Cancel and Esc; the window is usable while it runs.
#pragma once

#include <QString>

namespace glint::ui {

class BrightestModule;
class MainWindow;

// Opens the sample; once it is shown, starts the K brightest regions with its kind's preset (the panel's K).
// Returns the module that runs it (its runFinished, runFailed or runCancelled tells the outcome), or null when
// the window has no Brightest module (the sample is still opened). Another file opened before the sample is
// shown wins: no run starts.
BrightestModule* openFirstLook(MainWindow& window, const QString& sample);

} // namespace glint::ui
