#include "ui/jobs/LatestRequestRunner.h"

#include "ui/jobs/JobRunner.h"
#include "core/util/Errors.h"

#include <QtConcurrent/QtConcurrentRun>

namespace glint::ui {

LatestRequestRunner::LatestRequestRunner(QObject* parent) : QObject(parent) {
    connect(&watcher_, &QFutureWatcher<void>::finished, this, &LatestRequestRunner::onFinished);
}

LatestRequestRunner::~LatestRequestRunner() {
    pending_.reset();
    if (running_) {
        running_->requestCancel();
        watcher_.waitForFinished();
    }
}

void LatestRequestRunner::request(Work work, Done done) {
    if (pending_) ++supersededCount_;
    pending_ = Pending{std::move(work), std::move(done)};
    if (running_) running_->requestCancel();
    else startPending();
}

void LatestRequestRunner::cancelAll() {
    if (pending_) ++supersededCount_;
    pending_.reset();
    if (running_) running_->requestCancel();
}

void LatestRequestRunner::startPending() {
    Pending next = std::move(*pending_);
    pending_.reset();
    running_ = std::make_shared<glint::JobControl>();
    outcome_ = std::make_shared<Outcome>();
    runningDone_ = std::move(next.done);
    ++startedCount_;
    watcher_.setFuture(QtConcurrent::run([control = running_, outcome = outcome_, work = std::move(next.work)] {
        try {
            if (work) work(*control);
        } catch (...) {
            outcome->error = std::current_exception();
        }
    }));
}

void LatestRequestRunner::onFinished() {
    const auto control = std::move(running_);
    const auto outcome = std::move(outcome_);
    auto done = std::move(runningDone_);
    runningDone_ = nullptr;
    const bool superseded = pending_.has_value() || control->cancelRequested();
    if (superseded) {
        ++supersededCount_;
    } else if (outcome->error) {
        bool cancelled = false;
        try {
            std::rethrow_exception(outcome->error);
        } catch (const glint::Cancelled&) {
            cancelled = true;
        } catch (...) {
        }
        if (!cancelled) emit failed(describeException(outcome->error));
    } else if (done) {
        done();
    }
    if (pending_) startPending();
    else emit idle();
}

} // namespace glint::ui
