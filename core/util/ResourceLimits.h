// The resources this process may use, as the job it runs in sets them, not only what the machine has:
// memory is the smallest of the physical memory, the address-space limit (RLIMIT_AS, `ulimit -v`) and the
// cgroup's memory limit (v2 memory.max / memory.high, v1 memory.limit_in_bytes: what a container or a
// Slurm job with --mem gets); CPUs are the CPU affinity (taskset, Slurm's binding) and the cgroup's CPU
// quota (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us: Slurm's --cpus-per-task under cgroup
// constraints, docker --cpus).
//
// Everything read here is optional: a missing, unreadable or malformed file, "max" or v1's "unlimited"
// (a huge number) counts as no limit. The readers of the cgroup files take the text of /proc/self/cgroup
// and a file-system root, so that tests can point them at a fake tree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace glint {

// A limit and where it comes from, in words for messages: "half the physical memory", "RLIMIT_AS",
// "the cgroup's memory.max".
struct MemoryLimit {
    std::uint64_t bytes = 0;
    std::string source;
};

// The smallest cgroup memory limit that applies to the process whose /proc/self/cgroup reads
// `procSelfCgroup`, with the cgroup file systems mounted under `root` (normally "/": v2 at
// root/sys/fs/cgroup, v1's memory controller at root/sys/fs/cgroup/memory or …/memory,cpu…): the
// process's own cgroup and every one above it up to the mount's root. Nothing when none applies.
std::optional<MemoryLimit> cgroupMemoryLimit(const std::string& procSelfCgroup, const std::string& root);

// The CPU quota of the cgroup (the smallest along the path, as cgroupMemoryLimit walks it), in CPUs,
// rounded up, at least 1. Nothing without a quota.
std::optional<int> cgroupCpuQuota(const std::string& procSelfCgroup, const std::string& root);

// For this process: the smallest of half the physical memory, RLIMIT_AS less what the process already
// maps (less a quarter of the rest as margin for the libraries' own allocations), and the cgroup's limit
// less what the cgroup already uses. Read once and cached for the process.
MemoryLimit processMemoryLimit();

// For this process: CPUs in the affinity mask (sched_getaffinity), at most the cgroup's quota; at least 1.
int processCpuCount();

// The parts, exposed for tests and messages.
std::optional<std::uint64_t> addressSpaceLimit(); // RLIMIT_AS's soft limit; nothing when unlimited
std::uint64_t physicalMemoryBytes();
std::optional<int> affinityCpuCount();

// The text of a small file (at most 64 KiB), or nothing when it cannot be read.
std::optional<std::string> readSmallTextFile(const std::string& path);
// A cgroup file's number: decimal digits and surrounding white space only; "max", a value at or over
// 2^62 (v1's "unlimited", PAGE_COUNTER_MAX rounded) and anything else give nothing.
std::optional<std::uint64_t> parseCgroupLimit(const std::string& text);

} // namespace glint
