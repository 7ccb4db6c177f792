// Where the bundled samples are: beside the program (installed or in the build tree) or in the source
// tree this program was built from. The window opens one of them when started without a file.
#pragma once

#include <QString>
#include <QStringList>

namespace glint::ui {

// The first folder holding the samples, or an empty string when none is found.
QString samplesDirectory();
// Full paths of the sample images (licence and readme files left out), sorted by name.
QStringList bundledSamples();
// The sample opened when glint starts without a file: the synthetic mammogram (it needs no optional
// loader and shows the kind of image Glint is for). Empty when not found.
QString defaultSample();

} // namespace glint::ui
