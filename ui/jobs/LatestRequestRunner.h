// Live work where only the newest request matters (display rendering while limits are dragged, a trace
// following the mouse): the shape of Qt's Mandelbrot example. A new request cancels the running one and
// replaces any waiting one; the caller keeps showing the previous result until the newest arrives.
#pragma once

#include "core/jobs/JobControl.h"

#include <QFutureWatcher>
#include <QObject>

#include <exception>
#include <functional>
#include <memory>
#include <optional>

namespace glint::ui {

class LatestRequestRunner : public QObject {
    Q_OBJECT
public:
    using Work = std::function<void(glint::JobControl&)>; // worker thread; should poll the token often
    using Done = std::function<void()>;                   // UI thread, only for the newest request

    explicit LatestRequestRunner(QObject* parent = nullptr);
    ~LatestRequestRunner() override; // cancels and waits

    // Starts work now, or as soon as the running request (cancelled here) has returned.
    void request(Work work, Done done);
    // Cancels the running request and drops the waiting one; nothing more is delivered.
    void cancelAll();
    bool isBusy() const { return running_ != nullptr; }
    // How many requests were started, and how many were superseded before delivering (for tests).
    int startedCount() const { return startedCount_; }
    int supersededCount() const { return supersededCount_; }

signals:
    void failed(const QString& message); // the newest request threw (not Cancelled)
    void idle();                         // nothing running and nothing waiting

private:
    struct Pending {
        Work work;
        Done done;
    };
    struct Outcome {
        std::exception_ptr error;
    };
    void startPending();
    void onFinished();

    QFutureWatcher<void> watcher_;
    std::shared_ptr<glint::JobControl> running_;
    std::shared_ptr<Outcome> outcome_;
    Done runningDone_;
    std::optional<Pending> pending_;
    int startedCount_ = 0;
    int supersededCount_ = 0;
};

} // namespace glint::ui
