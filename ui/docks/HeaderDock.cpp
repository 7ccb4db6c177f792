#include "ui/docks/HeaderDock.h"

#include "ui/AppContext.h"
#include "core/io/Wcs.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QHBoxLayout>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace glint::ui {

QStringList describeImage(const LoadedImage& loaded) {
    if (!loaded.image) return {};
    const glint::Image& image = *loaded.image;
    const glint::ImageMetadata& m = image.meta;
    QStringList lines;
    lines << QObject::tr("File: %1").arg(QFileInfo(loaded.path).fileName());
    lines << QObject::tr("Format: %1").arg(QString::fromStdString(m.format.empty() ? std::string("in memory") : m.format));
    lines << QObject::tr("Size: %1 × %2").arg(image.width()).arg(image.height());
    lines << QObject::tr("Samples: %1, %2 bits%3%4")
                 .arg(QString::fromLatin1(glint::sampleTypeName(image.sampleType())))
                 .arg(m.bitDepth)
                 .arg(m.integerValued ? QObject::tr(", integer-valued") : QString())
                 .arg(m.wasColour ? QObject::tr(", from colour") : QString());
    if (m.hdu >= 0) {
        // Numbered as glint-cli numbers them (--hdu N, the list of `glint-cli info`): from 0, the primary HDU.
        QString name;
        for (const glint::HduInfo& h : m.hdus)
            if (h.index == m.hdu && !h.name.empty()) name = QStringLiteral(" (%1)").arg(QString::fromStdString(h.name));
        const QString range = m.hdus.size() > 1 ? QObject::tr(" of 0–%1").arg(m.hdus.size() - 1) : QString();
        lines << QObject::tr("HDU: %1%2%3, counted from 0 = primary (glint-cli --hdu %1)").arg(m.hdu).arg(name, range);
    }
    if (m.planeCount > 1) lines << QObject::tr("Plane: %1 of %2").arg(m.plane + 1).arg(m.planeCount);
    if (m.frameCount > 1) lines << QObject::tr("Frame: %1 of %2").arg(m.frame + 1).arg(m.frameCount);
    const glint::ImageStats& s = loaded.stats;
    lines << QObject::tr("Min %1, max %2, mean %3, median %4")
                 .arg(s.min, 0, 'g', 8)
                 .arg(s.max, 0, 'g', 8)
                 .arg(s.mean, 0, 'g', 8)
                 .arg(s.median, 0, 'g', 8);
    if (image.hasBlanks()) lines << QObject::tr("Blank pixels: %1").arg(image.blankCount());
    if (m.wcs) lines << QObject::tr("WCS: %1 (shown as FK5 J2000)").arg(QString::fromStdString(m.wcs->nativeFrame()));
    if (m.windowCenter && m.windowWidth)
        lines << QObject::tr("Window: centre %1, width %2").arg(*m.windowCenter).arg(*m.windowWidth);
    if (m.displayYUp) lines << QObject::tr("Shown with row 0 at the bottom (y up)");
    return lines;
}

HeaderDock::HeaderDock(QWidget* parent)
    : QDockWidget(tr("Header"), parent), summary_(new QLabel), count_(new QLabel), filter_(new QLineEdit), table_(new QTableView),
      model_(new QStandardItemModel(this)), proxy_(new QSortFilterProxyModel(this)) {
    setObjectName(QStringLiteral("HeaderDock"));
    auto* body = new QWidget;
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    summary_->setMargin(2);
    // The summary scrolls in its own pane; the cards get the rest of the dock.
    auto* summaryPane = new QScrollArea;
    summaryPane->setWidget(summary_);
    summaryPane->setWidgetResizable(true);
    summaryPane->setFrameShape(QFrame::NoFrame);
    auto* cards = new QWidget;
    auto* cardsLayout = new QVBoxLayout(cards);
    cardsLayout->setContentsMargins(0, 0, 0, 0);
    auto* searchRow = new QHBoxLayout;
    filter_->setPlaceholderText(tr("Search keys, values and comments"));
    filter_->setClearButtonEnabled(true);
    searchRow->addWidget(filter_, 1);
    searchRow->addWidget(count_);
    cardsLayout->addLayout(searchRow);
    cardsLayout->addWidget(table_, 1);
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(summaryPane);
    splitter->addWidget(cards);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({fontMetrics().height() * 5, 10000});
    layout->addWidget(splitter, 1);
    setWidget(body);

    model_->setHorizontalHeaderLabels({tr("Key"), tr("Value"), tr("Comment")});
    proxy_->setSourceModel(model_);
    proxy_->setFilterKeyColumn(-1);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    table_->setModel(proxy_);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 4); // compact: many cards at once
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setWordWrap(false);
    table_->setMinimumHeight(80);
    connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
        proxy_->setFilterFixedString(text);
        showCount();
    });
    clear();
}

void HeaderDock::showCount() {
    const int all = model_->rowCount(), shown = proxy_->rowCount();
    count_->setText(all == 0 ? QString() : shown == all ? (all == 1 ? tr("1 card") : tr("%1 cards").arg(all)) : tr("%1 of %2").arg(shown).arg(all));
}

void HeaderDock::clear() {
    summary_->setText(tr("No image"));
    model_->removeRows(0, model_->rowCount());
    showCount();
}

void HeaderDock::showImage(const LoadedImage& loaded) {
    summary_->setText(describeImage(loaded).join(QLatin1Char('\n')));
    model_->removeRows(0, model_->rowCount());
    if (!loaded.image) return;
    for (const glint::HeaderCard& card : loaded.image->meta.header) {
        QList<QStandardItem*> row{new QStandardItem(QString::fromStdString(card.key)),
                                  new QStandardItem(QString::fromStdString(card.value)),
                                  new QStandardItem(QString::fromStdString(card.comment))};
        model_->appendRow(row);
    }
    table_->resizeColumnToContents(0);
    table_->resizeColumnToContents(1);
    showCount();
}

int HeaderDock::visibleRowCount() const { return proxy_->rowCount(); }

} // namespace glint::ui
