// The two catalogues `glint-cli bench catalogue` compares on a truth-injected frame (scenes/SkyTruth.h):
// SExtractor (Debian's `source-extractor`, run as a program with its default configuration) and Glint's
// `sources` algorithm (found by name in the algorithm registry, run in process with `--preset auto`).
#pragma once

#include "core/export/JsonOutput.h"
#include "scenes/SkyTruthScore.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace glint {

class Image;

struct CatalogueRun {
    std::vector<CatalogueEntry> entries;
    double ms = 0.0;     // wall time of the run (SExtractor: the whole program; Glint: the algorithm's run)
    std::string error;   // empty when it ran; otherwise why the column is empty
};

// source-extractor on PATH (then /usr/bin), or nothing.
std::optional<std::string> findSourceExtractor();

// SExtractor's parameter list the bench asks for (one a line).
const char* sextractorParameters();

// Writes the configuration SExtractor's default run needs into `dir`: default.sex (what `source-extractor -d`
// dumps, its defaults: DETECT_THRESH 1.5, DETECT_MINAREA 5, FILTER Y), default.conv (Debian's, or the same 3x3
// kernel), catalogue.param. Returns an error text, empty on success.
std::string writeSextractorConfig(const std::string& program, const std::string& dir);

// Runs `program` on `fits` (in `dir`, after writeSextractorConfig) with the defaults, overriding only the
// catalogue's name, type (ASCII_HEAD) and parameter file, and reads the catalogue back.
CatalogueRun runSourceExtractor(const std::string& program, const std::string& dir, const std::string& fits);

// An ASCII_HEAD catalogue, columns found by the header's names; X/Y_IMAGE made 0-based. Missing columns stay NaN.
std::vector<CatalogueEntry> readSextractorAsciiHead(std::istream& in);

// The `sources` JSON document's entries ({"sources":[{"x","y","flux_auto","a","b","kron_radius","flags"},...]},
// x, y 0-based; a missing or null value stays NaN).
std::vector<CatalogueEntry> catalogueFromSourcesJson(const Json& document);

// THE HOOK: how the bench runs Glint's catalogue. The default, runSourcesAlgorithm, looks up
// findAlgorithm("sources") (core/algo/Algorithm.h) and runs it with {"preset":"auto"} through
// Algorithm::run(request, inputs, Backend::Cpu, job); when no algorithm of that name is registered its
// error is "sources algorithm not built". Tests (or a later integration) may install another runner.
using CatalogueRunner = CatalogueRun (*)(const std::string& fitsPath, const Image& image);
CatalogueRun runSourcesAlgorithm(const std::string& fitsPath, const Image& image);
CatalogueRunner glintCatalogueRunner();
void setGlintCatalogueRunner(CatalogueRunner runner); // null restores runSourcesAlgorithm

} // namespace glint
