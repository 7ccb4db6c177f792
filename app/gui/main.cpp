// glint: the desktop program.
#include "Backends.h"
#include "MainWindow.h"

#include <QApplication>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Glint"));
    QApplication::setOrganizationName(QStringLiteral("Glint"));
    glint::initBackends();
    glint::ui::MainWindow window;
    window.show();
    return QApplication::exec();
}
