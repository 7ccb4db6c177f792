#include "core/util/ResourceLimits.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sched.h>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace glint {

namespace {

constexpr std::uint64_t kNoLimitFrom = 1ULL << 62; // v1 reports "unlimited" as 2^63 - 4096 (or so)

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

struct CgroupLine {
    std::string controllers; // "" for v2, else e.g. "memory" or "cpu,cpuacct"
    std::string path;        // "/user.slice/…", always starting with '/'
};

// The lines of /proc/self/cgroup ("ID:controllers:path"); malformed lines are skipped.
std::vector<CgroupLine> parseProcCgroup(const std::string& text) {
    std::vector<CgroupLine> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto a = line.find(':');
        if (a == std::string::npos) continue;
        const auto b = line.find(':', a + 1);
        if (b == std::string::npos) continue;
        CgroupLine l{line.substr(a + 1, b - a - 1), trim(line.substr(b + 1))};
        if (l.path.empty() || l.path[0] != '/' || l.path.find("/..") != std::string::npos) continue;
        out.push_back(std::move(l));
    }
    return out;
}

bool hasController(const std::string& list, const std::string& name) {
    std::size_t at = 0;
    while (at <= list.size()) {
        const auto comma = list.find(',', at);
        const std::string item = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        if (item == name) return true;
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return false;
}

// The folders that hold the process's cgroup and every one above it, to the mount's root: for the
// cgroup path "/a/b" under mount folder M: M/a/b, M/a, M. Inside a container whose cgroup is not
// namespaced, /proc/self/cgroup names the host's path, which does not exist there; the mount's own root,
// the container's cgroup, is still read.
std::vector<std::string> cgroupFolders(const std::string& mount, std::string path) {
    std::vector<std::string> out;
    while (!path.empty() && path.back() == '/') path.pop_back();
    for (;;) {
        out.push_back(mount + path);
        if (path.empty()) break;
        path.erase(path.find_last_of('/'));
    }
    return out;
}

// The mount folders of a hierarchy: v2 (unified at sys/fs/cgroup, or sys/fs/cgroup/unified in the hybrid
// layout), v1 (sys/fs/cgroup/<controllers as listed>, and one per controller name, as systemd links them).
std::vector<std::string> mountFolders(const std::string& root, const CgroupLine& line, const std::string& v1Controller) {
    std::string base = root;
    while (!base.empty() && base.back() == '/') base.pop_back();
    base += "/sys/fs/cgroup";
    if (line.controllers.empty()) return {base, base + "/unified"};
    if (!hasController(line.controllers, v1Controller)) return {};
    std::vector<std::string> out = {base + "/" + line.controllers};
    if (line.controllers != v1Controller) out.push_back(base + "/" + v1Controller);
    return out;
}

std::optional<long long> parseSigned(const std::string& text) {
    const std::string t = trim(text);
    if (t.empty() || t.size() > 20) return std::nullopt;
    std::size_t i = t[0] == '-' ? 1 : 0;
    if (i == t.size()) return std::nullopt;
    long long v = 0;
    for (; i < t.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(t[i]))) return std::nullopt;
        if (v > (1LL << 58)) return std::nullopt;
        v = v * 10 + (t[i] - '0');
    }
    return t[0] == '-' ? -v : v;
}

std::string formatGiB(std::uint64_t bytes) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
    return buf;
}

// The process's mapped address space (VmSize), from /proc/self/statm.
std::uint64_t mappedBytes() {
    const auto text = readSmallTextFile("/proc/self/statm");
    if (!text) return 0;
    const auto pages = parseSigned(text->substr(0, text->find(' ')));
    const long page = ::sysconf(_SC_PAGESIZE);
    if (!pages || *pages < 0 || page <= 0) return 0;
    return static_cast<std::uint64_t>(*pages) * static_cast<std::uint64_t>(page);
}

} // namespace

std::optional<std::string> readSmallTextFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text(1 << 16, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (in.bad()) return std::nullopt;
    text.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    return text;
}

std::optional<std::uint64_t> parseCgroupLimit(const std::string& text) {
    const std::string t = trim(text);
    if (t.empty() || t.size() > 20) return std::nullopt;
    std::uint64_t v = 0;
    for (char c : t) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt; // "max", "-1", garbage
        if (v >= kNoLimitFrom / 10 + 1) return std::nullopt;
        v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (v == 0 || v >= kNoLimitFrom) return std::nullopt;
    return v;
}

