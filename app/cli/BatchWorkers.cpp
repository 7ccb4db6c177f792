#include "app/cli/BatchWorkers.h"

#include "core/util/Errors.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace glint::cli {

namespace {

std::vector<int> parseDevices(const std::string& text) {
    const CudaDeviceInfo& info = cudaDevice();
    if (!info.usable) throw BackendUnavailable("--devices: no usable CUDA device: " + info.reason);
    std::vector<int> devices;
    if (text == "all") {
        for (int d = 0; d < info.deviceCount; ++d) devices.push_back(d);
        return devices;
    }
    std::set<int> seen;
    std::stringstream list(text);
    std::string item;
    while (std::getline(list, item, ',')) {
        const int d = static_cast<int>(parseInteger(item, "--devices", 0, 1023));
        if (!seen.insert(d).second) throw UsageError("option '--devices' names device " + item + " twice");
        if (d >= info.deviceCount)
            throw BackendUnavailable("--devices: no CUDA device " + item + " (this host has " +
                                     std::to_string(info.deviceCount) + ")");
        devices.push_back(d);
    }
    if (devices.empty() || text.back() == ',')
        throw UsageError("option '--devices' takes all or device numbers like 0,1, got '" + text + "'");
    return devices;
}

} // namespace

BatchWorkers batchWorkers(const ParsedArgs& a, Backend backend, const std::string& algorithm,
                          const std::vector<std::string>& files) {
    BatchWorkers plan;
    const int all = allCpuThreads();
    const std::string jobs = a.valueOr("--jobs", "auto");
    const int asked = jobs == "auto" ? all : static_cast<int>(parseInteger(jobs, "--jobs", 1, 4096));
    plan.workers = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(asked, files.size())));
    plan.threadsEach = std::max(1, all / plan.workers);
    if (auto devices = a.value("--devices")) {
        if (algorithm == "info" || backend == Backend::Cpu || backend == Backend::Reference)
            throw UsageError("option '--devices' needs --backend cuda or auto");
        plan.devices = parseDevices(*devices);
    } else if (backend == Backend::Auto && algorithm != "info" && files.size() >= 4) {
        startCudaProbeInBackground();
    }
    return plan;
}

} // namespace glint::cli
