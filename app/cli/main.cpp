// glint-cli: every Glint algorithm from the command line, with the JSON and exit codes of DESIGN.md.
#include "cuda/Backends.h"
#include "app/cli/Commands.h"
#include "core/jobs/Backend.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"
#include "core/util/Printable.h"
#include "core/util/SignalCleanup.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <iostream>
#include <malloc.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

void printUsage(std::ostream& out) {
    out << "usage: glint-cli COMMAND [OPTIONS]\n\ncommands:\n";
    for (const auto& c : glint::cli::commands()) out << "  " << c.name << "\t" << c.summary << "\n";
    out << "\n";
    for (const auto& c : glint::cli::commands()) out << c.usage << "\n";
    out << "\nexit codes: 0 done, 2 bad usage or option value, 3 bad input, 4 backend not available\n";
}

// One short printable line on stderr, whatever the message holds (file contents quoted in it may carry
// control bytes, escape sequences or megabytes of one token).
void reportError(const std::string& message) {
    std::cerr << "glint-cli: " << glint::printableMessage(message, 400) << std::endl;
}

// The CUDA probe runs on a background thread from the start (while the image loads). A run that ended
// without the GPU (auto chose the CPU for small work, or --backend cpu) does not wait for it: the
// outputs are complete, published and flushed, so the process ends at once instead of sitting in the
// driver's start-up for ~0.2 s.
int finish(int code) {
    if (glint::cudaProbeInFlight()) {
        std::cerr.flush();
        std::fflush(nullptr);
        std::_Exit(code);
    }
    return code;
}

// A closed descriptor 0, 1 or 2 would be handed out by the next open(): a temporary file would then
// receive what is meant for standard output. Each gets /dev/null opened read-only instead, so that a
// write to a closed standard output still fails (EBADF) and is reported.
void occupyClosedStandardDescriptors() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        const int opened = ::open("/dev/null", O_RDONLY);
        if (opened >= 0 && opened != fd) {
            ::dup2(opened, fd);
            ::close(opened);
        }
    }
}

int runCommand(std::vector<std::string> args) {
    if (args.empty()) {
        printUsage(std::cerr);
        return 2;
    }
    if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
        printUsage(std::cout);
        return 0;
    }
    if (args[0] == "--version") {
        std::cout << "glint-cli " << GLINT_VERSION << "\n";
        return 0;
    }
    const glint::cli::Command* command = nullptr;
    for (const auto& c : glint::cli::commands())
        if (args[0] == c.name) command = &c;
    if (!command) {
        reportError("unknown command '" + args[0] + "' (try glint-cli --help)");
        return 2;
    }
    args.erase(args.begin());
    for (const auto& a : args)
        if (a == "-h" || a == "--help") {
            std::cout << "usage: " << command->usage << "\n";
            if (!command->help.empty()) std::cout << "\n" << command->help;
            return 0;
        }
    try {
        glint::initBackends();
        // --backend cuda: the device comes up on a background thread while the image loads. With auto the
        // driver is not touched until the work is known to be large enough for the GPU to pay (see
        // autoPrefersCuda): small images run on the CPU without paying the ~0.25 s set-up, in wall time too
        // (a process cannot end while a thread sits in the driver's start-up).
        for (std::size_t i = 0; i + 1 < args.size(); ++i)
            if ((args[i] == "--backend" && args[i + 1] == "cuda") || args[i] == "--backend=cuda")
                glint::startCudaProbeInBackground();
        // Every output of the run is published together, and only when the command succeeded.
        glint::OutputTransaction outputs;
        const int code = command->run(args);
        if (code == 0) outputs.commit();
        return code;
    } catch (const glint::UsageError& e) {
        // One line, as every error: the synopsis is what --help prints.
        reportError(std::string(e.what()) + " (glint-cli " + command->name + " --help lists the options)");
        return 2;
    } catch (const glint::InputError& e) {
        reportError(e.what());
        return 3;
    } catch (const glint::OutputError& e) {
        reportError(e.what());
        return 3;
    } catch (const glint::BackendUnavailable& e) {
        reportError(e.what());
        return 4;
    } catch (const glint::Cancelled&) {
        reportError("cancelled");
        return 130;
    } catch (const std::bad_alloc&) {
        reportError("out of memory");
        return 3;
    } catch (const std::exception& e) {
        reportError(std::string("internal error: ") + e.what());
        return 1;
    }
}

} // namespace

// Text meant for standard output is held until the command has finished and its files are written; then
// it is written out with every write checked, and the descriptor closed with its result checked, so that
// a full disk or a closed standard output is an error (exit code 3), not a silent success.
int main(int argc, char** argv) {
    // SIGTERM, SIGINT or SIGHUP at any moment: the temporaries of the outputs are removed (the files they
    // would replace stay whole), then the process ends as killed by the signal.
    glint::installSignalCleanup();
    occupyClosedStandardDescriptors();
    std::signal(SIGPIPE, SIG_IGN); // a reader that went away is an error we report (EPIPE), not a kill
    // Image-sized buffers (a 2048^2 frame's maps are 4-16 MB each) from the heap rather than from mmap, and kept
    // after they are freed: the next one reuses those pages instead of faulting fresh ones in (a fault costs
    // microseconds in a virtual machine; a 2048^2 catalogue faulted 51 000 pages, 40 000 this way). 32 MB is
    // glibc's largest mmap threshold; larger buffers are still mapped and unmapped. A short-lived program (batch
    // reuses them frame after frame), so what it keeps is given back at exit.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    std::stringbuf held;
    std::streambuf* const original = std::cout.rdbuf(&held);
    int code = runCommand(std::vector<std::string>(argv + 1, argv + argc));
    std::cout.rdbuf(original);
    if (code != 0) return finish(code); // a failed run writes nothing more on standard output
    try {
        glint::writeStandardOutput(held.str());
    } catch (const glint::OutputError& e) {
        reportError(e.what());
        return finish(3);
    }
    if (::close(STDOUT_FILENO) != 0 && errno != EINTR) {
        reportError(std::string("cannot write to standard output: ") + std::strerror(errno));
        return finish(3);
    }
    return finish(code);
}
