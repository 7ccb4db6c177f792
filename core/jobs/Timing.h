// Named timing steps of one run (upload, kernels, download, ...). Every algorithm records its steps
// here; the CLI JSON, the timing dock and the bench report all read the same record.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace glint {

struct TimingStep {
    std::string name;
    double ms = 0.0;
};

class Timing {
public:
    // Adds ms to the step of that name, creating it at the end of the list when new.
    void add(const std::string& name, double ms);
    const std::vector<TimingStep>& steps() const { return steps_; }
    double step(const std::string& name) const; // 0 when absent
    // The algorithm's own time. Defaults to the sum of the steps unless set explicitly.
    double total() const;
    void setTotal(double ms) { total_ = ms; }
    void clear() {
        steps_.clear();
        total_ = -1.0;
        deviceInitMs_ = deviceWaitMs_ = -1.0;
    }
    // The GPU's one-time set-up (driver, context, modules), kept out of the steps and the total: it runs
    // once per process, in the background (startCudaProbeInBackground). probeMs: how long it took;
    // waitedMs: how long this run waited for it. Negative: not a GPU run.
    void setDeviceInit(double probeMs, double waitedMs) {
        deviceInitMs_ = probeMs;
        deviceWaitMs_ = waitedMs;
    }
    double deviceInit() const { return deviceInitMs_; }
    double deviceWait() const { return deviceWaitMs_; }
    void merge(const Timing& other);

    // Wall-clock timer of one step, recorded when it goes out of scope (or on stop()).
    class Scope {
    public:
        Scope(Timing& timing, std::string name);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;
        double stop();

    private:
        Timing* timing_;
        std::string name_;
        std::chrono::steady_clock::time_point start_;
        bool stopped_ = false;
    };
    Scope scope(std::string name) { return Scope(*this, std::move(name)); }

private:
    std::vector<TimingStep> steps_;
    double total_ = -1.0;
    double deviceInitMs_ = -1.0;
    double deviceWaitMs_ = -1.0;
};

// Milliseconds since a steady-clock point; a small helper for code that times by hand.
inline double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace glint
