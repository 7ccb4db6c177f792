// One-shot background work of which only the newest request counts: opening an image, image B or a
// session, computing a histogram. Each start() supersedes every earlier request still running; a
// superseded result is dropped when it arrives (a file read cannot be cancelled half-way, so it runs to
// its end). Live work that can be cancelled (rendering, a trace under the mouse) uses LatestRequestRunner.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>

#include <type_traits>
#include <utility>

namespace glint::ui {

class LatestOnly {
public:
    // Runs work() on the thread pool; done(result) runs on owner's thread if no start() or drop() came
    // after this one. The watcher is owner's child, so nothing is delivered once owner is gone.
    template <class Work, class Done>
    void start(QObject* owner, Work work, Done done) {
        using Result = std::invoke_result_t<Work>;
        const quint64 ticket = ++requested_;
        auto* watcher = new QFutureWatcher<Result>(owner);
        QObject::connect(watcher, &QFutureWatcher<Result>::finished, owner,
                         [this, watcher, ticket, done = std::move(done)]() mutable {
                             watcher->deleteLater();
                             if (ticket != requested_) return; // superseded
                             delivered_ = ticket;
                             done(watcher->result());
                         });
        watcher->setFuture(QtConcurrent::run(std::move(work)));
    }
    // Whatever is running is no longer wanted (the caller shows something else now).
    void drop() { delivered_ = ++requested_; }
    // A request is running whose result is still wanted.
    bool busy() const { return requested_ != delivered_; }

private:
    quint64 requested_ = 0;
    quint64 delivered_ = 0;
};

} // namespace glint::ui
