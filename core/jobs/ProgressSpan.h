// A part of a job's progress bar, so that a sweep of several runs (or the rounds of one) fills it once.
#pragma once

#include "core/jobs/JobControl.h"

namespace glint {

// The part [begin, end] of the job's progress bar.
struct ProgressSpan {
    double begin = 0.0;
    double end = 1.0;
    void set(JobControl& job, double fraction) const { job.setProgress(begin + (end - begin) * fraction); }
    ProgressSpan part(double from, double to) const {
        return {begin + (end - begin) * from, begin + (end - begin) * to};
    }
};

} // namespace glint
