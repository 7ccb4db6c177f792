#include "ui/WindowFit.h"

#include <QApplication>
#include <QEvent>
#include <QFontMetrics>
#include <QPointer>
#include <QScreen>
#include <QStyle>
#include <QTimer>
#include <QWidget>
#include <QWindow>

#include <algorithm>

namespace glint::ui {

QRect fittedGeometry(const QRect& current, QSize wanted, const QMargins& frame, const QRect& available, QSize minimum) {
    const int roomW = available.width() - frame.left() - frame.right();
    const int roomH = available.height() - frame.top() - frame.bottom();
    const int w = std::max({std::min(wanted.width(), roomW), minimum.width(), 1});
    const int h = std::max({std::min(wanted.height(), roomH), minimum.height(), 1});
    const QRect framed(current.x() - frame.left(), current.y() - frame.top(), w + frame.left() + frame.right(),
                       h + frame.top() + frame.bottom());
    if (available.contains(framed) && QSize(w, h) == current.size()) return current;
    // Kept where it is when it fits there, else moved in (left and top edges first: the title bar stays
    // reachable when the minimum is larger than the screen).
    int x = std::clamp(framed.x(), available.left(), std::max(available.left(), available.right() + 1 - framed.width()));
    int y = std::clamp(framed.y(), available.top(), std::max(available.top(), available.bottom() + 1 - framed.height()));
    return {x + frame.left(), y + frame.top(), w, h};
}

namespace {

// Watches a window from its first show until its frame is known and the window fits; then a few seconds more
// (a window manager may place it after mapping), and goes.
class ScreenFitter : public QObject {
public:
    ScreenFitter(QWidget& window, QSize wanted) : QObject(&window), window_(&window), wanted_(wanted) {
        window.installEventFilter(this);
        if (window.isVisible()) started();
        fit();
    }

    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == window_) {
            switch (event->type()) {
            case QEvent::Show:
                started();
                fitSoon();
                break;
            case QEvent::Move:
            case QEvent::Resize:
                if (shown_) fitSoon();
                break;
            default: break;
            }
        }
        return QObject::eventFilter(watched, event);
    }

private:
    void started() {
        if (shown_) return;
        shown_ = true;
        // Some window managers frame and place a window a while after it is mapped.
        for (int ms : {100, 400, 1200}) QTimer::singleShot(ms, this, [this] { fit(); });
        QTimer::singleShot(3000, this, [this] { deleteLater(); });
    }
    void fitSoon() {
        if (pending_) return;
        pending_ = true;
        QTimer::singleShot(0, this, [this] {
            pending_ = false;
            fit();
        });
    }
    QMargins frame() const {
        const QWindow* handle = window_->windowHandle();
        const QMargins real = handle ? handle->frameMargins() : QMargins();
        if (!real.isNull() || QGuiApplication::platformName() == QLatin1String("offscreen")) {
            framed_ = framed_ || !real.isNull();
            return real;
        }
        // Not framed yet: a title bar of about two lines and thin borders.
        const int title = std::max(window_->style()->pixelMetric(QStyle::PM_TitleBarHeight), 2 * window_->fontMetrics().height());
        return {2, title, 2, 2};
    }
    void fit() {
        if (!window_ || window_->isMaximized() || window_->isFullScreen()) return;
        const QScreen* screen = window_->screen();
        if (!screen) return;
        const QMargins margins = frame();
        const QRect available = screen->availableGeometry();
        const QRect current = window_->geometry();
        const QRect framed = current.marginsAdded(margins);
        // Shrunk while the frame was estimated larger than it is: back to the size wanted, as far as it fits.
        const bool regrow = framed_ && !regrown_ && (current.width() < wanted_.width() || current.height() < wanted_.height());
        if (available.contains(framed) && !regrow) return;
        if (framed_) regrown_ = true;
        const QRect target = fittedGeometry(current, wanted_, margins, available, window_->minimumSizeHint().expandedTo(window_->minimumSize()));
        if (target != current) window_->setGeometry(target);
    }

    QPointer<QWidget> window_;
    QSize wanted_;
    bool shown_ = false;
    bool pending_ = false;
    mutable bool framed_ = false;
    bool regrown_ = false;
};

} // namespace

void keepOnScreen(QWidget& window, QSize wanted) {
    new ScreenFitter(window, wanted.isValid() ? wanted : window.size());
}

} // namespace glint::ui
