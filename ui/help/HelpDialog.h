// Help inside the program: the user guide (each tool, its parameters, the shortcuts, what the numbers
// mean; resources/help/guide.html) and the list of keyboard shortcuts, read from the window's own actions
// so that it always matches the menus.
#pragma once

#include <QDialog>
#include <QString>
#include <QVector>

class QLineEdit;
class QTableWidget;
class QTextBrowser;

namespace glint::ui {

// The guide's HTML (from the program's resources); empty when the resources are missing.
QString userGuideHtml();

// One shortcut as the list shows it.
struct ShortcutEntry {
    QString keys;   // "Ctrl+B", "Wheel"
    QString action; // "Analyze ▸ Brightest Region"
};
// Every shortcut of the window's menus (menu ▸ entry, in the platform's notation), then the image view's
// own keys and mouse gestures.
QVector<ShortcutEntry> shortcutEntries(const QWidget* window);

// The user guide in a browser, with a search field that finds text in it (Enter: the next match).
class HelpDialog : public QDialog {
    Q_OBJECT
public:
    explicit HelpDialog(QWidget* parent = nullptr);
    QTextBrowser* browser() const { return browser_; }
    QLineEdit* searchField() const { return search_; }
    // Scrolls to a section of the guide ("brightest", "display", "tools", "keys", …).
    void showSection(const QString& anchor);
    // Finds the next occurrence of the text (wrapping round); false when there is none.
    bool find(const QString& text);

private:
    QTextBrowser* browser_;
    QLineEdit* search_;
};

// The shortcuts in a filterable table.
class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    explicit ShortcutsDialog(const QVector<ShortcutEntry>& entries, QWidget* parent = nullptr);
    QTableWidget* table() const { return table_; }
    QLineEdit* filter() const { return filter_; }

private:
    QTableWidget* table_;
    QLineEdit* filter_;
};

} // namespace glint::ui
