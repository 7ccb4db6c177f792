// The Common component page of the parameters dock: image B (open button, or drop a file on the page), the common
// spec's form (tolerance, optional maximum shift, B's normalisation), backend, the Find button, the view (side by
// side or blended, with B's opacity), a one-line summary of the last result and B's value under the cursor.
#pragma once

#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/jobs/Backend.h"

#include <QWidget>

class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QSpinBox;
class QToolButton;

namespace glint::ui {

class SpecForm;

struct CommonComponentActions {
    QAction* openSecond = nullptr;
    QAction* find = nullptr;
    QAction* sideBySide = nullptr; // checkable, exclusive with blend
    QAction* blend = nullptr;
};

class CommonComponentPanel : public QWidget {
    Q_OBJECT
public:
    // The buttons mirror the module's actions (enabled and checked states included).
    explicit CommonComponentPanel(const CommonComponentActions& actions, QWidget* parent = nullptr);

    // The common spec's form (tolerance, max shift, B's normalisation: core/algo/commoncomponent/CommonSpec.h).
    SpecForm* form() const { return form_; }
    glint::CommonComponentParams parameters() const;
    void setParameters(const glint::CommonComponentParams& params);
    glint::Backend backend() const;
    double opacity() const;     // of B when blended, 0..1

    void setSecondImageText(const QString& text);
    // The last result (or why there is none); error = shown in red.
    void setSummary(const QString& text, bool error = false);
    void setCursorText(const QString& text);

    QDoubleSpinBox* toleranceBox() const;
    QCheckBox* maxShiftCheck() const;
    QSpinBox* maxShiftBox() const;
    QComboBox* backendBox() const { return backend_; }
    QComboBox* normalizeBox() const;
    QSlider* opacitySlider() const { return opacity_; }
    QLabel* secondImageLabel() const { return secondImage_; }
    QLabel* summaryLabel() const { return summary_; }
    QLabel* cursorLabel() const { return cursor_; }

signals:
    void fileDropped(const QString& path);
    void opacityChanged(double opacity);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    QLabel* secondImage_;
    SpecForm* form_;
    QComboBox* backend_;
    QSlider* opacity_;
    QLabel* summary_;
    QLabel* cursor_;
};

} // namespace glint::ui
