// Where the analysis modules' parameter panels live: one page per module, chosen in a combo box (or
// brought forward by the module's Analyze-menu action).
#pragma once

#include <QDockWidget>

class QComboBox;
class QStackedWidget;

namespace glint::ui {

class ParametersDock : public QDockWidget {
    Q_OBJECT
public:
    explicit ParametersDock(QWidget* parent = nullptr);

    void addPanel(const QString& title, QWidget* panel); // takes ownership
    void showPanel(const QString& title);
    int panelCount() const;
    QString currentTitle() const;

private:
    QComboBox* chooser_;
    QStackedWidget* pages_;
};

} // namespace glint::ui
