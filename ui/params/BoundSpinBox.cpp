#include "ui/params/BoundSpinBox.h"

#include <QRegularExpression>

namespace glint::ui {

BoundSpinBox::BoundSpinBox(QString autoWord, bool allowNone, int lo, int hi, QString suffix)
    : autoWord_(std::move(autoWord)), allowNone_(allowNone), unit_(suffix.trimmed()) {
    setRange(!autoWord_.isEmpty() ? kAuto : allowNone_ ? kNone : lo, hi);
}

QString BoundSpinBox::textFromValue(int value) const {
    // Without none, 0 (between auto and the first value) reads as auto too.
    if ((value == kAuto || (value == kNone && !allowNone_)) && !autoWord_.isEmpty())
        return autoWord_ == QLatin1String("auto") ? tr("auto (5 × FWHM)") : autoWord_;
    if (value == kNone && allowNone_) return tr("none");
    return unit_.isEmpty() ? QString::number(value) : tr("%1 %2").arg(value).arg(unit_);
}

int BoundSpinBox::valueFromText(const QString& text) const {
    const QString t = text.trimmed().toLower();
    if (!autoWord_.isEmpty() && (t.startsWith(autoWord_.left(1)) || t.startsWith(QLatin1Char('a')))) return kAuto;
    if (allowNone_ && t.startsWith(QLatin1Char('n'))) return kNone;
    return QString(t).remove(unit_).trimmed().toInt();
}

QValidator::State BoundSpinBox::validate(QString& text, int&) const {
    const QString t = text.trimmed().toLower();
    if (t.isEmpty()) return QValidator::Intermediate;
    QStringList words;
    if (!autoWord_.isEmpty()) words << textFromValue(kAuto).toLower() << autoWord_ << QStringLiteral("auto");
    if (allowNone_) words << QStringLiteral("none");
    if (words.contains(t)) return QValidator::Acceptable;
    for (const QString& word : words)
        if (word.startsWith(t)) return QValidator::Intermediate;
    static const QRegularExpression number(QStringLiteral("^(\\d+)\\s*([a-z]*)$"));
    const QRegularExpressionMatch m = number.match(t);
    if (!m.hasMatch()) return QValidator::Invalid;
    bool ok = false;
    const int v = m.captured(1).toInt(&ok);
    return ok && v <= maximum() ? QValidator::Acceptable : QValidator::Invalid;
}

} // namespace glint::ui
