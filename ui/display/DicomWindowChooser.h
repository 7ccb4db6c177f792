// The DICOM image's VOI choices (core/io/DicomVoi.h) in one list: its VOI LUTs, every Window Center/Width
// pair of the header (the first is the default) and, for CT, the presets lung, mediastinum, bone and
// brain (level/width in HU). Choosing one shows the image through it (display limits "DICOM window").
// Hidden for images without choices. The header's notes (attributes left out) are its tooltip.
#pragma once

#include <QWidget>

class QComboBox;

namespace glint::ui {

class AppContext;

class DicomWindowChooser : public QWidget {
    Q_OBJECT
public:
    explicit DicomWindowChooser(AppContext& context, QWidget* parent = nullptr);
    QComboBox* box() const { return box_; }

private:
    void syncFromContext();
    void choose(int index);

    AppContext& context_;
    QComboBox* box_;
    bool syncing_ = false;
};

} // namespace glint::ui
