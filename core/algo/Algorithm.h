// One descriptor per algorithm: what every layer needs to know about it in one place. Its parameter spec (the
// options, --help lines, JSON keys, presets and the window's fields: core/params/ParamSpec.h), its result schema
// (the one JSON form the CLI, sessions and reports use; the batch CSV columns; the region export; the overlay
// picture; the text summary) and its job (the shared set-up lives in the job function it calls).
//
// The commands (`glint-cli brightest|trace|common`), `batch` and the window's sessions loop over
// `algorithms()`; adding an algorithm adds its folder and one line in core/algo/Algorithms.cpp.
#pragma once

#include "core/export/ExportRegions.h"
#include "core/export/JsonOutput.h"
#include "core/io/Image.h"
#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"
#include "core/params/ParamSpec.h"

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace glint {

// The images one run reads: the image, and for two-image algorithms image B.
struct AlgorithmInputs {
    const Image* image = nullptr;
    std::string path;
    std::shared_ptr<const Image> second; // image B (common component), loaded once for a whole batch
    std::string secondPath;
};

// What one run gave, in every form a layer asks for.
class AlgorithmOutcome {
public:
    virtual ~AlgorithmOutcome() = default;
    virtual Backend backend() const = 0;
    virtual std::string device() const = 0;
    // The result's fields in the one JSON form (the CLI document adds algorithm, backend, device and
    // timing_ms in front of them; sessions store exactly this object).
    virtual Json json() const = 0;
    // Rows of the descriptor's csvColumns() (without the leading path column); at least one row per file.
    virtual std::vector<std::vector<std::string>> csvRows() const = 0;
    // The regions (or paths) for --regions OUT.reg|.geojson|.csv, in the image's frame.
    virtual RegionDocument regions(const AlgorithmInputs& inputs) const = 0;
    // The command's text summary (when --json does not go to standard output).
    virtual void printText(std::ostream& out, const AlgorithmInputs& inputs, double totalMs) const = 0;
    // --overlay OUT.png: the image with the result drawn over it.
    virtual void writeOverlay(const std::string& path, const AlgorithmInputs& inputs) const = 0;
    // An output only this algorithm's command takes (its outputOptions()), e.g. --mask OUT.png.
    virtual void writeOutput(const std::string& option, const std::string& path) const;
    // Lines the CLI prints on standard error after the run (e.g. why fewer results than asked came back).
    virtual std::vector<std::string> notes() const { return {}; }
    // The parameters the run used, every automatic value resolved: what an output records under
    // "parameters", and what --params replays.
    virtual Json parameters() const = 0;
};

// The parameters read from the options, ready to run on any number of images.
class AlgorithmTask {
public:
    virtual ~AlgorithmTask() = default;
    // Throws UsageError when the parameters do not fit these images (an ROI outside, points outside).
    virtual std::unique_ptr<AlgorithmOutcome> run(const AlgorithmInputs& inputs, Backend backend,
                                                  JobControl& job) const = 0;
};

class Algorithm {
public:
    virtual ~Algorithm() = default;
    virtual const char* name() const = 0;
    virtual const char* summary() const = 0; // one line for the command list
    // 1, or 2 when the algorithm compares two images (its command takes IMAGE_A IMAGE_B, batch --with B).
    virtual int imageCount() const { return 1; }
    // Its parameters: its command and `batch --algo NAME` take exactly the spec's options.
    virtual const ParamSpecBase& spec() const = 0;
    // Outputs only its command writes, besides --json, --overlay and --regions (e.g. --mask).
    virtual std::vector<std::string> outputOptions() const { return {}; }
    // The placeholder of an output option in the usage text; outputs whose placeholder ends in ".png" need
    // a build that writes PNG files.
    virtual std::string outputPlaceholder(const std::string& /*option*/) const { return "OUT.png"; }
    // The batch CSV columns after "path".
    virtual std::vector<std::string> csvColumns() const = 0;
    // UsageError when an output option's path cannot be written in its format (a bad extension), before any work.
    virtual void checkOutput(const std::string& /*option*/, const std::string& /*path*/) const {}
    // The task of a request: the keys a user gave (the command line's options, a --params file, the window's
    // form), a JSON object the spec checks (and checkRequest). UsageError naming the option or key, before any
    // image is read. The task calls run() for each image.
    std::unique_ptr<AlgorithmTask> prepare(const Json& request) const;
    // One image's run of a request prepare() accepted: resolved for the image (its kind's preset, every auto
    // decided), then computed.
    virtual std::unique_ptr<AlgorithmOutcome> run(const Json& request, const AlgorithmInputs& inputs, Backend backend,
                                                  JobControl& job) const = 0;

protected:
    // What a request needs beyond the spec's checks (trace: its two ends); UsageError.
    virtual void checkRequest(const Json& /*request*/) const {}
};

// Every algorithm, in the order of the command list.
const std::vector<const Algorithm*>& algorithms();
const Algorithm* findAlgorithm(const std::string& name); // null when none has that name

// The descriptors (each defined in its algorithm's folder).
const Algorithm& brightestAlgorithm();
const Algorithm& traceAlgorithm();
const Algorithm& commonAlgorithm();
const Algorithm& sourcesAlgorithm();

} // namespace glint
