// Small helpers shared by the panels and docks that set up their input widgets.
#pragma once

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QString>

#include <initializer_list>

namespace glint::ui {

// A spin box's range, the decimals it shows and its unit (a suffix; none when empty).
inline void setUpSpinBox(QDoubleSpinBox* box, double min, double max, int decimals, const QString& suffix = {}) {
    box->setRange(min, max);
    box->setDecimals(decimals);
    if (!suffix.isEmpty()) box->setSuffix(suffix);
}

// One item per value of an enumeration: its name (`name`, as the CLI spells it), the value as int data.
template <class E>
void addEnumItems(QComboBox* box, std::initializer_list<E> values, const char* (*name)(E)) {
    for (E v : values) box->addItem(QString::fromLatin1(name(v)), static_cast<int>(v));
}

} // namespace glint::ui
