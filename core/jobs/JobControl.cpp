#include "jobs/JobControl.h"

#include "util/Errors.h"

namespace glint {

void JobControl::throwIfCancelled() const {
    if (cancelRequested()) throw Cancelled();
}

} // namespace glint
