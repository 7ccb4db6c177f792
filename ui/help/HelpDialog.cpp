#include "ui/help/HelpDialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMainWindow>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QVBoxLayout>

// The resources live in the static glint_ui library: registered here too, so that help works in tests and
// in programs other than glint (Q_INIT_RESOURCE must be called outside any namespace).
static void initGlintResources() {
    static const bool done = [] {
        Q_INIT_RESOURCE(glint);
        return true;
    }();
    (void)done;
}

namespace glint::ui {

QString userGuideHtml() {
    initGlintResources();
    QFile file(QStringLiteral(":/help/guide.html"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll());
}

namespace {
QString plainMenuText(QString text) {
    // "&Open…   (F)" → "Open…": no mnemonic, no hint in brackets after wide spaces.
    const qsizetype hint = text.indexOf(QLatin1String("   "));
    if (hint >= 0) text.truncate(hint);
    text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
    return text.trimmed();
}

void collect(const QMenu* menu, const QString& path, QVector<ShortcutEntry>& out) {
    for (const QAction* action : menu->actions()) {
        if (action->isSeparator()) continue;
        const QString name = path + QStringLiteral(" ▸ ") + plainMenuText(action->text());
        if (action->menu()) {
            collect(action->menu(), name, out);
            continue;
        }
        QStringList keys;
        for (const QKeySequence& k : action->shortcuts()) keys << k.toString(QKeySequence::NativeText);
        if (!keys.isEmpty()) out.append({keys.join(QStringLiteral(", ")), name});
    }
}
} // namespace

QVector<ShortcutEntry> shortcutEntries(const QWidget* window) {
    QVector<ShortcutEntry> out;
    if (const auto* main = qobject_cast<const QMainWindow*>(window)) {
        for (const QAction* top : main->menuBar()->actions())
            if (top->menu()) collect(top->menu(), plainMenuText(top->text()), out);
    }
    const QString view = QObject::tr("Image view");
    const QVector<ShortcutEntry> canvas = {
        {QObject::tr("Wheel"), view + QObject::tr(" ▸ zoom around the cursor")},
        {QObject::tr("+, −"), view + QObject::tr(" ▸ zoom in, out")},
        {QObject::tr("F"), view + QObject::tr(" ▸ fit to window")},
        {QObject::tr("1"), view + QObject::tr(" ▸ actual pixels (1:1)")},
        {QObject::tr("Arrows"), view + QObject::tr(" ▸ pan")},
        {QObject::tr("Middle drag, Space+drag"), view + QObject::tr(" ▸ pan, whatever tool is armed")},
        {QObject::tr("Drag"), view + QObject::tr(" ▸ pan (no tool armed), or draw with the armed tool")},
        {QObject::tr("Click"), view + QObject::tr(" ▸ select the shape under the cursor")},
        {QObject::tr("Esc"), view + QObject::tr(" ▸ drop the armed drawing tool (back to panning)")},
        {QObject::tr("Enter, double-click"), view + QObject::tr(" ▸ close a polygon, finish a trace")},
        {QObject::tr("Backspace"), view + QObject::tr(" ▸ remove the last polygon corner or trace point")},
    };
    out += canvas;
    return out;
}

HelpDialog::HelpDialog(QWidget* parent) : QDialog(parent), browser_(new QTextBrowser), search_(new QLineEdit) {
    setWindowTitle(tr("Glint User Guide"));
    setObjectName(QStringLiteral("HelpDialog"));
    auto* layout = new QVBoxLayout(this);
    search_->setPlaceholderText(tr("Find in the guide (Enter: next)"));
    search_->setClearButtonEnabled(true);
    layout->addWidget(search_);
    browser_->setOpenExternalLinks(true);
    const QString html = userGuideHtml();
    browser_->setHtml(html.isEmpty() ? tr("<p>The user guide is missing from this build.</p>") : html);
    layout->addWidget(browser_, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    connect(search_, &QLineEdit::returnPressed, this, [this] { find(search_->text()); });
    connect(search_, &QLineEdit::textEdited, this, [this](const QString& text) {
        browser_->moveCursor(QTextCursor::Start);
        if (!text.isEmpty()) find(text);
    });
    resize(720, 640);
}

void HelpDialog::showSection(const QString& anchor) { browser_->scrollToAnchor(anchor); }

bool HelpDialog::find(const QString& text) {
    if (text.isEmpty()) return false;
    if (browser_->find(text)) return true;
    browser_->moveCursor(QTextCursor::Start); // wrap round
    return browser_->find(text);
}

ShortcutsDialog::ShortcutsDialog(const QVector<ShortcutEntry>& entries, QWidget* parent)
    : QDialog(parent), table_(new QTableWidget(static_cast<int>(entries.size()), 2)), filter_(new QLineEdit) {
    setWindowTitle(tr("Keyboard Shortcuts"));
    auto* layout = new QVBoxLayout(this);
    filter_->setPlaceholderText(tr("Filter shortcuts"));
    filter_->setClearButtonEnabled(true);
    layout->addWidget(filter_);
    table_->setHorizontalHeaderLabels({tr("Keys"), tr("Does")});
    table_->verticalHeader()->setVisible(false);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    for (int i = 0; i < entries.size(); ++i) {
        table_->setItem(i, 0, new QTableWidgetItem(entries[i].keys));
        table_->setItem(i, 1, new QTableWidgetItem(entries[i].action));
    }
    table_->resizeColumnsToContents();
    table_->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(table_, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
        for (int r = 0; r < table_->rowCount(); ++r) {
            const bool match = text.isEmpty() || table_->item(r, 0)->text().contains(text, Qt::CaseInsensitive) ||
                               table_->item(r, 1)->text().contains(text, Qt::CaseInsensitive);
            table_->setRowHidden(r, !match);
        }
    });
    resize(620, 560);
}

} // namespace glint::ui
