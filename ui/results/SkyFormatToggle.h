// The results table's RA/Dec in sexagesimal on demand: a checkable "RA/Dec as hh:mm:ss" in the context menu of
// the table and of its column header, for the shown set when it has RA and Dec columns (ResultsModel's sky
// columns); decimal degrees otherwise, with the decimals the image's pixel scale needs.
#pragma once

#include <QAction>

class QSortFilterProxyModel;
class QTableView;

namespace glint::ui {

// Adds the action to the table (the proxy shows a ResultsModel) and returns it (objectName "SexagesimalAction").
// The user's choice is remembered (the action's data, a bool; the window keeps it in its settings as
// results/sexagesimal): every set with RA/Dec shown afterwards, this run's or the next, follows it.
QAction* installSkyFormatToggle(QTableView* table, QSortFilterProxyModel* proxy);

} // namespace glint::ui
