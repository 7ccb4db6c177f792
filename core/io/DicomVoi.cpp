#include "core/io/DicomVoi.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace glint {

double voiLinear(double x, double c, double w) {
    if (x <= c - 0.5 - (w - 1.0) / 2.0) return 0.0;
    if (x > c - 0.5 + (w - 1.0) / 2.0) return 1.0;
    return (x - (c - 0.5)) / (w - 1.0) + 0.5; // w > 1 here: with w = 1 the interval above is empty
}

double voiLinearExact(double x, double c, double w) {
    if (x <= c - w / 2.0) return 0.0;
    if (x > c + w / 2.0) return 1.0;
    return (x - c) / w + 0.5;
}

double voiSigmoid(double x, double c, double w) { return 1.0 / (1.0 + std::exp(-4.0 * (x - c) / w)); }

double voiLutOutput(const VoiLut& lut, double x) {
    if (lut.data.empty()) return 0.0;
    const double top = std::ldexp(1.0, lut.bits) - 1.0;
    const double index = std::nearbyint(x) - static_cast<double>(lut.firstMapped);
    std::size_t i = 0;
    if (!(index > 0.0)) i = 0; // NaN too
    else if (index >= static_cast<double>(lut.data.size() - 1)) i = lut.data.size() - 1;
    else i = static_cast<std::size_t>(index);
    return std::min(1.0, static_cast<double>(lut.data[i]) / top);
}

const char* voiFunctionName(VoiFunction function) {
    switch (function) {
    case VoiFunction::Linear: return "LINEAR";
    case VoiFunction::LinearExact: return "LINEAR_EXACT";
    case VoiFunction::Sigmoid: return "SIGMOID";
    }
    return "LINEAR";
}

std::vector<VoiWindow> ctPresetWindows() {
    return {{-600.0, 1500.0, "lung"}, {40.0, 400.0, "mediastinum"}, {400.0, 1800.0, "bone"}, {40.0, 80.0, "brain"}};
}

namespace {
std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}
} // namespace

std::string DicomVoi::choiceName(int choice) const {
    choice = std::clamp(choice, 0, std::max(0, choiceCount() - 1));
    if (choice < static_cast<int>(luts.size())) {
        const VoiLut& l = luts[static_cast<std::size_t>(choice)];
        return "VOI LUT " + std::to_string(choice + 1) + (l.explanation.empty() ? "" : ": " + l.explanation);
    }
    const int k = choice - static_cast<int>(luts.size());
    if (k >= static_cast<int>(windows.size())) return "";
    const VoiWindow& w = windows[static_cast<std::size_t>(k)];
    const std::string values = "C " + number(w.center) + " W " + number(w.width);
    if (k >= headerWindows) return w.explanation + " (" + values + ")";
    return "window " + std::to_string(k + 1) + ": " + values + (w.explanation.empty() ? "" : " (" + w.explanation + ")");
}

void DicomVoi::storedRange(int choice, double& low, double& high) const {
    double xlo = 0.0, xhi = 1.0;
    choice = std::clamp(choice, 0, std::max(0, choiceCount() - 1));
    if (choice < static_cast<int>(luts.size())) {
        const VoiLut& l = luts[static_cast<std::size_t>(choice)];
        xlo = static_cast<double>(l.firstMapped);
        xhi = xlo + static_cast<double>(std::max<std::size_t>(l.data.size(), 2) - 1);
    } else if (const std::size_t k = static_cast<std::size_t>(choice) - luts.size(); k < windows.size()) {
        const VoiWindow& w = windows[k];
        const bool presetOrExact = function != VoiFunction::Linear || static_cast<int>(k) >= headerWindows;
        xlo = presetOrExact ? w.center - w.width / 2.0 : w.center - 0.5 - (w.width - 1.0) / 2.0;
        xhi = presetOrExact ? w.center + w.width / 2.0 : w.center - 0.5 + (w.width - 1.0) / 2.0;
    }
    if (mirror) {
        low = *mirror - xhi;
        high = *mirror - xlo;
    } else {
        low = xlo;
        high = xhi;
    }
    if (!(high > low)) high = low + 1.0;
}

double DicomVoi::pValue(int choice, double v) const {
    const double x = modality(v);
    double y = 0.0;
    choice = std::clamp(choice, 0, std::max(0, choiceCount() - 1));
    if (choice < static_cast<int>(luts.size())) {
        y = voiLutOutput(luts[static_cast<std::size_t>(choice)], x);
    } else if (const std::size_t k = static_cast<std::size_t>(choice) - luts.size(); k < windows.size()) {
        const VoiWindow& w = windows[k];
        // A CT preset is a plain level/width: LINEAR_EXACT, whatever the header's function.
        const VoiFunction f = static_cast<int>(k) >= headerWindows ? VoiFunction::LinearExact : function;
        switch (f) {
        case VoiFunction::Linear: y = voiLinear(x, w.center, w.width); break;
        case VoiFunction::LinearExact: y = voiLinearExact(x, w.center, w.width); break;
        case VoiFunction::Sigmoid: y = voiSigmoid(x, w.center, w.width); break;
        }
    } else {
        return 0.0;
    }
    return inverse ? 1.0 - y : y;
}

} // namespace glint
