#include "ui/docks/ResultsDock.h"

#include "ui/canvas/ImageCanvas.h"
#include "ui/overlay/OverlayLayer.h"
#include "ui/results/ResultsModel.h"
#include "ui/results/SkyFormatToggle.h"

#include <QComboBox>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace glint::ui {

ResultsDock::ResultsDock(ImageCanvas* canvas, QWidget* parent)
    : QDockWidget(tr("Results"), parent), canvas_(canvas), chooser_(new QComboBox), note_(new QLabel), table_(new QTableView),
      proxy_(new QSortFilterProxyModel(this)) {
    setObjectName(QStringLiteral("ResultsDock"));
    auto* body = new QWidget;
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    chooser_->setPlaceholderText(tr("No results yet: run an analysis from the Analyze menu"));
    layout->addWidget(chooser_, 0, Qt::AlignTop); // at the top of a dock folded to it (no results yet)
    note_->setObjectName(QStringLiteral("ResultNote"));
    note_->setWordWrap(true);
    note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    note_->setContentsMargins(2, 2, 2, 2);
    note_->hide();
    layout->addWidget(note_);
    layout->addWidget(table_);
    table_->hide(); // comes with the first result: an empty dock folds to the chooser's line
    setWidget(body);

    proxy_->setSortRole(ResultsModel::RawValueRole);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(0, Qt::AscendingOrder); // rank 1 first
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->setVisible(false);
    // Compact rows, columns as wide as their numbers: a result table is read like a spreadsheet.
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(false);
    table_->setTextElideMode(Qt::ElideNone); // numbers are never cut ("5945.8…"): columns fit them instead
    // Two rows at least: a result table is read by comparing rows. The window gives it up to ten where the canvas
    // keeps 70 % of its height (MainWindow); a user who drags the dock's edge gets more.
    table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() + 2 * table_->verticalHeader()->defaultSectionSize() +
                             2 * table_->frameWidth() + 2);
    // Rows added to the shown set (a run still filling its table) widen the columns as needed.
    connect(proxy_, &QAbstractItemModel::rowsInserted, this, &ResultsDock::fitColumnsSoon);
    connect(proxy_, &QAbstractItemModel::modelReset, this, &ResultsDock::fitColumnsSoon);
    connect(proxy_, &QAbstractItemModel::dataChanged, this, &ResultsDock::fitColumnsSoon);

    connect(chooser_, &QComboBox::currentIndexChanged, this, &ResultsDock::showSet);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &ResultsDock::onRowSelected);
    connect(table_, &QTableView::doubleClicked, this, &ResultsDock::onRowActivated);
    installSkyFormatToggle(table_, proxy_); // RA/Dec in sexagesimal on demand (context menu)
}

void ResultsDock::addResultSet(const QString& title, ResultsModel* model, OverlayLayer* layer, const QString& note) {
    model->setParent(this);
    sets_.append({title, model, layer, note});
    table_->show();
    if (layer) {
        connect(layer, &OverlayLayer::selectionChanged, this, [this, layer](int item) {
            if (current_ >= 0 && sets_[current_].layer == layer) onLayerSelection(item);
        });
    }
    chooser_->addItem(title);
    chooser_->setCurrentIndex(static_cast<int>(sets_.size()) - 1);
}

void ResultsDock::clear() {
    chooser_->clear();
    proxy_->setSourceModel(nullptr);
    for (const ResultSet& s : sets_) {
        if (s.layer) disconnect(s.layer, nullptr, this, nullptr);
        s.model->deleteLater();
    }
    sets_.clear();
    current_ = -1;
    note_->clear();
    note_->hide();
    table_->hide();
}

void ResultsDock::setCurrentResultSet(int index) { chooser_->setCurrentIndex(index); }

ResultsModel* ResultsDock::currentModel() const { return current_ >= 0 ? sets_[current_].model : nullptr; }

OverlayLayer* ResultsDock::currentLayer() const { return current_ >= 0 ? sets_[current_].layer.data() : nullptr; }

int ResultsDock::headerHeight() const {
    // An empty table has no column header yet; a result brings one, taken from the rows' room.
    const QHeaderView* header = table_->horizontalHeader();
    return std::max({header->height(), header->sizeHint().height(), table_->verticalHeader()->defaultSectionSize()});
}

int ResultsDock::rowsInView() const {
    const QHeaderView* header = table_->horizontalHeader();
    const int missingHeader = header->isVisible() && header->height() > 0 ? 0 : headerHeight();
    const int row = table_->verticalHeader()->defaultSectionSize();
    return row > 0 ? std::max(0, table_->viewport()->height() - missingHeader) / row : 0;
}

int ResultsDock::heightForRows(int rows) const {
    // Laid out: what surrounds the table's viewport is known; before that, estimated.
    const QHeaderView* header = table_->horizontalHeader();
    const int missingHeader = header->isVisible() && header->height() > 0 ? 0 : headerHeight();
    const int chrome = isVisible() && table_->viewport()->height() > 0
                           ? height() - table_->viewport()->height() + missingHeader
                           : chooser_->sizeHint().height() + 48 + headerHeight() + 2 * table_->frameWidth();
    return chrome + rows * table_->verticalHeader()->defaultSectionSize() + 2;
}

void ResultsDock::fitColumnsSoon() {
    if (fitPending_) return;
    fitPending_ = true;
    QTimer::singleShot(0, this, [this] {
        fitPending_ = false;
        table_->resizeColumnsToContents();
    });
}

void ResultsDock::showSet(int index) {
    current_ = index >= 0 && index < sets_.size() ? index : -1;
    proxy_->setSourceModel(currentModel());
    const QString note = current_ >= 0 ? sets_[current_].note : QString();
    note_->setText(note);
    note_->setVisible(!note.isEmpty());
    table_->resizeColumnsToContents();
    if (OverlayLayer* layer = currentLayer()) onLayerSelection(layer->selected());
}

void ResultsDock::selectRow(int row) {
    if (!currentModel() || row < 0 || row >= currentModel()->rowCount()) {
        table_->clearSelection();
        return;
    }
    const QModelIndex at = proxy_->mapFromSource(currentModel()->index(row, 0));
    table_->selectionModel()->select(at, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table_->scrollTo(at);
}

int ResultsDock::selectedRow() const {
    const QModelIndexList rows = table_->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : proxy_->mapToSource(rows.first()).row();
}

void ResultsDock::onRowSelected() {
    if (syncing_) return;
    OverlayLayer* layer = currentLayer();
    if (!layer) return;
    syncing_ = true;
    const int row = selectedRow();
    layer->setSelected(row >= 0 ? currentModel()->overlayItem(row) : -1);
    syncing_ = false;
}

void ResultsDock::onLayerSelection(int item) {
    if (syncing_ || !currentModel()) return;
    syncing_ = true;
    selectRow(currentModel()->rowForOverlayItem(item));
    syncing_ = false;
}

void ResultsDock::onRowActivated(const QModelIndex& index) {
    OverlayLayer* layer = currentLayer();
    if (!layer || !canvas_ || !index.isValid()) return;
    const int item = currentModel()->overlayItem(proxy_->mapToSource(index).row());
    const QRectF bounds = layer->itemBounds(item);
    if (bounds.isValid() || !bounds.isNull()) canvas_->centerOn(bounds.center());
}

} // namespace glint::ui
