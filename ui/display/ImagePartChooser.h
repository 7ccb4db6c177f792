// Which part of a file the window shows: the HDU of a multi-extension FITS file (every HDU listed, those
// without an image too, so that the file's layout is seen), the plane of a FITS cube, the frame of a
// multi-frame DICOM file: the window's --hdu, --plane and --frame. Hidden for files of one image. A
// choice opens that part through AppContext::openPart(); one without an image leaves the current image
// with the loader's message, and the chooser goes back to the part on screen.
#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QSpinBox;

namespace glint::ui {

class AppContext;

class ImagePartChooser : public QWidget {
    Q_OBJECT
public:
    explicit ImagePartChooser(AppContext& context, QWidget* parent = nullptr);

    QComboBox* hduBox() const { return hdu_; }
    QSpinBox* planeBox() const { return plane_; } // the plane of a cube, or the frame of a DICOM file
    // True when the current image's file holds more than one image part (the chooser is shown).
    bool hasChoice() const { return choice_; }

private:
    void syncFromContext();
    void chooseHdu();
    void choosePlane();

    AppContext& context_;
    QLabel* hduLabel_;
    QComboBox* hdu_;
    QLabel* planeLabel_;
    QSpinBox* plane_;
    bool syncing_ = false;
    bool choice_ = false;
};

} // namespace glint::ui
