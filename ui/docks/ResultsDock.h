// The generic results table: result sets (one per run, chosen in a combo box) shown in a sortable table
// and linked both ways with their overlay layer: selecting a row highlights the shape, clicking a shape
// selects its row, double-clicking a row centres the view on the shape.
#pragma once

#include <QDockWidget>
#include <QPointer>
#include <QVector>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace glint::ui {

class ImageCanvas;
class OverlayLayer;
class ResultsModel;

class ResultsDock : public QDockWidget {
    Q_OBJECT
public:
    explicit ResultsDock(ImageCanvas* canvas, QWidget* parent = nullptr);

    // Shows a new result set and makes it current. Takes ownership of the model; the layer (may be null)
    // stays owned by the layer stack. note: a line shown above the table while the set is current (why a
    // result is empty, or how its parameters were chosen); empty for none.
    void addResultSet(const QString& title, ResultsModel* model, OverlayLayer* layer, const QString& note = {});
    void clear();
    int resultSetCount() const { return static_cast<int>(sets_.size()); }
    int currentResultSet() const { return current_; }
    QString resultSetTitle(int index) const { return index >= 0 && index < sets_.size() ? sets_[index].title : QString(); }
    QString resultSetNote(int index) const { return index >= 0 && index < sets_.size() ? sets_[index].note : QString(); }
    // The current set's note, above the table (hidden when it has none).
    QLabel* noteLabel() const { return note_; }
    void setCurrentResultSet(int index);
    ResultsModel* currentModel() const;
    OverlayLayer* currentLayer() const;
    QTableView* table() const { return table_; }
    // Selects a row of the current set (source row), as a click would.
    void selectRow(int row);
    // The source row selected in the table, or -1.
    int selectedRow() const;
    // The dock's height that shows the chooser, the table's header and this many rows.
    int heightForRows(int rows) const;
    // Whole rows the table shows (with its column header, which an empty table does not show yet).
    int rowsInView() const;

private:
    int headerHeight() const;
    struct ResultSet {
        QString title;
        ResultsModel* model;
        QPointer<OverlayLayer> layer;
        QString note;
    };
    void showSet(int index);
    void onRowSelected();
    void onLayerSelection(int item);
    void onRowActivated(const QModelIndex& index);
    void fitColumnsSoon(); // columns as wide as their contents, once the rows now arriving are in

    ImageCanvas* canvas_;
    QComboBox* chooser_;
    QLabel* note_;
    QTableView* table_;
    QSortFilterProxyModel* proxy_;
    QVector<ResultSet> sets_;
    int current_ = -1;
    bool syncing_ = false;
    bool fitPending_ = false;
};

} // namespace glint::ui
