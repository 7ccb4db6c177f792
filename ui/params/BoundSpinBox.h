// A spin box for a bound that may be automatic or none (--max-box P|auto|none, --guides N|adaptive): it shows
// "auto (…)" or "none" at its two lowest values and "N px" above them, and reads typed "auto", "none" or a number.
// The two special values are the widget's own encoding; SpecForm turns them into the spec's words.
#pragma once

#include <QSpinBox>

namespace glint::ui {

class BoundSpinBox final : public QSpinBox {
public:
    static constexpr int kAuto = -1;
    static constexpr int kNone = 0;

    // autoWord: the automatic state's word (empty: none); allowNone: whether "none" is a value (without it, 0 is
    // automatic too); numbers up to hi.
    BoundSpinBox(QString autoWord, bool allowNone, int lo, int hi, QString suffix);

protected:
    QString textFromValue(int value) const override;
    int valueFromText(const QString& text) const override;
    QValidator::State validate(QString& text, int& pos) const override;

private:
    QString autoWord_;
    bool allowNone_;
    QString unit_;
};

} // namespace glint::ui
