#include "MainWindow.h"

#include "jobs/Backend.h"

#include <QStatusBar>

namespace glint::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("Glint"));
    statusBar()->showMessage(QString::fromStdString(backendStatusText()));
    resize(1200, 800);
}

} // namespace glint::ui