std::optional<MemoryLimit> cgroupMemoryLimit(const std::string& procSelfCgroup, const std::string& root) {
    std::optional<MemoryLimit> best;
    const auto consider = [&](const std::string& file, const char* name) {
        const auto text = readSmallTextFile(file);
        if (!text) return;
        const auto v = parseCgroupLimit(*text);
        if (v && (!best || *v < best->bytes)) best = MemoryLimit{*v, std::string("the cgroup's ") + name};
    };
    for (const CgroupLine& line : parseProcCgroup(procSelfCgroup)) {
        for (const std::string& mount : mountFolders(root, line, "memory"))
            for (const std::string& folder : cgroupFolders(mount, line.path)) {
                if (line.controllers.empty()) {
                    consider(folder + "/memory.max", "memory.max");
                    consider(folder + "/memory.high", "memory.high");
                } else {
                    consider(folder + "/memory.limit_in_bytes", "memory.limit_in_bytes");
                }
            }
    }
    return best;
}

std::optional<int> cgroupCpuQuota(const std::string& procSelfCgroup, const std::string& root) {
    std::optional<double> best; // in CPUs
    const auto consider = [&](std::optional<long long> quota, std::optional<long long> period) {
        if (!quota || !period || *quota <= 0 || *period <= 0) return; // "max", -1, garbage
        const double cpus = static_cast<double>(*quota) / static_cast<double>(*period);
        if (!best || cpus < *best) best = cpus;
    };
    for (const CgroupLine& line : parseProcCgroup(procSelfCgroup)) {
        for (const std::string& mount : mountFolders(root, line, "cpu"))
            for (const std::string& folder : cgroupFolders(mount, line.path)) {
                if (line.controllers.empty()) {
                    const auto text = readSmallTextFile(folder + "/cpu.max"); // "QUOTA PERIOD" or "max PERIOD"
                    if (!text) continue;
                    const std::string t = trim(*text);
                    const auto space = t.find_first_of(" \t");
                    if (space == std::string::npos) continue;
                    consider(parseSigned(t.substr(0, space)), parseSigned(t.substr(space + 1)));
                } else {
                    const auto quota = readSmallTextFile(folder + "/cpu.cfs_quota_us");
                    const auto period = readSmallTextFile(folder + "/cpu.cfs_period_us");
                    if (quota && period) consider(parseSigned(*quota), parseSigned(*period));
                }
            }
    }
    if (!best) return std::nullopt;
    const double up = std::ceil(*best - 1e-9);
    return static_cast<int>(std::clamp(up, 1.0, 1e6));
}

std::uint64_t physicalMemoryBytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0) return 8ULL << 30; // unknown: assume a modest 8 GiB machine
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize);
}

std::optional<std::uint64_t> addressSpaceLimit() {
    struct rlimit r {};
    if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return std::nullopt;
    return static_cast<std::uint64_t>(r.rlim_cur);
}

std::optional<int> affinityCpuCount() {
    for (int cpus = 1024; cpus <= (1 << 16); cpus *= 4) {
        cpu_set_t* set = CPU_ALLOC(cpus);
        if (!set) return std::nullopt;
        const std::size_t size = CPU_ALLOC_SIZE(cpus);
        CPU_ZERO_S(size, set);
        if (::sched_getaffinity(0, size, set) == 0) {
            const int n = CPU_COUNT_S(size, set);
            CPU_FREE(set);
            return n > 0 ? std::optional<int>(n) : std::nullopt;
        }
        const int err = errno;
        CPU_FREE(set);
        if (err != EINVAL) return std::nullopt; // EINVAL: the mask is larger than this set
    }
    return std::nullopt;
}

MemoryLimit processMemoryLimit() {
    static const MemoryLimit limit = [] {
        MemoryLimit best{physicalMemoryBytes() / 2, "half the physical memory"};
        if (const auto as = addressSpaceLimit()) {
            // The address space also holds the program, its libraries, thread stacks and malloc's arenas
            // (and the codecs plugin, loaded later): half of what is not mapped yet.
            const std::uint64_t mapped = mappedBytes();
            const std::uint64_t room = *as > mapped ? (*as - mapped) / 2 : 0;
            if (room < best.bytes)
                best = {std::max<std::uint64_t>(room, 1), "half the room left under RLIMIT_AS of " + formatGiB(*as)};
        }
        if (const auto text = readSmallTextFile("/proc/self/cgroup"))
            if (const auto cg = cgroupMemoryLimit(*text, "/")) {
                // The whole job is charged to the cgroup (page cache included): three quarters of it.
                const std::uint64_t room = cg->bytes / 4 * 3;
                if (room < best.bytes)
                    best = {std::max<std::uint64_t>(room, 1), "three quarters of " + cg->source + " of " + formatGiB(cg->bytes)};
            }
        return best;
    }();
    return limit;
}

int processCpuCount() {
    int n = affinityCpuCount().value_or(0);
    if (n <= 0) n = static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
    if (const auto text = readSmallTextFile("/proc/self/cgroup"))
        if (const auto quota = cgroupCpuQuota(*text, "/")) n = std::min(n, *quota);
    return std::max(1, n);
}

} // namespace glint
