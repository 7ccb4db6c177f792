// The main window of Glint.
#pragma once

#include <QMainWindow>

namespace glint::ui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
};

} // namespace glint::ui
